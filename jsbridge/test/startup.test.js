// The start-up API: init() / engine.ready start the engine before the first
// query; the module may be given as an already-compiled WebAssembly.Module or a URL, and a
// response served as application/wasm is compiled with WebAssembly.compileStreaming (so
// Chromium can cache the compiled code; e2e/tests/package.test.js checks the browser side),
// any other response from its bytes. In a worker_threads Worker and in the calling thread.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { init, createEngine, openParquet, terminateDefaultEngines, PqscanError } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath, leanWasmPath } from './helpers.js'

const wasmBytes = new Uint8Array(readFileSync(wasmPath))
const plain = corpusFile('parquet-testing/data/alltypes_plain.parquet')
let srv
before(async () => {
  srv = await startServer(new Map([['/pqscan.wasm', wasmBytes], ['/typed/pqscan.wasm', wasmBytes], ['/plain.parquet', plain]]))
  srv.mode['/typed/pqscan.wasm'] = 'wasm-type'
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

const ids = async (f) => [...(await f.scan({ columns: ['id'] }).toTable()).getChild('id').toArray()]
const paths = () => srv.log.map((l) => l.path)

for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'

  test(`${mode}: init() with a module URL loads and instantiates it before the first query`, async () => {
    for (const p of ['/pqscan.wasm', '/typed/pqscan.wasm']) {
      srv.reset()
      const eng = await init({ worker, wasm: srv.url + p })
      assert.deepEqual(paths(), [p], 'the module was fetched by init, nothing else')
      assert.equal(await eng.ready, undefined)
      const f = await openParquet(srv.url + '/plain.parquet', { worker, wasm: srv.url + p })
      assert.deepEqual(paths(), [p, '/plain.parquet'], 'openParquet found the started default engine')
      assert.deepEqual(await ids(f), [4, 5, 6, 7, 2, 3, 0, 1])
    }
  })

  test(`${mode}: an already-compiled WebAssembly.Module, through createEngine().ready and init({engine})`, async () => {
    const module = await WebAssembly.compile(wasmBytes)
    const eng = createEngine({ worker, wasm: module })
    try {
      await eng.ready
      assert.equal(eng.ready, eng.ready, 'one promise')
      assert.equal(await init({ engine: eng }), eng)
      srv.reset()
      const f = await eng.openParquet(srv.url + '/plain.parquet')
      assert.deepEqual(await ids(f), [4, 5, 6, 7, 2, 3, 0, 1])
      assert.deepEqual(paths(), ['/plain.parquet'])
    } finally {
      eng.terminate()
    }
  })

  test(`${mode}: a module that cannot load rejects ready with a PqscanError, and ready retries`, async () => {
    const eng = createEngine({ worker, wasm: srv.url + '/missing.wasm' })
    try {
      const e = await eng.ready.catch((e) => e)
      assert.ok(e instanceof PqscanError, String(e?.stack ?? e))
      assert.equal(e.code, 'http')
      assert.equal(e.status, 404)
      srv.set('/missing.wasm', wasmBytes)
      await eng.ready // a new attempt, which finds the module now
    } finally {
      eng.terminate()
      srv.set('/missing.wasm', undefined)
    }
  })
}

test('in-thread: compileStreaming for application/wasm responses, bytes otherwise; a Response is taken too', async () => {
  const real = WebAssembly.compileStreaming
  let streamed = 0
  WebAssembly.compileStreaming = (r) => (streamed++, real.call(WebAssembly, r))
  try {
    for (const [p, want] of [['/typed/pqscan.wasm', 1], ['/pqscan.wasm', 0]]) {
      streamed = 0
      const eng = createEngine({ worker: false, wasm: srv.url + p })
      await eng.ready
      assert.equal(streamed, want, p)
    }
    // A module URL with the engine in a Worker: compiled here, while the Worker starts, and
    // posted to it as a WebAssembly.Module (the Worker's own compileStreaming is not this one).
    streamed = 0
    const wk = createEngine({ worker: true, wasm: srv.url + '/typed/pqscan.wasm' })
    try {
      await wk.ready
      assert.equal(streamed, 1, 'a URL (worker): compiled in the calling thread, streaming')
      assert.deepEqual(await ids(await wk.openParquet(plain)), [4, 5, 6, 7, 2, 3, 0, 1])
    } finally {
      wk.terminate()
    }
    for (const worker of [false, true]) {
      streamed = 0
      const eng = createEngine({ worker, wasm: fetch(srv.url + '/typed/pqscan.wasm') })
      try {
        await eng.ready
        assert.equal(streamed, 1, `a promise of a Response (worker ${worker}): compiled here, streaming`)
        assert.deepEqual(await ids(await eng.openParquet(plain)), [4, 5, 6, 7, 2, 3, 0, 1])
      } finally {
        eng.terminate()
      }
    }
  } finally {
    WebAssembly.compileStreaming = real
  }
})

// The lazy path of a cold page: the first openParquet of an engine not yet started asks for
// the file's tail while the module is still being fetched and compiled, not after. With every
// request held by the server, both the module's and the tail's request arrive; without the
// prefetch the tail's would wait for the module, which never comes (the test then times out).
// The tail is fetched once: the engine's own request for it is served from memory.
for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'
  test(`${mode}: the first open fetches the tail while the module loads, and only once`, { timeout: 60_000 }, async () => {
    for (const fileSize of [plain.length, undefined]) {
      const eng = createEngine({ worker, wasm: srv.url + '/pqscan.wasm' })
      try {
        srv.reset()
        srv.hold()
        const opened = eng.openParquet(srv.url + '/plain.parquet', { fileSize })
        opened.catch(() => {})
        await srv.whenHeld(2) // the module's request and the tail's, both waiting
        srv.release()
        const f = await opened
        assert.deepEqual(await ids(f), [4, 5, 6, 7, 2, 3, 0, 1])
        assert.deepEqual(paths().sort(), ['/plain.parquet', '/pqscan.wasm'], 'the tail once, the module once')
        assert.equal(f.metadata.http.requests, 1)
      } finally {
        srv.release()
        eng.terminate()
      }
    }
  })
}

