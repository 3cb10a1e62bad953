// What the two browser benchmark drivers share (run.js: single files; dataset.js: the month
// dataset): the bench server and Chromium, the round-trip count from the server log, medians,
// the answer check, and formatting.
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, readFileSync, writeFileSync, mkdirSync, statSync, readdirSync } from 'node:fs'
import { tmpdir, cpus, totalmem, loadavg, release } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'
import { transformSync } from 'esbuild'
import { chromium } from 'playwright-core'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../..')
const env = process.env

// The static files a page of the bench loads (URL path → file), each served brotli-compressed
// as a CDN would. pqscan's bundles are minified first (jsbridge/dist is not; the peers'
// bundles are minified by the bench's own esbuild step), as a site would ship them.
function staticFiles() {
  const nm = path.join(here, 'node_modules')
  const www = path.join(here, 'www')
  const out = [['/index.html', path.join(www, 'index.html')]]
  for (const f of readdirSync(path.join(www, 'build'))) if (f.endsWith('.js')) out.push([`/build/${f}`, path.join(www, 'build', f)])
  for (const f of readdirSync(path.join(root, 'jsbridge/dist'))) if (f.endsWith('.js')) out.push([`/pqscan/dist/${f}`, path.join(root, 'jsbridge/dist', f), 'minify'])
  out.push(['/pqscan/pqscan.wasm', path.join(root, 'jsbridge/pqscan.wasm')])
  out.push(['/pqscan/pqscan-lean.wasm', path.join(root, 'jsbridge/pqscan-lean.wasm')])
  out.push(['/nm/parquet-wasm/esm/parquet_wasm_bg.wasm', path.join(nm, 'parquet-wasm/esm/parquet_wasm_bg.wasm')])
  for (const f of ['duckdb-eh.wasm', 'duckdb-browser-eh.worker.js']) out.push([`/nm/@duckdb/duckdb-wasm/dist/${f}`, path.join(nm, '@duckdb/duckdb-wasm/dist', f)])
  return out
}

/**
 * Writes brotli (q11) copies of the static files into dir (dir/<url path>.br), once per file
 * version (size + mtime, in dir/index.json), and returns {urlPath: {raw, served}}: the file's
 * size and the bytes the server sends for it.
 */
export function precompress(dir = path.join(here, 'out/br')) {
  const idxFile = path.join(dir, 'index.json')
  let idx = {}
  try { idx = JSON.parse(readFileSync(idxFile, 'utf8')) } catch {}
  const sizes = {}
  for (const [url, file, how] of staticFiles()) {
    const st = statSync(file)
    const key = `${file}|${st.size}|${st.mtimeMs}|${how ?? ''}`
    const dst = path.join(dir, url) + '.br'
    let ok = idx[url]?.key === key
    if (ok) try { ok = statSync(dst).size === idx[url].served } catch { ok = false }
    if (!ok) {
      let b = readFileSync(file)
      if (how === 'minify') b = Buffer.from(transformSync(b.toString(), { minify: true, format: 'esm', target: 'es2022', logLevel: 'silent' }).code)
      const z = zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } })
      mkdirSync(path.dirname(dst), { recursive: true })
      writeFileSync(dst, z)
      idx[url] = { key, raw: st.size, minified: b.length, served: z.length }
    }
    sizes[url] = { raw: idx[url].raw, minified: idx[url].minified, served: idx[url].served }
  }
  mkdirSync(dir, { recursive: true })
  writeFileSync(idxFile, JSON.stringify(idx, null, 1))
  return { dir, sizes }
}

/**
 * Starts bin/bench-server on 127.0.0.1 serving data at /data/ (extra: more flags, e.g. -month).
 * js: the bridge bundle served at /pqscan/dist/ (timeline.js serves its diagnostic build), in
 * which case nothing is brotli-served (the copies are of jsbridge/dist).
 */
