// A per-round timeline of one query in Chromium: pqscan's bridge in its
// Worker, warm, with performance marks around every module call, fetch (send → headers,
// → body read), limiter wait, push, and every Worker ↔ page message, on one clock
// (timeOrigin + now of each thread), beside the bench server's request log. The marks come
// from a diagnostic build (e2e/bench/trace/: jsbridge's own sources with prototype hooks,
// bundled into e2e/bench/out/trace/ and served at /pqscan/dist/), so jsbridge ships no hooks.
//
//   node e2e/bench/timeline.js      # needs make js, bin/bench-server, e2e/bench/www/build
//
// Knobs: BENCH_DIR (.cache/events), BENCH_ROWS (4000000), TL_LAYOUT (sorted), TL_QUERY (Q1),
// TL_LATENCY (0s), TL_WARMUP (5), TL_REPS (5: the timeline printed is the median run's),
// TL_JSON (write every run's marks and log there).
import { readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { startServer, startBrowser, getLog, gaps, median } from './lib.js'
import { openOracle } from './oracle.js'
import { tree, threadCPU, diffCPU } from './cpu.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../..')
const env = process.env
const DATA = path.resolve(root, env.BENCH_DIR || '.cache/events')
const ROWS = Number(env.BENCH_ROWS || 4000000)
const LAYOUT = env.TL_LAYOUT || 'sorted'
const QUERY = env.TL_QUERY || 'Q1'
const WARMUP = Number(env.TL_WARMUP ?? 5)
const REPS = Number(env.TL_REPS ?? 5)
const out = path.join(here, 'out/trace')

const name = readdirSync(DATA).find((n) => new RegExp(`^events-v1-${LAYOUT}-${ROWS}-rg\\d+\\.parquet$`).test(n))
const file = path.join(DATA, name)
const size = statSync(file).size

mkdirSync(out, { recursive: true })
await build({
  entryPoints: { pqscan: path.join(here, 'trace/index-entry.js'), worker: path.join(here, 'trace/worker-entry.js') },
  bundle: true, format: 'esm', platform: 'browser', target: 'es2022', outdir: out, external: ['node:*'], logLevel: 'warning', minify: true,
})

const oracle = await openOracle()
const params = await oracle.params(path.join(DATA, readdirSync(DATA).find((n) => new RegExp(`^events-v1-sorted-${ROWS}-rg\\d+\\.parquet$`).test(n))))
oracle.close()
const QDEF = {
  Q1: { name: 'Q1', columns: ['event_type', 'value'], ...params },
  Q2: { name: 'Q2', columns: null, ...params },
  Q3: { name: 'Q3', columns: ['value'], ...params },
  Q4: { name: 'Q4', columns: null, limit: 100, ...params },
}
const q = QDEF[QUERY]

const srv = await startServer(DATA, [], { js: out })
await (await fetch(`${srv.url}__bench/config?latency=${env.TL_LATENCY || '0s'}&mbps=0`)).text()
const br = await startBrowser()
const runs = []
try {
  const page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
  await page.goto(`${srv.url}index.html?c=pqscan`)
  await page.waitForFunction(() => window.benchReady === true)
  const url = `${srv.url}data/${name}`
  await page.evaluate(([s, o]) => ((globalThis.__tlScan = s), (globalThis.__tlOpen = o)), [JSON.parse(env.TL_SCAN || '{}'), JSON.parse(env.TL_OPEN || '{}')])
  await page.evaluate((ctx) => window.bench.load(ctx), { firstURL: url, firstSize: size })
  const pids = () => [...tree(process.pid).filter((x) => x !== process.pid)]
  for (let i = 0; i < WARMUP + REPS; i++) {
    await getLog(srv)
    const ps = pids()
    const c0 = threadCPU(ps)
    const r = await page.evaluate(async ([q, url, size]) => {
      const m = await import('/pqscan/dist/pqscan.js')
      await m.traceMarks() // drop the marks of earlier runs
      const t0 = performance.timeOrigin + performance.now()
      const r = await window.bench.run(q, url, size)
      const t1 = performance.timeOrigin + performance.now()
      return { t0, t1, ms: r.ms, rows: r.rows, error: r.error, marks: await m.traceMarks() }
    }, [q, url, size])
    const cpu = diffCPU(c0, threadCPU(ps))
    const log = await getLog(srv)
    if (r.error) throw new Error(r.error)
    if (i >= WARMUP) runs.push({ ...r, log, gaps: gaps(log), cpu })
  }
} finally {
  await br.close()
  srv.stop()
}
if (env.TL_JSON) writeFileSync(env.TL_JSON, JSON.stringify(runs, null, 1))

const msMed = median(runs.map((r) => r.ms))
const r = runs.find((x) => x.ms === msMed) ?? runs[Math.floor(runs.length / 2)]
console.log(`${LAYOUT} ${QUERY}, latency ${env.TL_LATENCY || '0s'}: runs ${runs.map((x) => x.ms.toFixed(1)).join(' · ')} ms (median ${msMed.toFixed(1)}); the median run's timeline:`)
console.log(`server gaps: ${r.gaps.join(' · ')} ms; requests ${median(runs.map((x) => x.log.length))}, bytes ${median(runs.map((x) => x.log.reduce((n, e) => n + e.bytes, 0)))}; scan options ${env.TL_SCAN || '{}'}, open options ${env.TL_OPEN || '{}'}`)
// The server log's times are since the server started: align its first request's start with
// the first fetch's dispatch (the send span's start) of the page's clock.
const firstSend = r.marks.find((m) => m.ev.startsWith('W send'))
const off = firstSend ? firstSend.t0 - Math.min(...r.log.map((e) => e.start)) : 0
const rows = [...r.marks.map((m) => ({ t: m.t0 ?? m.t, end: m.t0 != null ? m.t : null, ev: m.ev, d: m.d })),
  ...r.log.map((e) => ({ t: e.start + off, end: e.end + off, ev: 'S request', d: `${e.range ?? ''} ${e.bytes} B` }))].sort((a, b) => a.t - b.t)
