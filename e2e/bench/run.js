// make bench: pqscan against hyparquet, parquet-wasm and DuckDB-WASM in headless Debian
// Chromium, on the three events layouts, under three network scenarios. See mk/bench-browser.mk
// for the knobs; writes BENCHMARKS.md and bench/results.json (or BENCH_OUT_MD / BENCH_OUT_JSON).
import { readdirSync, statSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'
import { transformSync } from 'esbuild'
import { cachedOracle } from './oracle.js'
import { datasetMarkdown } from './dataset-md.js'
import { coldCells, coldMarkdown, COLD } from './cold.js'
import { gapsMarkdown } from './gaps-md.js'
import { keepHandWritten, GEN_START, GEN_END } from './keep-md.js'
import { startServer, startBrowser, contenderPage, repeat, median, machineInfo, versions, mib, fmtMs, SCENARIOS as ALL_SCENARIOS } from './lib.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../..')
const env = process.env
const ROWS = Number(env.BENCH_ROWS || 4000000)
const REPS = Number(env.BENCH_REPS || 5)
const DATA = path.resolve(root, env.BENCH_DIR || '.cache/events')
const LAYOUTS = (env.BENCH_LAYOUTS || 'sorted,small-rg,unsorted').split(',')
const QUERIES = (env.BENCH_QUERIES || 'Q1,Q2,Q3,Q4').split(',')
const CONTENDERS = (env.BENCH_CONTENDERS || 'pqscan,hyparquet,parquet-wasm,duckdb-wasm').split(',')
const SCENARIOS = (env.BENCH_SCENARIOS || 'none,30ms,30ms-50mbit').split(',')
// A cell whose first repetition takes longer than this is not repeated (its n says so).
const SLOW_MS = Number(env.BENCH_SLOW_MS || 15000)
const TIMEOUT_MS = Number(env.BENCH_TIMEOUT_MS || 180000)
const OUT_MD = path.resolve(root, env.BENCH_OUT_MD || 'BENCHMARKS.md')
const OUT_JSON = path.resolve(root, env.BENCH_OUT_JSON || 'bench/results.json')
const OUT_DS_JSON = path.resolve(root, env.BENCH_DS_OUT_JSON || 'bench/results-dataset.json')
// A pqscan-only run for the gaps section (gaps-md.js), if there is one.
const GAPS_JSON = path.resolve(root, env.BENCH_GAPS_JSON || 'bench/results-gaps.json')
const COMMAND = env.BENCH_COMMAND || 'make bench'
// BENCH_COLD=0 skips the cold page loads (cold.js); BENCH_COLD_ONLY=1 runs only them and
// replaces the cold part of an existing results.json (make bench-cold).
const COLD_ON = env.BENCH_COLD !== '0'
const COLD_ONLY = env.BENCH_COLD_ONLY === '1'
const BUNDLE = { pqscan: 'pqscan', hyparquet: 'hyparquet', 'parquet-wasm': 'parquet-wasm', 'duckdb-wasm': 'duckdb' }
for (const c of CONTENDERS) if (!BUNDLE[c]) throw new Error(`BENCH_CONTENDERS: unknown contender ${c} (${Object.keys(BUNDLE).join(', ')})`)
const isPeer = (c) => !c.startsWith('pqscan')

const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a)

function findFile(layout) {
  const re = new RegExp(`^events-v1-${layout}-${ROWS}-rg\\d+\\.parquet$`)
  const f = readdirSync(DATA).find((n) => re.test(n))
  if (!f) throw new Error(`no ${layout} file with ${ROWS} rows in ${DATA}: run make bench-events BENCH_ROWS=${ROWS}`)
  return { layout, name: f, path: path.join(DATA, f), size: statSync(path.join(DATA, f)).size }
}