export async function startServer(data, extra = [], { js } = {}) {
  const br = js ? { dir: null, sizes: {} } : precompress()
  const p = spawn(path.join(root, 'bin/bench-server'), [...extra, ...(br.dir ? ['-br', br.dir] : []), '-data', data, '-www', path.join(here, 'www'),
    '-js', js ?? path.join(root, 'jsbridge/dist'), '-wasm', path.join(root, 'jsbridge/pqscan.wasm'), '-nm', path.join(here, 'node_modules')],
  { stdio: ['ignore', 'pipe', 'inherit'] })
  const info = await new Promise((resolve, reject) => {
    let buf = ''
    p.stdout.on('data', (d) => {
      buf += d
      const line = buf.split('\n').find((l) => l.startsWith('{'))
      if (line) resolve(JSON.parse(line))
    })
    p.on('exit', (code) => reject(new Error(`bench-server exited (${code})`)))
    setTimeout(() => reject(new Error('bench-server did not start')), 20000)
  })
  return { url: info.url, tlsURL: info.tlsURL, served: br.sizes, stop: () => p.kill('SIGTERM') }
}

/** Reads and clears the server's log of static requests (path, status, encoding, bytes). */
export async function getStaticLog(srv) {
  return (await fetch(srv.url + '__bench/static-log')).json()
}

export async function startBrowser() {
  const dir = mkdtempSync(path.join(tmpdir(), 'pqscan-bench-chromium-'))
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    ignoreHTTPSErrors: true, // the bench server's TLS port (-h2) has a self-signed certificate
    // BENCH_CHROMIUM_ARGS: more flags, space-separated (diagnostics, e.g. --js-flags=… for V8).
    args: ['--ignore-certificate-errors', '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...(env.BENCH_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean)],
  })
  return { ctx, version: ctx.browser()?.version() ?? '', close: async () => { await ctx.close(); rmSync(dir, { recursive: true, force: true }) } }
}

/** Round trips: the longest chain of requests where each starts after the previous ended. */
export function roundTrips(entries) {
  const es = [...entries].sort((a, b) => a.start - b.start)
  const depth = []
  let best = 0
  for (let i = 0; i < es.length; i++) {
    let d = 1
    for (let j = 0; j < i; j++) if (es[j].end <= es[i].start) d = Math.max(d, depth[j] + 1)
    depth.push(d)
    best = Math.max(best, d)
  }
  return best
}

/**
 * The gaps of a request log: for each request that starts when nothing is in flight (every
 * earlier request has ended: a new round), the ms between the last response's end and its
 * start, in order. This is the time the client (bridge, Worker hops, the engine's footer
 * decode and planning) spent between getting the bytes it asked for and asking for the next;
 * the server's own latency is not in it (it is added inside a request's start..end).
 */
export function gaps(entries) {
  const es = [...entries].sort((a, b) => a.start - b.start)
  const out = []
  let lastEnd = -Infinity
  for (const e of es) {
    if (e.start >= lastEnd && lastEnd > -Infinity) out.push(+(e.start - lastEnd).toFixed(2))
    lastEnd = Math.max(lastEnd, e.end)
  }
  return out
}

