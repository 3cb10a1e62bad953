// The package as its users get it: `npm run build` in jsbridge/ (dist/ and the module),
// `npm pack`, the tarball installed into an empty folder (from the local npm cache: no
// network needed), then a query in Node (`import … from 'pqscan'`, a local path, in a Worker
// and in-thread), the published types checked with tsc --strict, and a query in headless
// Chromium through an import map, with the start-up API (init, a compiled module, streaming
// compilation for application/wasm). Everything is served from the installed folder by a
// small Range-capable server on 127.0.0.1.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import path from 'node:path'
import { execFileSync, execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync, existsSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { root, corpusDir, startBrowser } from './harness.js'

const jsbridge = path.join(root, 'jsbridge')
const dataRel = 'hyparquet/byte_stream_split.zstd.parquet'
const want = JSON.parse(readFileSync(path.join(corpusDir(), 'hyparquet/byte_stream_split.zstd.json'), 'utf8'))
const tinyRel = 'parquet-testing/data/alltypes_tiny_pages_plain.parquet'
let tmp, app, packed, srv, br

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 })
// For a child that talks to this process's server: the event loop must keep running.
const runAsync = async (cmd, args, cwd) => (await promisify(execFile)(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 120000 })).stdout

// Installs the tarball and apache-arrow (the peer dependency, at the version jsbridge's lock
// file has, which `npm ci` put in the cache) from the npm cache; only when the cache lacks a
// package does npm ask the registry.
function install(dir, tarball) {
  const lock = JSON.parse(readFileSync(path.join(jsbridge, 'package-lock.json'), 'utf8'))
  const arrow = lock.packages['node_modules/apache-arrow'].version
  const args = ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', tarball, `apache-arrow@${arrow}`]
  try {
    run('npm', [...args, '--offline'], dir)
  } catch {
    run('npm', [...args, '--prefer-offline'], dir)
  }
}

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-pack-'))
  run('npm', ['run', 'build', '--silent'], jsbridge)
  for (const f of ['dist/pqscan.js', 'dist/worker.js', 'pqscan.wasm', 'pqscan-lean.wasm']) assert.ok(existsSync(path.join(jsbridge, f)), `npm run build made ${f}`)
  packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp, '--loglevel=error'], jsbridge))[0]
  app = path.join(tmp, 'app')
  mkdirSync(app)
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'pqscan-user', private: true, type: 'module' }))
  install(app, path.join(tmp, packed.filename))
  srv = await serve(app)
  br = await startBrowser()
})
after(async () => {
  await br?.close()
  await srv?.close()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

test('the tarball holds the built package and nothing of the tests', () => {
  const files = packed.files.map((f) => f.path).sort()
  for (const f of ['package.json', 'README.md', 'index.d.ts', 'worker.d.ts', 'pqscan.wasm', 'pqscan-lean.wasm', 'dist/pqscan.js', 'dist/worker.js', 'src/index.js', 'src/worker.js', 'src/node-file.js']) {
    assert.ok(files.includes(f), `${f} in ${files.join(' ')}`)
  }
  assert.deepEqual(files.filter((f) => f.startsWith('test/') || f.includes('node_modules')), [])
  assert.equal(statSync(path.join(app, 'node_modules/pqscan/pqscan.wasm')).size, statSync(path.join(root, 'wazerohost/pqscan.wasm')).size)
  assert.equal(statSync(path.join(app, 'node_modules/pqscan/pqscan-lean.wasm')).size, statSync(path.join(root, 'wazerohost/pqscan-lean.wasm')).size)
})

// The page evaluates only the bridge before the engine starts (BENCHMARKS.md "The cold
// page without waiting"): apache-arrow and zstddec are chunks the entry imports dynamically,
// not part of the entry or of what it imports statically (the Chromium test below loads them).
test('the browser bundle leaves apache-arrow and zstddec to chunks imported on demand', () => {
  const dist = path.join(app, 'node_modules/pqscan/dist')
  const read = (f) => readFileSync(path.join(dist, f), 'utf8')
  const staticImports = (src) => [...src.matchAll(/^\s*import\s*(?:[^"'()]*?\sfrom\s*)?"\.\/([^"]+\.js)"/gm)].map((m) => m[1])
  const dynamicImports = (src) => [...src.matchAll(/\bimport\(\s*"\.\/([^"]+\.js)"\s*\)/g)].map((m) => m[1])
  // The entry and the closure of its static imports: what runs before init() can.
  const seen = new Set(['pqscan.js'])
  for (const f of seen) for (const g of staticImports(read(f))) seen.add(g)
  // Nothing but the entry itself: esbuild's shared helper chunk is not fetched before it runs
  // (jsbridge/tools/entry-chunks.mjs).
  assert.deepEqual([...seen], ['pqscan.js'])
  const eager = [...seen].map(read).join('\n')
  assert.doesNotMatch(eager, /var RecordBatchReader\b/, `apache-arrow is not among ${[...seen]}`)
  assert.doesNotMatch(eager, /var ZSTDDecoder\b/, `zstddec is not among ${[...seen]}`)
  assert.doesNotMatch(eager, /var WARMUP_FILE\b/, `the warm-up file is not among ${[...seen]}`)
  assert.ok(eager.length < 300_000, `${[...seen]}: ${eager.length} B`)
  const lazy = dynamicImports(read('pqscan.js'))
  assert.ok(lazy.some((f) => /var RecordBatchReader\b/.test(read(f))), `apache-arrow among the dynamic imports ${lazy}`)
  assert.ok(lazy.some((f) => /var ZSTDDecoder\b/.test(read(f))), `zstddec among the dynamic imports ${lazy}`)
})

test('Node: the installed package queries a local file (Worker and in-thread) and a served one', async () => {
  const script = `
    import { openParquet, init, terminateDefaultEngines } from 'pqscan'
    const out = {}
    for (const worker of [true, false]) {
      await init({ worker })
      const f = await openParquet(process.argv[2], { worker })
      const t = await f.scan().toTable()
      out[worker ? 'worker' : 'inThread'] = t.toArray().map((r) => Object.values(r.toJSON()))
      const g = await openParquet(process.argv[3], { worker })
      const s = g.scan({ columns: ['id'], where: 'id = 4242' })
      out[worker ? 'httpWorker' : 'httpInThread'] = { ids: [...(await s.toTable()).getChild('id').toArray()], bytes: s.http.bytes, size: g.metadata.fileSize }
    }
    terminateDefaultEngines()
    console.log(JSON.stringify(out))`
  writeFileSync(path.join(app, 'query.mjs'), script)
  const rel = path.relative(app, path.join(corpusDir(), dataRel))
  const out = JSON.parse(await runAsync(process.execPath, ['query.mjs', rel, srv.url + 'corpus/' + tinyRel], app))
  for (const k of ['worker', 'inThread']) assertRows(out[k], k)
  for (const k of ['httpWorker', 'httpInThread']) {
    assert.deepEqual(out[k].ids, [4242], k)
    assert.ok(out[k].bytes < out[k].size / 10, `${k}: ${out[k].bytes} of ${out[k].size} bytes`)
  }
})

test('the published types compile for a user (tsc --strict, pqscan and pqscan/worker)', () => {
  writeFileSync(
    path.join(app, 'use.ts'),
    `import { openParquet, init, type ParquetFile, type AsyncBuffer } from 'pqscan'
import type {} from 'pqscan/worker'
const ab: AsyncBuffer = { byteLength: 1, slice: async () => new ArrayBuffer(1) }
export async function q(): Promise<number> {
  await (await init({ worker: true })).ready
  const f: ParquetFile = await openParquet(ab, { fileSize: 1 })
  return (await f.scan({ where: 'x > 1', limit: 3 }).toTable()).numRows
}
`,
  )
  writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [], skipLibCheck: true }, files: ['use.ts'] }))
  run(path.join(jsbridge, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], app)
})

test('Chromium: the installed package through an import map — init(), a compiled module, streaming compilation', async () => {
  const page = await br.ctx.newPage()
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(srv.url + 'index.html')
  const r = await page.evaluate(async () => {
    const real = WebAssembly.compileStreaming
    let streamed = 0
    WebAssembly.compileStreaming = (x) => (streamed++, real.call(WebAssembly, x))
    const pq = await import('pqscan')
    const rows = (t) => t.toArray().map((r) => Object.values(r.toJSON()))
    const out = {}
    // The default engine, started before the first query (its Worker compiles the module).
    await pq.init()
    const f = await pq.openParquet('/corpus/hyparquet/byte_stream_split.zstd.parquet')
    out.init = rows(await f.scan().toTable())
    // In the page: compileStreaming for application/wasm, bytes for octet-stream.
    for (const [u, k] of [['/node_modules/pqscan/pqscan.wasm', 'typed'], ['/octet/pqscan.wasm', 'octet']]) {
      streamed = 0
      const e = pq.createEngine({ worker: false, wasm: u })
      await e.ready
      out[k] = streamed
    }
    // An already-compiled module, handed to a Worker engine.
    const module = await WebAssembly.compileStreaming(fetch('/node_modules/pqscan/pqscan.wasm'))
    const eng = await pq.init({ engine: pq.createEngine({ wasm: module }) })
    const g = await eng.openParquet('/corpus/hyparquet/byte_stream_split.zstd.parquet')
    out.module = rows(await g.scan().toTable())
    // A bad source in the browser: a PqscanError with a code.
    out.bad = await pq.openParquet({ byteLength: 100, slice: () => Promise.reject(new Error('no')) }).catch((e) => `${e.name}:${e.code}`)
    eng.terminate()
    return out
  })
  await page.close()
  assert.deepEqual(errors, [])
  assertRows(r.init, 'init()')
  assertRows(r.module, 'compiled module')
  assert.equal(r.typed, 1, 'application/wasm: compileStreaming')
  assert.equal(r.octet, 0, 'octet-stream: compiled from bytes')
  assert.equal(r.bad, 'PqscanError:source')
  const wasmGets = srv.log.filter((l) => l === '/node_modules/pqscan/pqscan.wasm')
  assert.ok(wasmGets.length >= 2, `module requests: ${wasmGets.length}`)
})

// An engine started ahead of its query warms up in idle time (jsbridge startup.js): in its
// Worker (the file inline in the Worker's bundle) and in the page (a chunk imported then),
// and queries as before.
test('Chromium: an engine started ahead of its query warms up in idle time, in a Worker and in the page', async () => {
  const page = await br.ctx.newPage()
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(srv.url + 'index.html')
  const r = await page.evaluate(async () => {
    const pq = await import('pqscan')
    const out = {}
    for (const worker of [true, false]) {
      const e = pq.createEngine({ worker })
      await e.ready
      let warmed = false
      for (const t0 = Date.now(); !warmed && Date.now() - t0 < 10000; ) {
        await new Promise((res) => setTimeout(res, 25))
        warmed = (await e.impl.debugStats()).startMarks.some((m) => m.name === 'query.warmed')
      }
      const f = await e.openParquet('/corpus/hyparquet/byte_stream_split.zstd.parquet')
      const t = await f.scan().toTable()
      out[worker ? 'worker' : 'page'] = { warmed, rows: t.toArray().map((x) => Object.values(x.toJSON())) }
      e.terminate()
    }
    return out
  })
  await page.close()
  assert.deepEqual(errors, [])
  for (const k of ['worker', 'page']) {
    assert.equal(r[k].warmed, true, `${k}: warmed up`)
    assertRows(r[k].rows, k)
  }
  assert.ok(srv.log.some((l) => /\/dist\/warmup-file-[^/]*\.js$/.test(l)), 'the page engine imported the warm-up chunk')
})

function assertRows(rows, label) {
  assert.equal(rows.length, want.length, label)
  for (let i = 0; i < want.length; i++) {
    for (let j = 0; j < want[i].length; j++) assert.ok(Math.abs(rows[i][j] - want[i][j]) < 1e-6, `${label}: row ${i} col ${j}: ${rows[i][j]} vs ${want[i][j]}`)
  }
}

const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm', '.json': 'application/json' }

// Serves dir (the installed app: node_modules/pqscan as a CDN would serve the package), the
// corpus under /corpus/ with Range support, the module as octet-stream under /octet/, and
// the page with the import map. Logs request paths.
function serve(dir) {
  const log = []
  const page = `<!doctype html><meta charset="utf-8"><title>pqscan package</title>
<script type="importmap">{"imports": {"pqscan": "/node_modules/pqscan/dist/pqscan.js"}}</script>`
  const server = http.createServer((req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://x').pathname)
    log.push(p)
    if (p === '/index.html') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(page)
    let file
    let type
    if (p.startsWith('/corpus/')) file = path.join(corpusDir(), p.slice('/corpus/'.length))
    else if (p === '/octet/pqscan.wasm') (file = path.join(dir, 'node_modules/pqscan/pqscan.wasm')), (type = 'application/octet-stream')
    else file = path.join(dir, p)
    if (!file.startsWith(dir) && !file.startsWith(corpusDir())) return res.writeHead(403).end()
    if (!existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end()
    const body = readFileSync(file)
    const h = { 'Content-Type': type ?? types[path.extname(file)] ?? 'application/octet-stream', 'Accept-Ranges': 'bytes', ETag: `"${body.length}"` }
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '')
    if (!m) return res.writeHead(200, { ...h, 'Content-Length': body.length }).end(body)
    let a = m[1] === '' ? Math.max(0, body.length - Number(m[2])) : Number(m[1])
    let b = m[1] === '' || m[2] === '' ? body.length - 1 : Math.min(Number(m[2]), body.length - 1)
    if (a > b || a >= body.length) return res.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end()
    res.writeHead(206, { ...h, 'Content-Range': `bytes ${a}-${b}/${body.length}`, 'Content-Length': b - a + 1 }).end(body.subarray(a, b + 1))
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, log, close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))) }),
    ),
  )
}