const rel = (t) => (t - r.t0).toFixed(2).padStart(8)
for (const x of rows) console.log(`${rel(x.t)} ${x.end != null ? rel(x.end) : '        '} ${x.end != null ? (x.end - x.t).toFixed(2).padStart(6) : '      '}  ${x.ev}${x.d ? ' ' + x.d : ''}`)
console.log(`${rel(r.t1)}                   run end (checked answer)`)

// Segments of every run, in order (the median of each over the runs): what the wall time of
// one query consists of, from the marks alone.
function segments(r) {
  const M = r.marks
  const first = (ev, from = -Infinity) => M.find((m) => m.ev.startsWith(ev) && (m.t0 ?? m.t) >= from)
  const out = []
  const add = (label, a, b) => a != null && b != null && out.push([label, b - a])
  const rounds = M.filter((m) => m.ev === 'W fetchRanges')
  const sends = M.filter((m) => m.ev.startsWith('W send'))
  const bodies = M.filter((m) => m.ev.startsWith('W tryRange'))
  const nexts = M.filter((m) => m.ev === 'W call next')
  const pOpen = first('P post open'), wOpen = first('W recv open'), opened = first('W post opened'), pOpened = first('P recv opened'), pScan = first('P post scan'), wScan = first('W recv scan')
  add('page → Worker: open message', pOpen?.t, wOpen?.t)
  let prevEnd = wOpen?.t
  let label = 'open: pq_open + pq_next → tail request'
  for (const [i, f] of rounds.entries()) {
    const ss = sends.filter((s) => s.t0 >= f.t0 && s.t0 <= f.t)
    const bs = bodies.filter((s) => s.t0 >= f.t0 && s.t0 <= f.t)
    add(label, prevEnd, ss[0]?.t0)
    add(`round ${i + 1} (${ss.length} req): dispatch spread (first → last fetch())`, ss[0]?.t0, ss.at(-1)?.t0)
    add(`round ${i + 1}: first fetch() → first headers`, ss[0]?.t0, Math.min(...ss.map((s) => s.t)))
    add(`round ${i + 1}: first fetch() → last body read`, ss[0]?.t0, Math.max(...bs.map((s) => s.t)))
    add(`round ${i + 1}: last body read → round end (pushes)`, Math.max(...bs.map((s) => s.t)), f.t)
    const nx = nexts.filter((n) => n.t0 >= f.t)
    add(`round ${i + 1}: pq_next after it`, nx[0]?.t0, nx[0]?.t)
    prevEnd = f.t
    if (i === 0 && opened) {
      add('open: round end → opened posted (pq_metadata, schema)', f.t, opened.t)
      add('Worker → page: opened message', opened.t, pOpened?.t)
      add('page: opened → scan posted (schema decode, Scan)', pOpened?.t, pScan?.t)
      add('page → Worker: scan message', pScan?.t, wScan?.t)
      prevEnd = wScan?.t
      label = 'scan: pq_open + pq_next → first request'
    } else label = `round ${i + 1} end → round ${i + 2}'s first fetch()`
  }
  const batch = first('W post batch', rounds.at(-1)?.t)
  add('last round end → batch posted (decode: pq_next, ipc, report)', rounds.at(-1)?.t, batch?.t)
  add('batch posted → page decoded it', batch?.t, first('P batch decoded')?.t)
  add('→ run end (checked answer)', first('P batch decoded')?.t, r.t1)
  add('TOTAL', r.t0, r.t1)
  return out
}
const segs = runs.map(segments)
console.log('\nsegments (median [min–max] over the runs, ms):')
for (const [i, [label]] of segs[0].entries()) {
  const xs = segs.map((s) => s[i]?.[1]).filter((x) => x != null)
  console.log(`${median(xs).toFixed(1).padStart(7)} [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]  ${label}`)
}
const chunks = runs.map((r) => r.marks.filter((m) => m.ev === 'W body chunk').length)
const fsync = runs.map((r) => r.marks.filter((m) => m.ev === 'W fetch() call (sync)').map((m) => m.t - m.t0))
console.log(`body chunks read per run: ${chunks.join(' · ')}; fetch() sync part per call (median run): ${fsync[runs.indexOf(r)].map((x) => x.toFixed(1)).join(' · ')} ms`)

// CPU per thread name (median over the runs; the trace hooks' own cost included).
const names = [...new Set(runs.flatMap((x) => Object.keys(x.cpu)))]
const cpuMed = names.map((n) => [n, median(runs.map((x) => x.cpu[n] ?? 0))]).filter(([, v]) => v >= 0.5).sort((a, b) => b[1] - a[1])
const totals = runs.map((x) => Object.values(x.cpu).reduce((a, b) => a + b, 0))
console.log(`\nCPU per query (all threads of Chromium and the bench server): median ${median(totals).toFixed(1)} ms [${Math.min(...totals).toFixed(1)}–${Math.max(...totals).toFixed(1)}]; by thread: ${cpuMed.map(([n, v]) => `${n} ${v.toFixed(1)}`).join(', ')}`)
