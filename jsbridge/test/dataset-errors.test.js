// Datasets' errors and listeners: a scan error of one file of a dataset (the engine's error
// step, not an HTTP failure) carries that file in its `file` field, as HTTP errors do; a
// dataset of more than 10 files scans without Node's MaxListenersExceededWarning (one abort
// listener per file on one signal would pass the EventTarget limit).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { openDataset, terminateDefaultEngines } from '../src/index.js'
import { fileOfError } from '../src/drive.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

const tiny = corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')
// A valid magic at both ends, a footer length pointing before the start.
const corrupt = new Uint8Array([...Buffer.from('PAR1'), ...new Uint8Array(64).fill(7), 0xff, 0xff, 0, 0, ...Buffer.from('PAR1')])
const many = Array.from({ length: 14 }, (_, i) => `/many/part=${i}/f.parquet`)
let srv
before(async () => {
  const files = new Map(many.map((p) => [p, tiny]))
  files.set('/bad/part=1/a.parquet', tiny)
  files.set('/bad/part=2/corrupt.parquet', corrupt)
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'
  const o = { worker, wasm: wasmPath }

  test(`${mode}: a scan error of a dataset's file carries the file`, async () => {
    const bad = srv.url + '/bad/part=2/corrupt.parquet'
    const ds = await openDataset([srv.url + '/bad/part=1/a.parquet', bad], o)
    const e = await ds.scan({ columns: ['id'] }).toTable().catch((e) => e)
    assert.equal(e.code, 'not-parquet', String(e))
    assert.equal(e.file, bad)
    assert.ok(e.message.includes(bad + ': scan: not a Parquet file'), e.message)
  })

  test(`${mode}: a dataset of ${many.length} files scans without a MaxListenersExceededWarning`, async () => {
    // In-thread the warning is a 'warning' event of this process; a Worker's goes to its
    // own process object and reaches us only as text on the stderr it forwards to ours.
    const warnings = []
    const onWarning = (w) => warnings.push(`${w.name}: ${w.message}`)
    process.on('warning', onWarning)
    const write = process.stderr.write
    process.stderr.write = function (chunk, ...rest) {
      if (String(chunk).includes('Warning')) warnings.push(String(chunk).trim())
      return write.call(this, chunk, ...rest)
    }
    try {
      const ds = await openDataset(many.map((p) => srv.url + p), { ...o, concurrency: 4 })
      const t = await ds.scan({ columns: ['id'], where: 'id < 10' }).toTable()
      assert.equal(t.numRows, 10 * many.length)
      // Warnings are emitted on the next tick.
      await new Promise((r) => setTimeout(r, 50))
    } finally {
      process.off('warning', onWarning)
      process.stderr.write = write
    }
    assert.deepEqual(warnings, [])
  })
}

test('fileOfError: the source whose path starts a clause of the message, the longest', () => {
  const srcs = [{ path: 'a.parquet' }, { path: 'x/a.parquet' }, { url: 'https://h/b.parquet', path: 'https://h/b.parquet' }]
  assert.equal(fileOfError('x/a.parquet: scan: not a Parquet file', srcs), srcs[1])
  assert.equal(fileOfError('a.parquet: scan: not a Parquet file', srcs), srcs[0])
  assert.equal(fileOfError('tablescan: schema: https://h/b.parquet: column "x" is int64', srcs), srcs[2])
  assert.equal(fileOfError('tablescan: the table scan made no progress', srcs), undefined)
})
