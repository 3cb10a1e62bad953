// query(url, opts): openParquet and scan in one call. The same rows, requests and errors as the
// two calls, the file closed at the end, and (in the Worker) the scan message sent before the
// open's answer comes back — the trip the one call exists to save.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { openParquet, query, createEngine, terminateDefaultEngines, PqscanError } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

const files = new Map([
  ['/plain.parquet', corpusFile('parquet-testing/data/alltypes_plain.parquet')],
  ['/tiny.parquet', corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')],
])
let srv
before(async () => {
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

const rows = (t) => t.toArray().map((r) => r.toJSON())

for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'
  const o = { worker, wasm: wasmPath }

  test(`${mode}: query gives openParquet + scan's rows with the same requests`, async () => {
    const q = { columns: ['id', 'string_col'], where: 'id >= 100 AND id < 140', fileSize: files.get('/tiny.parquet').length }
    const engine = createEngine(o)
    try {
      srv.reset()
      const f = await openParquet(srv.url + '/tiny.parquet', { ...q, engine })
      const want = rows(await f.scan(q).toTable())
      f.close()
      const wantLog = srv.log.map((l) => l.range)
      assert.equal(want.length, 40)
      srv.reset()
      const s = query(srv.url + '/tiny.parquet', { ...q, engine })
      assert.deepEqual(rows(await s.toTable()), want)
      assert.deepEqual(srv.log.map((l) => l.range), wantLog, 'the same ranges')
      assert.equal(s.report.rowsReturned, 40)
      assert.equal(s.http.requests, srv.log.length - 1, 'the scan counts its own requests, not the open')
    } finally {
      engine.terminate()
    }
  })

  test(`${mode}: query's empty result has the selected columns; raw IPC; the default engine`, async () => {
    const e = await query(srv.url + '/plain.parquet', { ...o, where: 'id > 1000', columns: ['id', 'bool_col'] }).toTable()
    assert.equal(e.numRows, 0)
    assert.deepEqual(e.schema.fields.map((x) => x.name), ['id', 'bool_col'])
    let n = 0
    for await (const b of query(srv.url + '/plain.parquet', { ...o, raw: true, columns: ['id'] })) n += b instanceof Uint8Array && b.length > 0
    assert.ok(n >= 1)
  })

  test(`${mode}: query's errors carry codes (missing file, bad WHERE, not a source)`, async () => {
    await assert.rejects(query(srv.url + '/missing.parquet', o).toTable(), (e) => e instanceof PqscanError && e.code === 'http' && e.status === 404)
    await assert.rejects(query(srv.url + '/plain.parquet', { ...o, where: 'id >>> 3' }).toTable(), (e) => e instanceof PqscanError && e.code === 'scan')
    await assert.rejects(query(null, o).toTable(), (e) => e instanceof PqscanError && e.code === 'source')
    // The engine goes on.
    assert.equal((await query(srv.url + '/plain.parquet', { ...o, columns: ['id'] }).toTable()).numRows, 8)
  })

  test(`${mode}: query closes its file when the scan ends, early or at its end`, async () => {
    const engine = createEngine(o)
    const closed = []
    const impl = engine.impl
    const closeFile = impl.closeFile.bind(impl)
    impl.closeFile = (id) => (closed.push(id), closeFile(id))
    try {
      await query(srv.url + '/plain.parquet', { engine, columns: ['id'] }).toTable()
      assert.equal(closed.length, 1)
      for await (const b of query(srv.url + '/tiny.parquet', { engine, columns: ['id'], batchRows: 100 })) {
        assert.ok(b.numRows > 0)
        break
      }
      await new Promise((r) => setImmediate(r))
      assert.equal(closed.length, 2)
    } finally {
      engine.terminate()
    }
  })

  test(`${mode}: abort during query's open`, { timeout: 30_000 }, async () => {
    const engine = createEngine(o)
    try {
      const size = files.get('/tiny.parquet').length
      srv.reset()
      srv.hold()
      const ctrl = new AbortController()
      const p = query(srv.url + '/tiny.parquet', { engine, fileSize: size, signal: ctrl.signal }).toTable()
      await srv.whenHeld(1) // the tail
      ctrl.abort()
      await assert.rejects(p, (e) => e.name === 'AbortError')
      srv.release()
      assert.equal((await query(srv.url + '/tiny.parquet', { engine, columns: ['id'], limit: 3 }).toTable()).numRows, 3)
    } finally {
      engine.terminate()
    }
  })
}

// The point of query: the scan message is in the Worker before the footer is even fetched, so
// the Worker never waits on this thread between the open and the scan. The custom fetch runs
// here (proxied) and looks at what was posted when the tail is asked for.
test('worker: query posts the scan before the open is answered', async () => {
  const engine = createEngine({ worker: true, wasm: wasmPath })
  const posted = []
  const post = engine.impl.post.bind(engine.impl)
  engine.impl.post = (m, t) => (posted.push(m.t), post(m, t))
  const atFirstFetch = []
  const fetch = (url, init) => {
    if (atFirstFetch.length === 0) atFirstFetch.push(...posted)
    return globalThis.fetch(url, init)
  }
  try {
    const t = await query(srv.url + '/plain.parquet', { engine, fetch, columns: ['id'] }).toTable()
    assert.equal(t.numRows, 8)
    assert.ok(atFirstFetch.includes('open') && atFirstFetch.includes('scan'), `posted before the first fetch: ${atFirstFetch.join(', ')}`)
  } finally {
    engine.terminate()
  }
})

// The Worker keeps a query's open (worker.js opens) for the scan message that follows it. An
// abort that lands after the open was posted and before the scan was (the signal reads
// aborted from its second look on: WorkerEngine.query checks it, then its scan does; the
// public Scan wraps signals in its own controller, so the engine's query is called here)
// must not leave that entry behind: query tells the Worker to drop it.
test('worker: a query aborted between its open and its scan leaves no open kept in the Worker', async () => {
  const engine = createEngine({ worker: true, wasm: wasmPath })
  const posted = []
  const post = engine.impl.post.bind(engine.impl)
  engine.impl.post = (m, t) => (posted.push(m.t), post(m, t))
  let looks = 0
  const reason = new DOMException('The scan was aborted.', 'AbortError')
  const signal = {
    get aborted() {
      return ++looks > 1
    },
    reason,
    addEventListener() {},
    removeEventListener() {},
  }
  try {
    await assert.rejects(async () => {
      for await (const m of engine.impl.query(srv.url + '/plain.parquet', {}, { columns: ['id'] }, { signal })) void m
    }, (e) => e.name === 'AbortError')
    assert.ok(posted.includes('open') && !posted.includes('scan'), `posted: ${posted.join(', ')}`)
    assert.ok(posted.includes('dropOpen'), `posted: ${posted.join(', ')}`)
    const st = await engine.impl.debugStats()
    assert.equal(st.pendingOpens, 0)
    // The engine still answers a query afterwards.
    assert.equal((await query(srv.url + '/plain.parquet', { engine, columns: ['id'] }).toTable()).numRows, 8)
    assert.equal((await engine.impl.debugStats()).pendingOpens, 0)
  } finally {
    engine.terminate()
  }
})