// JS (minified with esbuild, as a site would ship it) + wasm of each contender: raw, gzip -9, brotli q11.
function sizes() {
  const cacheFile = path.join(here, 'out/sizes.json')
  let cache = {}
  try { cache = JSON.parse(readFileSync(cacheFile, 'utf8')) } catch {}
  const nm = path.join(here, 'node_modules')
  const files = {
    // Every file of jsbridge/dist: the bundle's split chunks (apache-arrow, zstddec) count too.
    pqscan: [...readdirSync(path.join(root, 'jsbridge/dist')).filter((f) => f.endsWith('.js')).sort().map((f) => ['js', path.join(root, 'jsbridge/dist', f)]), ['wasm', path.join(root, 'jsbridge/pqscan.wasm')]],
    hyparquet: [['js', path.join(here, 'www/build/hyparquet.js')]],
    'parquet-wasm': [['js', path.join(here, 'www/build/parquet-wasm.js')], ['wasm', path.join(nm, 'parquet-wasm/esm/parquet_wasm_bg.wasm')]],
    'duckdb-wasm': [['js', path.join(here, 'www/build/duckdb.js')], ['js', path.join(nm, '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js')], ['wasm', path.join(nm, '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm')]],
  }
  const out = {}
  for (const [c, fs] of Object.entries(files)) {
    const t = { js: { raw: 0, gzip: 0, brotli: 0 }, wasm: { raw: 0, gzip: 0, brotli: 0 }, files: fs.map(([, f]) => path.relative(root, f)) }
    for (const [kind, f] of fs) {
      const st = statSync(f)
      const key = `${f}|${st.size}|${st.mtimeMs}`
      if (cache[key]) {
        for (const k of ['raw', 'gzip', 'brotli']) t[kind][k] += cache[key][k]
        continue
      }
      let b = readFileSync(f)
      if (kind === 'js') b = Buffer.from(transformSync(b.toString(), { minify: true, format: 'esm', target: 'es2022', logLevel: 'silent' }).code)
      const z = { raw: b.length, gzip: zlib.gzipSync(b, { level: 9 }).length, brotli: zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length }
      cache[key] = z
      for (const k of ['raw', 'gzip', 'brotli']) t[kind][k] += z[k]
    }
    out[c] = t
  }
  mkdirSync(path.dirname(cacheFile), { recursive: true })
  writeFileSync(cacheFile, JSON.stringify(cache))
  return out
}

