// ipcRows (src/ipc-rows.js): the rows of an Arrow IPC stream from its message headers, which
// the scan loop uses for its progress event in place of the module's report. Against
// apache-arrow on the engine's own batches (plain and dictionary-encoded columns, several
// batches, limits), and on damaged streams: an answer of -1 or the right count, never a throw.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { tableFromIPC } from 'apache-arrow'
import { createEngine } from '../src/index.js'
import { ipcRows } from '../src/ipc-rows.js'
import { corpusFile, wasmPath } from './helpers.js'

const engine = createEngine({ worker: false, wasm: wasmPath })

async function batches(file, opts) {
  const f = await engine.openParquet(new Blob([corpusFile(file)]))
  const s = f.scan({ ...opts, raw: true })
  const out = []
  for await (const b of s) out.push(b)
  return { out, report: s.report }
}

const cases = [
  ['parquet-testing/data/alltypes_plain.parquet', {}],
  ['parquet-testing/data/alltypes_tiny_pages_plain.parquet', { batchRows: 1000 }],
  ['parquet-testing/data/alltypes_tiny_pages_plain.parquet', { where: 'id >= 1000 AND id < 1100', columns: ['id', 'string_col'], dictionaryArrays: true }],
  ['parquet-testing/data/alltypes_tiny_pages_plain.parquet', { limit: 7, offset: 3 }],
  ['hyparquet/byte_stream_split.zstd.parquet', {}],
]

test('ipcRows counts what apache-arrow reads, and the batches add up to report.rowsReturned', async () => {
  for (const [file, opts] of cases) {
    const { out, report } = await batches(file, opts)
    assert.ok(out.length > 0, file)
    let sum = 0
    for (const b of out) {
      const n = ipcRows(b)
      assert.equal(n, tableFromIPC(b).numRows, `${file} ${JSON.stringify(opts)}`)
      sum += n
    }
    assert.equal(sum, report.rowsReturned, `${file} ${JSON.stringify(opts)}`)
  }
  assert.equal(ipcRows(new Uint8Array(0)), 0, 'an empty stream has no rows')
})

test('ipcRows on damaged streams: -1 or the right count, never a throw', async () => {
  const { out } = await batches('parquet-testing/data/alltypes_tiny_pages_plain.parquet', { batchRows: 1000, columns: ['id', 'string_col'], dictionaryArrays: true })
  const b = out[0]
  const want = ipcRows(b)
  for (let cut = 0; cut < b.length; cut += 1 + (cut >> 4)) {
    const n = ipcRows(b.subarray(0, cut))
    assert.ok(n === -1 || (cut === 0 && n === 0), `cut at ${cut}: ${n}`)
  }
  // Flips inside the message headers (the first 1 KiB) and a seeded random sweep; a flip can
  // change a count the headers hold, so only "no throw, an integer ≥ -1" is asserted there.
  let seed = 42
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32)
  for (let i = 0; i < 3000; i++) {
    const c = b.slice()
    const at = i < 1024 ? i % Math.min(1024, c.length) : Math.floor(rnd() * c.length)
    c[at] ^= 1 << Math.floor(rnd() * 8)
    const n = ipcRows(c)
    assert.ok(Number.isSafeInteger(n) && n >= -1, `flip at ${at}: ${n}`)
  }
  assert.equal(ipcRows(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1])), -1, 'bytes after the end marker')
  assert.equal(want, tableFromIPC(b).numRows)
})

test('a file scan reports its progress rows without asking the module for its report', async () => {
  const f = await engine.openParquet(new Blob([corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')]))
  const impl = engine.impl
  const inst = await impl.instance()
  const report = inst.report
  let calls = 0
  inst.report = function (...a) {
    calls++
    return report.apply(this, a)
  }
  try {
    const seen = []
    const s = f.scan({ batchRows: 1000, columns: ['id'], onProgress: (p) => p.phase === 'batch' && seen.push(p.rowsReturned) })
    await s.done()
    assert.ok(seen.length > 1)
    assert.equal(seen.at(-1), s.report.rowsReturned)
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'cumulative')
    assert.equal(calls, 1, 'pq_report once, at the end')
  } finally {
    inst.report = report
  }
})