// After an instance's first open, its first pq_report (encoding/json's encoder for the report)
// is made on a throwaway session in the next task (core.js warmReport), not at the end of the
// first scan; once per instance. The timer of this test is queued after the warm-up's.
test('in-thread: the first open warms the report encoder once, on its own session', async () => {
  const { Core } = await import('../src/core.js')
  const { Instance } = await import('../src/module.js')
  const module = await WebAssembly.compile(wasmBytes)
  const calls = []
  const core = new Core({
    warmup: false, // the idle-time warm-up's own reports are not this test's
    createInstance: async () => {
      const i = await Instance.create(module)
      const report = i.report.bind(i)
      i.report = (h) => (calls.push(h), report(h))
      return i
    },
  })
  const f = await core.openFile(new Blob([plain]))
  assert.deepEqual(calls, [], 'nothing before the open returned')
  await new Promise((r) => setTimeout(r, 0))
  assert.equal(calls.length, 1, 'one warm-up report')
  await core.openFile(new Blob([plain]))
  await new Promise((r) => setTimeout(r, 0))
  assert.equal(calls.length, 1, 'once per instance')
  let done = null
  for await (const m of core.scan(f.id, { columns: ['id'] })) if (m.type === 'done') done = m
  assert.equal(done.report.rowsReturned, 8)
  assert.notEqual(calls[1], calls[0], "the scan's report is on its own session")
})

// Core with an instance whose calls are logged (open, next, close by handle).
async function loggedCore(opts = {}) {
  const { Core } = await import('../src/core.js')
  const { Instance } = await import('../src/module.js')
  const { loadZstd } = await import('../src/zstd.js')
  const module = await WebAssembly.compile(wasmBytes)
  const log = { opens: [], closes: [], nexts: 0 }
  const core = new Core({
    ...opts,
    createInstance: async () => {
      const i = await Instance.create(module, { zstd: await loadZstd() })
      const open = i.open.bind(i)
      const close = i.close.bind(i)
      const next = i.next.bind(i)
      i.open = (o) => {
        const h = open(o)
        log.opens.push({ h, o })
        return h
      }
      i.close = (h) => (log.closes.push(h), close(h))
      i.next = (h) => (log.nexts++, next(h))
      return i
    },
  })
  return { core, log }
}