async function main() {
  const t0 = Date.now()
  const started = new Date()
  const load0 = loadavg()
  const files = (COLD_ONLY ? [COLD.layout] : LAYOUTS).map(findFile)
  const sz = sizes()
  log(`files: ${files.map((f) => `${f.name} (${(f.size / 2 ** 20).toFixed(1)} MiB)`).join(', ')}`)

  const oracle = cachedOracle(path.join(here, 'out/oracle-cache.json'))
  const params = await oracle.params(findFile('sorted').path)
  log('params', JSON.stringify(params))
  const QDEF = {
    Q1: { name: 'Q1', text: `tenant_id = ${params.tenant} AND event_time in [${params.loISO}, +1h) → event_type, value`, columns: ['event_type', 'value'], ...params },
    Q2: { name: 'Q2', text: `user_id = ${params.user} → all columns`, columns: null, ...params },
    Q3: { name: 'Q3', text: 'sum(value) over the whole file', columns: ['value'] },
    Q4: { name: 'Q4', text: 'first 100 rows, all columns', columns: null, limit: 100 },
  }
  const expect = {}
  for (const f of files) {
    expect[f.layout] = {}
    for (const q of QUERIES) expect[f.layout][q] = await oracle.expect(f.path, QDEF[q])
  }
  oracle.close()
  log('oracle', JSON.stringify(expect))

  const srv = await startServer(DATA)
  const br = await startBrowser()
  const results = []
  const loads = []
  let failures = 0
  let cold, served
  try {
    for (const sc of COLD_ONLY ? [] : SCENARIOS) {
      const S = ALL_SCENARIOS[sc]
      await (await fetch(`${srv.url}__bench/config?latency=${S.latency}&mbps=${S.mbps}`)).text()
      for (const c of CONTENDERS) {
        const cp = await contenderPage(br, srv, c, BUNDLE[c], { firstURL: `${srv.url}data/${files[0].name}`, firstSize: files[0].size, workers: env.BENCH_WORKERS ? Number(env.BENCH_WORKERS) : undefined, warmup: env.BENCH_WARMUP !== '0' }, TIMEOUT_MS)
        const loadMs = cp.loadMs
        loads.push({ scenario: sc, contender: c, ms: loadMs })
        log(`${sc} ${c}: module load ${loadMs.toFixed(0)} ms`)
        for (const f of files) {
          for (const qn of QUERIES) {
            const q = QDEF[qn]
            const { reps, check } = await repeat(cp, srv, {
              reps: REPS, slowMs: SLOW_MS, timeoutMs: TIMEOUT_MS, what: `${c} ${f.layout} ${qn}`, want: expect[f.layout][qn],
              run: (page) => page.evaluate(([q, url, size]) => window.bench.run(q, url, size), [q, `${srv.url}data/${f.name}`, f.size]),
            })
            const ms = reps.map((x) => x.ms)
            const cell = {
              scenario: sc, contender: c, layout: f.layout, query: qn, n: reps.length,
              medianMs: median(ms), minMs: Math.min(...ms), maxMs: Math.max(...ms),
              bytes: median(reps.map((x) => x.bytes)), bytesMin: Math.min(...reps.map((x) => x.bytes)), bytesMax: Math.max(...reps.map((x) => x.bytes)),
              requests: median(reps.map((x) => x.requests)), roundTrips: median(reps.map((x) => x.roundTrips)),
              rows: reps[0].rows, ok: check.ok, why: check.why, engineReport: c === 'pqscan' ? pick(reps[0].engine) : undefined, reps: reps.map(({ engine, ...x }) => x),
            }
            if (!cell.ok) failures++
            results.push(cell)
            log(`${sc} ${c} ${f.layout} ${qn}: ${cell.medianMs.toFixed(0)} ms [${cell.minMs.toFixed(0)}–${cell.maxMs.toFixed(0)}] n=${cell.n} ${mib(cell.bytes)} ${cell.requests} req ${cell.roundTrips} rt ${cell.ok ? 'ok' : 'FAIL ' + cell.why}`)
          }
        }
        await cp.page.close()
      }
    }
    if (COLD_ON || COLD_ONLY) {
      const c0 = Date.now()
      const l0 = loadavg()
      cold = await coldCells({ srv, files, QDEF, queries: QUERIES, want: expect[COLD.layout], timeoutMs: TIMEOUT_MS, log })
      failures += cold.failures
      Object.assign(cold, { date: new Date(c0).toISOString(), durationS: Math.round((Date.now() - c0) / 1000), command: COMMAND,
        loadavgStart: l0.map((x) => +x.toFixed(1)), loadavgEnd: loadavg().map((x) => +x.toFixed(1)) })
    }
    served = srv.served
  } finally {
    await br.close()
    srv.stop()
  }
  const machine = machineInfo(br, load0)
  let prev
  if (COLD_ONLY) {
    // Only the cold part is new: keep the warm results of the last full run (if any).
    try { prev = JSON.parse(readFileSync(OUT_JSON, 'utf8')) } catch {}
  }
  const out = prev ? Object.assign(prev, { cold, served, failures: prev.results.filter((r) => !r.ok).length + cold.failures }) : {
    date: started.toISOString(), durationS: Math.round((Date.now() - t0) / 1000), command: COMMAND,
    knobs: { BENCH_ROWS: ROWS, BENCH_REPS: REPS, SLOW_MS, TIMEOUT_MS }, machine, params, queries: QDEF,
    files: files.map(({ layout, name, size }) => ({ layout, name, size })), expect, scenarios: Object.fromEntries(SCENARIOS.map((s) => [s, ALL_SCENARIOS[s]])),
    versions: versions(), sizes: sz, served, loads, results, cold, failures,
  }
  mkdirSync(path.dirname(OUT_JSON), { recursive: true })
  writeFileSync(OUT_JSON, JSON.stringify(out, null, 1) + '\n')
  writeMarkdown(markdown(out))
  log(`wrote ${path.relative(root, OUT_MD)} and ${path.relative(root, OUT_JSON)} in ${out.durationS} s; ${failures} failed cells`)
  if (failures) process.exit(1)
}

function pick(r) {
  if (!r) return undefined
  const { bytesFetched, requests, roundTrips, rowsReturned, rowGroupsTotal, rowGroupsAfterStats, pagesTotal, pagesAfterPageIndex } = r
  return { bytesFetched, requests, roundTrips, rowsReturned, rowGroupsTotal, rowGroupsAfterStats, pagesTotal, pagesAfterPageIndex }
}

const kb = (b) => `${(b / 1024).toFixed(0)} KiB`

