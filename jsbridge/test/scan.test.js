// The bridge end to end in Node: openParquet → scan → apache-arrow, in a worker_threads Worker
// and in the calling thread, against corpus files served by test/server.js.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { openParquet, createEngine, terminateDefaultEngines, PqscanError } from '../src/index.js'
import { Core } from '../src/core.js'
import { startServer } from './server.js'
import { corpusFile, corpusDir, wasmPath } from './helpers.js'

const wasm = readFileSync(wasmPath)
const files = new Map([
  ['/plain.parquet', corpusFile('parquet-testing/data/alltypes_plain.parquet')],
  ['/tiny.parquet', corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')],
  ['/bss.parquet', corpusFile('hyparquet/byte_stream_split.zstd.parquet')],
])
let srv
before(async () => {
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'
  const o = { worker, wasm: wasmPath }

  test(`${mode}: schema, metadata and values of alltypes_plain`, async () => {
    srv.reset()
    const f = await openParquet(srv.url + '/plain.parquet', o)
    assert.equal(f.metadata.numRows, 8)
    assert.equal(f.metadata.numRowGroups, 1)
    assert.equal(f.metadata.fileSize, files.get('/plain.parquet').length)
    assert.deepEqual(f.schema.fields.map((x) => x.name).slice(0, 3), ['id', 'bool_col', 'tinyint_col'])
    assert.deepEqual(srv.log.map((l) => l.range), ['bytes=-65536'], 'open reads one suffix')
    const t = await f.scan({ columns: ['id', 'bigint_col'], where: 'id > 3' }).toTable()
    assert.deepEqual(t.toArray().map((r) => r.toJSON()), [
      { id: 4, bigint_col: 0n },
      { id: 5, bigint_col: 10n },
      { id: 6, bigint_col: 0n },
      { id: 7, bigint_col: 10n },
    ])
    assert.equal(srv.log.length, 1, 'a small file is served from the bytes kept at open')
  })

  test(`${mode}: a Blob, a File, an ArrayBuffer and a Uint8Array are read by slices, with the URL's rows`, async () => {
    const bytes = files.get('/tiny.parquet')
    const q = { columns: ['id', 'string_col'], where: 'id >= 100 AND id < 140' }
    const rows = (t) => t.toArray().map((r) => r.toJSON())
    const want = rows(await (await openParquet(srv.url + '/tiny.parquet', o)).scan(q).toTable())
    assert.equal(want.length, 40)
    const inputs = [new Blob([bytes]), new File([bytes], 'tiny.parquet'), bytes.slice().buffer, bytes]
    for (const input of inputs) {
      const f = await openParquet(input, o)
      assert.equal(f.metadata.fileSize, bytes.length)
      const s = f.scan(q)
      assert.deepEqual(rows(await s.toTable()), want, input.constructor.name)
      // The page index keeps a few small pages per column: slices of the Blob, not all of it.
      assert.ok(s.http.bytes > 0 && s.http.bytes < bytes.length / 10, `${input.constructor.name}: read ${s.http.bytes} of ${bytes.length} bytes`)
      f.close()
    }
    const bad = await openParquet(new Blob([bytes.subarray(0, 1000)]), o).catch((e) => e)
    assert.equal(bad.code, 'not-parquet', String(bad))
  })

  test(`${mode}: matches hyparquet's expected rows (byte_stream_split.zstd)`, async () => {
    const want = JSON.parse(readFileSync(path.join(corpusDir(), 'hyparquet/byte_stream_split.zstd.json'), 'utf8'))
    const f = await openParquet(srv.url + '/bss.parquet', o)
    const t = await f.scan().toTable()
    assert.equal(t.numRows, want.length)
    const rows = t.toArray().map((r) => Object.values(r.toJSON()))
    for (let i = 0; i < want.length; i++) {
      for (let j = 0; j < want[i].length; j++) assert.ok(Math.abs(rows[i][j] - want[i][j]) < 1e-6, `row ${i} col ${j}: ${rows[i][j]} vs ${want[i][j]}`)
    }
  })

  test(`${mode}: page-level filter, limit/offset, batches, progress events and report`, async () => {
    const f = await openParquet(srv.url + '/tiny.parquet', { ...o, fileSize: files.get('/tiny.parquet').length })
    const all = await f.scan({ columns: ['id'] }).toTable()
    assert.equal(all.numRows, f.metadata.numRows)
    const ids = all.getChild('id').toArray()
    const want = [...ids].filter((x) => x >= 1000 && x < 1100).length
    assert.ok(want > 0)

    const events = []
    const s = f.scan({ columns: ['id', 'string_col'], where: 'id >= 1000 AND id < 1100', batchRows: 16, onProgress: (p) => events.push(p) })
    let ev = 0
    s.addEventListener('progress', () => ev++)
    let rows = 0
    let batches = 0
    for await (const b of s) {
      batches++
      rows += b.numRows
      for (const v of b.getChild('id')) assert.ok(v >= 1000 && v < 1100)
    }
    assert.equal(rows, want)
    assert.ok(batches >= Math.ceil(want / 16), `${batches} batches`)
    assert.equal(s.report.rowsReturned, want)
    assert.ok(s.report.pagesAfterPageIndex < s.report.pagesTotal, 'the page index skipped pages')
    assert.ok(events.length > 0 && ev === events.length)
    const last = events.at(-1)
    assert.equal(last.phase, 'done')
    assert.ok(last.bytesPlanned > 0 && last.bytesPlanned < f.metadata.fileSize)

    const page = await f.scan({ columns: ['id'], limit: 5, offset: 10 }).toTable()
    assert.deepEqual([...page.getChild('id')], [...ids].slice(10, 15))
  })

  test(`${mode}: lateMaterializationThreshold skips filtered rows inside pages, same rows; predicateOrder`, async () => {
    const f = await openParquet(srv.url + '/tiny.parquet', { ...o, fileSize: files.get('/tiny.parquet').length })
    const where = 'bool_col = true AND int_col = 4'
    const whole = f.scan({ where, lateMaterializationThreshold: -1 })
    const wt = await whole.toTable()
    const skip = f.scan({ where, lateMaterializationThreshold: 2 })
    const st = await skip.toTable()
    assert.ok(wt.numRows > 0)
    assert.deepEqual([...st.getChild('id')], [...wt.getChild('id')])
    assert.deepEqual([...st.getChild('string_col')], [...wt.getChild('string_col')])
    assert.equal(whole.report.valuesSkipped ?? 0, 0)
    assert.ok(skip.report.valuesSkipped > 0, `${skip.report.valuesSkipped} values skipped`)
    const order = skip.report.rowGroups.find((g) => g.predicateOrder)?.predicateOrder
    assert.equal(order?.length, 2, JSON.stringify(order))
  })

  test(`${mode}: explain reads no data pages`, async () => {
    const f = await openParquet(srv.url + '/tiny.parquet', o)
    srv.reset()
    const r = await f.explain({ where: 'id < 10' })
    assert.equal(r.rowsReturned, 0)
    assert.ok(r.pagesAfterPageIndex < r.pagesTotal)
    const fetched = srv.log.length
    const s = f.scan({ where: 'id < 10', columns: ['id'] })
    const t = await s.toTable()
    assert.equal(t.numRows, 10)
    assert.ok(srv.log.length > fetched, 'the real scan fetched the data pages explain did not')
  })

  test(`${mode}: raw IPC and an empty result`, async () => {
    const f = await openParquet(srv.url + '/plain.parquet', o)
    const s = f.scan({ raw: true, columns: ['id'] })
    for await (const b of s) assert.ok(b instanceof Uint8Array && b.length > 0)
    const e = await f.scan({ where: 'id > 1000', columns: ['id', 'bool_col'] }).toTable()
    assert.equal(e.numRows, 0)
    assert.deepEqual(e.schema.fields.map((x) => x.name), ['id', 'bool_col'])
  })

  test(`${mode}: errors carry codes (bad WHERE, unknown column, missing file)`, async () => {
    const f = await openParquet(srv.url + '/plain.parquet', o)
    await assert.rejects(f.scan({ where: 'id >>> 3' }).toTable(), (e) => e instanceof PqscanError && e.code === 'scan')
    await assert.rejects(f.scan({ columns: ['nope'] }).toTable(), (e) => e instanceof PqscanError && e.code === 'scan' && /nope/.test(e.message))
    await assert.rejects(openParquet(srv.url + '/missing.parquet', o), (e) => e.code === 'http' && e.status === 404)
  })

  // The server holds the scan's requests unanswered: the abort must end the scan and drop the
  // requests without their responses (the timeout only turns a hang into a failure).
  test(`${mode}: abort mid-scan cancels requests and the scan`, { timeout: 30_000 }, async () => {
    const f = await openParquet(srv.url + '/tiny.parquet', o)
    srv.hold()
    const ctrl = new AbortController()
    const p = f.scan({ signal: ctrl.signal }).toTable()
    await srv.whenHeld(1)
    ctrl.abort()
    await assert.rejects(p, (e) => e.name === 'AbortError')
    await srv.whenClosed(1)
    srv.release()
    // The file stays usable.
    const t = await f.scan({ columns: ['id'], limit: 3 }).toTable()
    assert.equal(t.numRows, 3)
  })

  test(`${mode}: a custom fetch is used (proxied into the worker)`, async () => {
    const seen = []
    const fetch = (url, init) => {
      seen.push(new Headers(init.headers).get('x-token'))
      return globalThis.fetch(url, init)
    }
    const f = await openParquet(srv.url + '/plain.parquet', { ...o, fetch, headers: { 'X-Token': 'abc' } })
    assert.equal((await f.scan({ columns: ['id'] }).toTable()).numRows, 8)
    assert.ok(seen.length >= 1 && seen.every((h) => h === 'abc'), JSON.stringify(seen))
  })
}

test('in-thread: after a trap the next scan gets a new instance', async () => {
  const core = new Core({ wasm })
  const eng = { impl: core, worker: false }
  const f = await openParquet(srv.url + '/plain.parquet', { engine: eng })
  assert.equal(core.instances, 1)
  assert.equal(await core.debugTrap(), 'trap')
  const t = await f.scan({ columns: ['id'] }).toTable()
  assert.equal(t.numRows, 8)
  assert.equal(core.instances, 2)
})

test('worker: after a trap the next scan gets a new instance', async () => {
  const eng = createEngine({ worker: true, wasm: wasmPath })
  try {
    const f = await eng.openParquet(srv.url + '/plain.parquet')
    const r = await eng.impl.debugTrap()
    assert.deepEqual(r, { code: 'trap', instances: 1 })
    const t = await f.scan({ columns: ['id'] }).toTable()
    assert.equal(t.numRows, 8)
    assert.equal((await eng.impl.debugTrap()).instances, 2)
  } finally {
    eng.terminate()
  }
})

test('a server that ignores Range: whole body once, same rows', async () => {
  files.set('/tiny-norange.parquet', files.get('/tiny.parquet'))
  srv.mode['/tiny-norange.parquet'] = 'ignore-range'
  const q = { columns: ['id', 'string_col'], where: 'id < 50' }
  const good = await (await openParquet(srv.url + '/tiny.parquet', { worker: false, wasm })).scan(q).toTable()
  srv.reset()
  const f = await openParquet(srv.url + '/tiny-norange.parquet', { worker: false, wasm })
  const t = await f.scan(q).toTable()
  assert.equal(t.numRows, 50)
  assert.deepEqual(t.toArray().map((r) => r.toJSON()), good.toArray().map((r) => r.toJSON()))
  assert.equal(srv.log.length, 1, 'one request: the whole file')
})

test('breaking out of the iteration early closes the scan; the file stays usable', async () => {
  for (const worker of [true, false]) {
    const f = await openParquet(srv.url + '/tiny.parquet', { worker, wasm: wasmPath })
    let n = 0
    for await (const b of f.scan({ columns: ['id'], batchRows: 100 })) {
      n += b.numRows
      if (n >= 300) break
    }
    assert.equal(n, 300)
    const t = await f.scan({ columns: ['id'], limit: 7 }).toTable()
    assert.equal(t.numRows, 7)
  }
})