const until = async (cond, ms = 5000) => {
  for (const t0 = Date.now(); !cond(); ) {
    if (Date.now() - t0 > ms) return false
    await new Promise((r) => setTimeout(r, 5))
  }
  return true
}

test('in-thread: an engine started ahead of its query and left idle scans the warm-up file twice, then stops', async () => {
  const { WARMUP_WHERE } = await import('../src/warmup-file.js')
  const { core, log } = await loggedCore()
  await core.warm()
  assert.equal(log.opens.length, 0, 'nothing before the idle delay')
  assert.ok(await until(() => log.opens.length === 2 && log.closes.length === 2), JSON.stringify(log))
  assert.equal(log.opens[0].o.where, WARMUP_WHERE, 'a filtered scan first')
  assert.equal(log.opens[1].o.where, undefined, 'then a whole one')
  const n = log.nexts
  await new Promise((r) => setTimeout(r, 100))
  assert.equal(log.nexts, n, 'once per instance: nothing more')
  const f = await core.openFile(new Blob([plain]))
  let done = null
  for await (const m of core.scan(f.id, { columns: ['id'] })) if (m.type === 'done') done = m
  assert.equal(done.report.rowsReturned, 8)
})

test('in-thread: a first open not followed at once by a scan warms the engine up too', async () => {
  const { WARMUP_FILE } = await import('../src/warmup-file.js')
  const size = atob(WARMUP_FILE).length
  const { core, log } = await loggedCore()
  const f = await core.openFile(new Blob([plain]))
  const warm = () => log.opens.filter((x) => x.o.fileSize === size)
  assert.ok(await until(() => warm().length === 2 && warm().every((x) => log.closes.includes(x.h))), JSON.stringify(log))
  let rows = 0
  for await (const m of core.scan(f.id, { columns: ['id'] })) if (m.type === 'done') rows = m.report.rowsReturned
  assert.equal(rows, 8)
})

test('in-thread: the warm-up stops at the first real call, leaves no session open, and never starts with warmup: false', async () => {
  const { WARMUP_FILE } = await import('../src/warmup-file.js')
  const size = atob(WARMUP_FILE).length
  const { core, log } = await loggedCore()
  await core.warm()
  assert.ok(await until(() => log.opens.length === 1), 'the warm-up started')
  const f = await core.openFile(new Blob([plain]))
  const warm = () => log.opens.filter((x) => x.o.fileSize === size)
  const n = warm().length
  let rows = 0
  for await (const m of core.scan(f.id, { columns: ['id'] })) if (m.type === 'done') rows = m.report.rowsReturned
  assert.equal(rows, 8)
  await new Promise((r) => setTimeout(r, 150))
  assert.equal(warm().length, n, 'no warm-up scan after the call')
  assert.ok(warm().every((x) => log.closes.includes(x.h)), 'every warm-up session closed')

  const { WARM_IDLE_MS } = await import('../src/startup.js')
  const off = await loggedCore({ warmup: false })
  await off.core.warm()
  await new Promise((r) => setTimeout(r, 3 * WARM_IDLE_MS))
  assert.equal(off.log.opens.filter((x) => x.o.fileSize === size).length, 0, 'no warm-up open past the idle bound')
})

test('worker: an engine started ahead of its query warms up in idle time (both modules); warmup: false does not', async () => {
  const lean = new Uint8Array(readFileSync(leanWasmPath))
  for (const [warmup, wasm] of [[true, wasmBytes], [true, lean], [false, wasmBytes]]) {
    const eng = createEngine({ worker: true, wasm, warmup })
    try {
      await eng.ready
      let seen = false
      // Off: past the idle bound and the warm-up's own time, still no mark.
      for (const t0 = Date.now(); Date.now() - t0 < (warmup ? 10000 : 1500); ) {
        const st = await eng.impl.debugStats()
        if (st.startMarks.some((m) => m.name === 'query.warmed')) {
          seen = true
          break
        }
        await new Promise((r) => setTimeout(r, 20))
      }
      assert.equal(seen, warmup)
      const f = await eng.openParquet(new Blob([plain]))
      assert.deepEqual(await ids(f), [4, 5, 6, 7, 2, 3, 0, 1])
    } finally {
      eng.terminate()
    }
  }
})