export async function getLog(srv) {
  return (await fetch(srv.url + '__bench/log')).json()
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

export function verdict(got, want) {
  if (got.error) return { ok: false, why: got.error.split('\n')[0] }
  if (got.rows !== want.rows) return { ok: false, why: `rows ${got.rows} ≠ ${want.rows}` }
  if (want.sum !== undefined) {
    const rel = Math.abs(got.sum - want.sum) / Math.max(1, Math.abs(want.sum))
    return rel <= 1e-9 ? { ok: true } : { ok: false, why: `sum ${got.sum} ≠ ${want.sum}` }
  }
  return got.checksum === want.checksum ? { ok: true } : { ok: false, why: `checksum ${got.checksum} ≠ ${want.checksum}` }
}

export function withTimeout(p, ms, what) {
  let t
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timeout after ${ms} ms: ${what}`)), ms) })]).finally(() => clearTimeout(t))
}

export function goVersion() {
  try { return execFileSync('go', ['env', 'GOVERSION']).toString().trim() } catch { return '' }
}

export function versions() {
  const v = {}
  for (const p of ['hyparquet', 'hyparquet-compressors', 'parquet-wasm', 'apache-arrow', '@duckdb/duckdb-wasm', '@duckdb/node-api', 'playwright-core']) {
    try { v[p] = JSON.parse(readFileSync(path.join(here, 'node_modules', p, 'package.json'))).version } catch {}
  }
  return v
}

export const mib = (b) => (b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(2)} MiB` : `${(b / 1024).toFixed(1)} KiB`)
export const fmtMs = (x) => (x >= 10000 ? `${(x / 1000).toFixed(1)} s` : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`)

// The network scenarios: latency added by the server before every response, and the rate of
// one link shared by all responses (0: none).
export const SCENARIOS = {
  none: { label: 'no added latency', latency: '0s', mbps: 0 },
  '30ms': { label: '30 ms per request', latency: '30ms', mbps: 0 },
  '30ms-50mbit': { label: '30 ms per request, 50 Mbit/s shared link', latency: '30ms', mbps: 50 },
  // HTTP/2 over TLS (the server's -h2 port): one connection, many streams, instead of HTTP/1.1's
  // six connections per origin; pqscan's own limit on requests in flight raised to match.
  'h2-30ms': { label: '30 ms per request, HTTP/2 (TLS), pqscan concurrency 64', latency: '30ms', mbps: 0, h2: true, concurrency: 64 },
}

/**
 * A page of the bench (at base: the server's URL or its TLS URL) with contender `name`'s bundle loaded (window.bench.load(loadCtx), timed
 * in the page: loadMs). reopen() replaces the page, after a run that timed out.
 */
export async function contenderPage(br, srv, name, bundle, loadCtx, timeoutMs, base = srv.url) {
  const cp = {
    page: null,
    loadMs: 0,
    async reopen() {
      await cp.page?.close().catch(() => {})
      cp.page = await br.ctx.newPage()
      cp.page.on('pageerror', (e) => console.error(`pageerror (${name}):`, e.message))
      await cp.page.goto(`${base}index.html?c=${bundle}`)
      await cp.page.waitForFunction(() => window.benchReady === true)
      const l = await withTimeout(cp.page.evaluate((ctx) => window.bench.load(ctx), loadCtx), timeoutMs, `${name} load`)
      await getLog(srv)
      cp.loadMs = l.ms
    },
  }
  await cp.reopen()
  return cp
}

/**
 * Runs one cell: run(page) up to reps times, each between two reads of the server log, stopping
 * after a wrong answer or a run over slowMs. Each repetition: ms, bytes, requests, round trips,
 * rows, ok, engine (the contender's own report), plus more(entries). check: the last failure.
 */
export async function repeat(cp, srv, { reps, slowMs, timeoutMs, what, run, want, more = () => ({}) }) {
  const out = []
  let check = { ok: true }
  for (let i = 0; i < reps; i++) {
    await getLog(srv)
    let r
    try {
      r = await withTimeout(run(cp.page), timeoutMs, what)
    } catch (e) {
      r = { error: String(e.message), ms: timeoutMs }
      await cp.reopen()
    }
    const entries = await getLog(srv)
    const v = verdict(r, want)
    if (!v.ok) check = v
    out.push({ ms: r.ms, bytes: entries.reduce((s, e) => s + e.bytes, 0), requests: entries.length, roundTrips: roundTrips(entries), gaps: gaps(entries), rows: r.rows, ok: v.ok, engine: r.engine, ...more(entries) })
    if (!v.ok || r.ms > slowMs) break
  }
  return { reps: out, check }
}

/** The machine of a run, for the results: load0 is loadavg() at the start. */
export function machineInfo(br, load0) {
  return {
    cpu: cpus()[0]?.model, cores: cpus().length, memGiB: +(totalmem() / 2 ** 30).toFixed(1), kernel: release(),
    node: process.version, chromium: br.version, go: goVersion(), loadavgStart: load0.map((x) => +x.toFixed(1)), loadavgEnd: loadavg().map((x) => +x.toFixed(1)),
  }
}