function markdown(o) {
  const L = []
  const m = o.machine
  L.push('# Benchmarks: pqscan against its peers in headless Chromium', '')
  L.push(`Generated by \`${o.command}\` (e2e/bench/run.js, mk/bench-browser.mk) on ${o.date.slice(0, 16).replace('T', ' ')} UTC, ${o.durationS} s.`)
  L.push(`Machine: ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, Linux ${m.kernel}; ${m.chromium ? 'Chromium ' + m.chromium : 'Debian chromium'} (headless, playwright-core), Node ${m.node}, ${m.go}. `
    + `The box is shared with other engineers: load average ${m.loadavgStart.join(' / ')} at the start, ${m.loadavgEnd.join(' / ')} at the end, so times are indicative; bytes, requests and round trips are not affected.`)
  L.push('')
  L.push(`Knobs: BENCH_ROWS=${o.knobs.BENCH_ROWS}, BENCH_REPS=${o.knobs.BENCH_REPS} (a cell whose first run takes more than ${o.knobs.SLOW_MS / 1000} s is run once: see n).`)
  L.push(`Versions: ${Object.entries(o.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`, '')
  L.push('Queries (literals chosen from the data as bench/cmd/lowerbound does):', '')
  for (const q of Object.values(o.queries)) L.push(`- **${q.name}** ${q.text}`)
  L.push('', 'Files (internal/events, `.cache/events/`):', '')
  for (const f of o.files) L.push(`- ${f.layout}: \`${f.name}\`, ${mib(f.size)}`)
  L.push('', `Every answer was checked against DuckDB native (@duckdb/node-api) on the local file: row count and an FNV-1a checksum of the canonical rows (Q3: count and sum, relative tolerance 1e-9). Failed cells: ${o.failures}.`, '')
  L.push('## Summary: pqscan against the best peer', '')
  L.push('Per file and query: pqscan\'s median wall time, the fastest peer (of hyparquet, parquet-wasm, DuckDB-WASM) and its median, and the ratio pqscan / that peer (< 1: pqscan is faster); bytes fetched likewise (from the first scenario; bytes do not depend on the scenario beyond a few KiB). Details per contender below.', '')
  const scs = Object.keys(o.scenarios)
  L.push(`| file | query | ${scs.map((s) => `${o.scenarios[s].label}: pqscan · best peer · ratio`).join(' | ')} | bytes: pqscan · fewest of the peers · ratio |`)
  L.push(`|---|---|${scs.map(() => '---').join('|')}|---|`)
  for (const f of o.files) for (const q of Object.keys(o.queries)) {
    const row = [f.layout, q]
    let bytesCell = '–'
    for (const sc of scs) {
      const cells = o.results.filter((r) => r.scenario === sc && r.layout === f.layout && r.query === q)
      const me = cells.find((r) => r.contender === 'pqscan')
      const peers = cells.filter((r) => isPeer(r.contender) && r.ok)
      if (!me || !peers.length) { row.push('–'); continue }
      const best = peers.reduce((a, b) => (b.medianMs < a.medianMs ? b : a))
      row.push(`${fmtMs(me.medianMs)} · ${best.contender} ${fmtMs(best.medianMs)} · **${(me.medianMs / best.medianMs).toFixed(2)}×**`)
      if (sc === scs[0]) {
        const fb = peers.reduce((a, b) => (b.bytes < a.bytes ? b : a))
        bytesCell = `${mib(me.bytes)} · ${fb.contender} ${mib(fb.bytes)} · ${(me.bytes / fb.bytes).toFixed(2)}×`
      }
    }
    row.push(bytesCell)
    L.push(`| ${row.join(' | ')} |`)
  }
  L.push('')
  L.push('## Bundle sizes (JS minified with esbuild + wasm)', '')
  L.push('| contender | JS raw | JS gzip | JS brotli | wasm raw | wasm gzip | wasm brotli | total brotli |', '|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const [c, s] of Object.entries(o.sizes)) L.push(`| ${c} | ${kb(s.js.raw)} | ${kb(s.js.gzip)} | ${kb(s.js.brotli)} | ${s.wasm.raw ? kb(s.wasm.raw) : '–'} | ${s.wasm.raw ? kb(s.wasm.gzip) : '–'} | ${s.wasm.raw ? kb(s.wasm.brotli) : '–'} | ${kb(s.js.brotli + s.wasm.brotli)} |`)
  L.push('', '## Module load time (import + wasm compile/instantiate, until ready to query)', '')
  L.push(`| contender | ${Object.keys(o.scenarios).join(' | ')} |`, `|---|${Object.keys(o.scenarios).map(() => '---:').join('|')}|`)
  for (const c of [...new Set(o.loads.map((x) => x.contender))]) L.push(`| ${c} | ${Object.keys(o.scenarios).map((s) => { const x = o.loads.find((l) => l.contender === c && l.scenario === s); return x ? fmtMs(x.ms) : '–' }).join(' | ')} |`)
  L.push('', '## Cold page loads (module load + first query of a fresh page, e2e/bench/cold.js)', '', coldMarkdown(o))
  L.push('', '## Response → next request: pqscan\'s gaps (Q1, Q2; from the request log)', '', gapsMarkdown(o, GAPS_JSON === OUT_JSON ? null : readJSON(GAPS_JSON)))
  for (const [sc, S] of Object.entries(o.scenarios)) {
    L.push('', `## Scenario: ${S.label}`, '')
    L.push('Wall time from the call to the checked answer (after module load): median [min–max] over n runs. "× best peer": this median over the best other contender\'s median on the same file and query (for pqscan: the best of the three peers; for a peer: the best of the other three, pqscan included); the same for bytes. Bytes, requests and round trips from the server log (round trips: the longest chain of requests each starting after the previous one ended).', '')
    L.push('| file | query | contender | median | spread | n | × best peer | bytes | × best peer bytes | requests | round trips | check |', '|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|')
    for (const f of o.files) for (const q of Object.keys(o.queries)) {
      const cells = o.results.filter((r) => r.scenario === sc && r.layout === f.layout && r.query === q)
      for (const r of cells) {
        const others = cells.filter((x) => x.contender !== r.contender && x.ok && isPeer(x.contender))
        const peers = !isPeer(r.contender) ? others : cells.filter((x) => x.contender !== r.contender && x.ok && (isPeer(x.contender) || x.contender === 'pqscan'))
        const bt = peers.length ? Math.min(...peers.map((x) => x.medianMs)) : NaN
        const bb = peers.length ? Math.min(...peers.map((x) => x.bytes)) : NaN
        L.push(`| ${f.layout} | ${q} | ${r.contender} | ${fmtMs(r.medianMs)} | ${fmtMs(r.minMs)}–${fmtMs(r.maxMs)} | ${r.n} | ${Number.isNaN(bt) ? '–' : (r.medianMs / bt).toFixed(2) + '×'} | ${mib(r.bytes)} | ${Number.isNaN(bb) ? '–' : (r.bytes / bb).toFixed(2) + '×'} | ${r.requests} | ${S.latency === '0s' ? '–' : r.roundTrips} | ${r.ok ? `ok (${r.rows} rows)` : 'FAIL: ' + r.why} |`)
      }
    }
  }
  L.push('', notes())
  return L.join('\n') + '\n'
}

if (env.BENCH_MD_ONLY) {
  // Rewrite BENCHMARKS.md from bench/results.json (e.g. after editing NOTES.md), no run.
  writeMarkdown(markdown(JSON.parse(readFileSync(OUT_JSON, 'utf8'))))
} else {
  main().catch((e) => { console.error(e); process.exit(1) })
}

// Writes BENCHMARKS.md, keeping the sections written into it by hand that NOTES.md lacks
// (keep-md.js); an edit made in it to a section NOTES.md has stops the write (BENCH_MD_FORCE=1:
// NOTES.md's text wins), so that no hand-written text is lost.
function writeMarkdown(text) {
  let old = null
  try { old = readFileSync(OUT_MD, 'utf8') } catch {}
  const first = readFileSync(path.join(here, 'NOTES.md'), 'utf8').split('\n')[0]
  const r = keepHandWritten(old, text, first)
  if (r.conflicts.length && !env.BENCH_MD_FORCE) {
    console.error(`${path.relative(root, OUT_MD)} not written: these sections were edited there, not in e2e/bench/NOTES.md; copy the edits into NOTES.md (or BENCH_MD_FORCE=1 to drop them):\n  ${r.conflicts.join('\n  ')}`)
    process.exit(1)
  }
  if (r.kept.length) console.error(`kept from ${path.relative(root, OUT_MD)} (move them into e2e/bench/NOTES.md):\n  ${r.kept.join('\n  ')}`)
  writeFileSync(OUT_MD, r.text)
}

function readJSON(f) {
  try {
    return JSON.parse(readFileSync(f, 'utf8'))
  } catch {
    return null
  }
}

// The hand-written part of BENCHMARKS.md (method, how each peer expresses the queries, DuckDB's
// extension story), appended to the generated tables.
// The marker <!-- dataset-browser --> in it becomes the tables of the browser dataset workload
// (dataset.js) from bench/results-dataset.json.
function notes() {
  let t = ''
  try { t = readFileSync(path.join(here, 'NOTES.md'), 'utf8').replace(/\n+$/, '') } catch {}
  return t.replace('<!-- dataset-browser -->', () => {
    try {
      return `${GEN_START}\n${datasetMarkdown(JSON.parse(readFileSync(OUT_DS_JSON, 'utf8'))).replace(/\n+$/, '')}\n${GEN_END}`
    } catch (e) {
      return `(no browser dataset results: run \`make bench-dataset-browser\`; ${e.message})`
    }
  })
}
