// Cold page loads for `make bench`: what a visitor's first query costs,
// module load included, beside the warm numbers of run.js (engine loaded once, many queries).
//
// Each repetition of a cell starts Chromium with a fresh profile (empty HTTP and code caches)
// and the static files cacheable (the bench server's /__bench/config?cache=1, brotli-served as
// a CDN would), then loads the page twice in that profile:
//   - cold: everything from the network; the page imports the contender, loads it and runs the
//     one query at once (src/page.js coldRun);
//   - warm-cache: a second page load in the same profile, where the bundles and modules come
//     from Chromium's HTTP cache and the compiled wasm from its code cache (V8 writes it a while
//     after compilation, hence COLD_DWELL_MS on the first page, as a visitor stays on a page);
//   - returning (pqscan only: the peers keep no metadata): a third page load, as warm-cache
//     plus the metadata cache (IndexedDB) the first page load filled: the footer and page
//     index of the file come from it, so the query's first request is a data request.
// The first load stores the file's metadata; warm-cache and the warm cells of run.js read
// without it, as before it existed.
// pqscan runs twice: pqscan-early calls init() at page start and queries once the engine is
// ready; pqscan-lazy lets the first openParquet start the engine.
import { startBrowser, getLog, getStaticLog, roundTrips, gaps, verdict, withTimeout, median, mib, fmtMs, SCENARIOS } from './lib.js'

const env = process.env
export const COLD = {
  scenarios: (env.BENCH_COLD_SCENARIOS || 'none,30ms').split(',').filter(Boolean),
  contenders: (env.BENCH_COLD_CONTENDERS || 'pqscan-early,pqscan-lazy,hyparquet,parquet-wasm,duckdb-wasm').split(',').filter(Boolean),
  layout: env.BENCH_COLD_LAYOUT || 'sorted',
  reps: Number(env.BENCH_COLD_REPS || 3),
  dwellMs: Number(env.BENCH_COLD_DWELL_MS || 2500),
  // BENCH_COLD_TRACE=1: record Chromium's wasm trace events of each page load (CDP Tracing;
  // every event whose name has "wasm", counted by name into the repetition's wasmTrace), e.g.
  // wasm.CompileLazy per function compiled at its first call, which a module deserialized from
  // V8's code cache would not need.
  trace: env.BENCH_COLD_TRACE === '1',
  // BENCH_COLD_GAP_MS (a diagnostic, 0): each page waits that long between its engine being
  // ready and its query (page time includes it; query time does not), as an app that starts
  // the engine at load and queries later; V8 writes its wasm code cache only after 2 s
  // without new optimized code (BENCHMARKS.md "V8's code cache, continued").
  gapMs: Number(env.BENCH_COLD_GAP_MS || 0),
  // BENCH_WARMUP=0 (a diagnostic): pqscan's engine started early does not warm up in idle time.
  warmup: env.BENCH_WARMUP !== '0',
}
const VARIANT = {
  'pqscan-early': { bundle: 'pqscan', start: 'early' },
  'pqscan-lazy': { bundle: 'pqscan', start: 'lazy' },
  // The full module alone (wasmURL), as before the lean module: the before/after of its cells.
  'pqscan-full-early': { bundle: 'pqscan', start: 'early', module: 'full' },
  'pqscan-full-lazy': { bundle: 'pqscan', start: 'lazy', module: 'full' },
  // The engine in the page instead of its Worker (not in the default contenders): a check of
  // whether V8's wasm code cache behaves differently in a window than in a Worker.
  'pqscan-page': { bundle: 'pqscan', start: 'early', worker: false },
  hyparquet: { bundle: 'hyparquet' },
  'parquet-wasm': { bundle: 'parquet-wasm' },
  'duckdb-wasm': { bundle: 'duckdb' },
}
const LOADS = ['cold', 'warm-cache', 'returning']
// Whether a load of contender c uses the metadata cache (null: the load is not run).
const metaLoad = (c, kind) => (kind === 'warm-cache' ? false : kind === 'cold' ? isPq(c) : isPq(c) ? true : null)

// One page load of variant v running query q on file f; the server logs are read (and cleared)
// before and after it.
async function pageLoad(br, srv, v, q, f, timeoutMs, metadataCache) {
  await getLog(srv)
  await getStaticLog(srv)
  const page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error(`pageerror (${v.bundle}):`, e.message))
  const url = `${srv.url}data/${f.name}`
  await page.addInitScript((c) => { window.__benchCold = c }, { q, url, size: f.size, loadCtx: { start: v.start, worker: v.worker, module: v.module, metadataCache, gapMs: COLD.gapMs, warmup: COLD.warmup } })
  const tracing = COLD.trace ? await startTrace(br, page) : null
  let r
  try {
    await page.goto(`${srv.url}index.html?c=${v.bundle}`)
    r = await withTimeout(page.evaluate(() => window.benchCold), timeoutMs, `${v.bundle} cold ${q.name}`)
  } catch (e) {
    r = { error: String(e.message), totalMs: timeoutMs }
  }
  const data = await getLog(srv)
  const statics = await getStaticLog(srv)
  return { page, r, data, statics, tracing }
}

// Starts a CDP trace of the v8.wasm category; stop() resolves to {event name: count}, plus
// `at`: per event name (CompileLazy aside, which is counted only), the times of its events in ms
// after the trace's first wasm event, at most 40 each: when V8 compiled top-tier code, finished
// a chunk for caching, serialized the module or hit its cache.
async function startTrace(br, page) {
  const s = await br.ctx.newCDPSession(page)
  const counts = {}
  const at = {}
  let t0 = null
  s.on('Tracing.dataCollected', ({ value }) => {
    for (const e of value) {
      if (!/wasm/i.test(String(e.name))) continue
      counts[e.name] = (counts[e.name] ?? 0) + 1
      if (e.name === 'wasm.CompileLazy' || !(e.ts > 0)) continue
      t0 ??= e.ts
      const list = (at[e.name] ??= [])
      if (list.length >= 40) continue
      const ms = Math.round((e.ts - t0) / 100) / 10
      // Blink's code-cache events carry sizes (producedCacheSize, consumedCacheSize): kept.
      const size = /^v8\.wasm\./.test(e.name) && e.args ? Object.entries(e.args.data ?? e.args).filter(([k]) => /size/i.test(k)) : []
      list.push(size.length ? [ms, Object.fromEntries(size)] : ms)
    }
  })
  await s.send('Tracing.start', { traceConfig: { includedCategories: ['v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'disabled-by-default-devtools.timeline'] } })
  return {
    async stop() {
      const done = new Promise((resolve) => s.once('Tracing.tracingComplete', resolve))
      await s.send('Tracing.end')
      await done
      return { ...counts, at }
    },
  }
}

// pqscan's start-up marks (jsbridge marks.js) as ms from the page's navigation start, sorted:
// [[name, ms]], the Worker's names prefixed "w:"; undefined for the peers.
function startSteps(r) {
  if (!r.marks || r.timeOrigin == null) return undefined
  const rel = (pre) => (x) => [pre + x.name, Math.round((x.t - r.timeOrigin) * 10) / 10]
  return [...r.marks.page.map(rel('')), ...r.marks.worker.map(rel('w:'))].sort((a, b) => a[1] - b[1])
}

/** Runs the cold cells; returns {meta, cells}. want[q]: the oracle's answer on COLD.layout. */
export async function coldCells({ srv, files, QDEF, queries, want, timeoutMs, log }) {
  const f = files.find((x) => x.layout === COLD.layout)
  if (!f) throw new Error(`cold cells: layout ${COLD.layout} is not among BENCH_LAYOUTS`)
  const cells = []
  let failures = 0
  for (const sc of COLD.scenarios) {
    const S = SCENARIOS[sc]
    await (await fetch(`${srv.url}__bench/config?latency=${S.latency}&mbps=${S.mbps}&cache=1`)).text()
    for (const c of COLD.contenders) {
      const v = VARIANT[c]
      if (!v) throw new Error(`cold cells: unknown contender ${c}`)
      for (const qn of queries) {
        const reps = { cold: [], 'warm-cache': [], returning: [] }
        let check = { ok: true }
        for (let i = 0; i < COLD.reps; i++) {
          const br = await startBrowser()
          try {
            for (const kind of LOADS) {
              if (metaLoad(c, kind) === null) continue
              const { page, r, data, statics, tracing } = await pageLoad(br, srv, v, QDEF[qn], f, timeoutMs, metaLoad(c, kind))
              const ok = verdict(r, want[qn])
              if (!ok.ok) check = ok
              reps[kind].push({
                totalMs: r.totalMs, loadMs: r.loadMs, importMs: r.importMs, queryMs: r.queryMs, startMs: r.startMs, rows: r.rows, ok: ok.ok,
                marks: startSteps(r),
                bytes: data.reduce((s, e) => s + e.bytes, 0), requests: data.length, roundTrips: roundTrips(data), gaps: gaps(data),
                staticBytes: statics.reduce((s, e) => s + e.bytes, 0), staticRequests: statics.length,
                staticBrotli: statics.filter((e) => e.encoding === 'br').length,
                statics: statics.map(({ path, status, encoding, bytes }) => ({ path, status, encoding, bytes })),
                ranges: data.map((e) => e.range).filter(Boolean), fileSize: f.size,
                metadataFromCache: r.engine?.metadataFromCache,
              })
              const rep = reps[kind].at(-1)
              if (kind === 'cold' && COLD.dwellMs > 0) await page.waitForTimeout(COLD.dwellMs)
              if (tracing) rep.wasmTrace = await tracing.stop() // after the dwell: a code cache written late counts
              await page.close()
            }
          } finally {
            await br.close()
          }
          if (!check.ok) break
        }
        for (const kind of LOADS) {
          const rs = reps[kind]
          if (rs.length === 0) continue
          const med = (k) => median(rs.map((x) => x[k]).filter((x) => x !== undefined))
          const cell = {
            scenario: sc, contender: c, layout: f.layout, query: qn, load: kind, n: rs.length,
            totalMs: med('totalMs'), loadMs: med('loadMs'), queryMs: med('queryMs'), totalMinMs: Math.min(...rs.map((x) => x.totalMs)), totalMaxMs: Math.max(...rs.map((x) => x.totalMs)),
            bytes: med('bytes'), requests: med('requests'), roundTrips: med('roundTrips'), staticBytes: med('staticBytes'), staticRequests: med('staticRequests'),
            rows: rs[0]?.rows, ok: check.ok, why: check.why, reps: rs,
          }
          if (!cell.ok) failures++
          cells.push(cell)
          log(`cold ${sc} ${c} ${f.layout} ${qn} ${kind}: page ${fmtMs(cell.totalMs)} [${fmtMs(cell.totalMinMs)}–${fmtMs(cell.totalMaxMs)}] load ${fmtMs(cell.loadMs)} query ${fmtMs(cell.queryMs)} n=${cell.n} statics ${mib(cell.staticBytes)} in ${cell.staticRequests} req ${cell.ok ? 'ok' : 'FAIL ' + cell.why}`)
        }
      }
    }
  }
  return { meta: { ...COLD, file: f.name }, cells, failures }
}

const PEERS = ['hyparquet', 'parquet-wasm', 'duckdb-wasm']
const isPq = (c) => c.startsWith('pqscan')
// The summary's pqscan: the package's defaults (the lean module), not the full-module-alone
// contenders kept for the before/after.
const isPqDefault = (c) => isPq(c) && !c.includes('-full-')

/** The cold sections of BENCHMARKS.md from results.json's cold ({meta, cells}) and served sizes. */
export function coldMarkdown(o) {
  const cold = o.cold
  if (!cold) return '(no cold page-load results: run `make bench` or `make bench-cold`)'
  const L = []
  const m = cold.meta
  L.push(`Generated by \`${cold.command}\` on ${cold.date.slice(0, 16).replace('T', ' ')} UTC, ${cold.durationS} s; load average ${cold.loadavgStart.join(' / ')} at the start, ${cold.loadavgEnd.join(' / ')} at the end. File: \`${m.file}\` (${m.layout}); ${m.reps} repetitions per cell, each in a fresh Chromium profile; the first page waits ${m.dwellMs / 1000} s after its answer before it closes (V8 writes its wasm code cache a while after compiling). Failed cells: ${cold.failures}.`, '')
  L.push('**page** = from the navigation\'s start to the checked answer (HTML, page script, the contender\'s bundle and module, the query); **load** = import of the bundle + module fetch/compile/instantiate until it can query (pqscan-lazy: import only; its start is inside the query); **query** = the first query after that. Medians over the repetitions; [min–max] of page. **statics** = bytes of pages, bundles and modules the server sent for that page load (brotli; 0 when all came from Chromium\'s cache).', '')
  const scs = [...new Set(cold.cells.map((x) => x.scenario))]
  const qs = [...new Set(cold.cells.map((x) => x.query))]
  L.push('### Summary: pqscan\'s best start against the fastest peer, whole page', '')
  const PEER_LOADS = ['cold', 'warm-cache']
  L.push(`| query | ${scs.flatMap((s) => PEER_LOADS.map((k) => `${SCENARIOS[s].label}, ${k}: pqscan · best peer · ratio`)).join(' | ')} |`)
  L.push(`|---|${scs.flatMap(() => PEER_LOADS.map(() => '---')).join('|')}|`)
  for (const q of qs) {
    const row = [q]
    for (const s of scs) for (const k of PEER_LOADS) {
      const cs = cold.cells.filter((x) => x.scenario === s && x.query === q && x.load === k && x.ok)
      const pq = cs.filter((x) => isPqDefault(x.contender))
      const peers = cs.filter((x) => PEERS.includes(x.contender))
      if (!pq.length || !peers.length) { row.push('–'); continue }
      const me = pq.reduce((a, b) => (b.totalMs < a.totalMs ? b : a))
      const best = peers.reduce((a, b) => (b.totalMs < a.totalMs ? b : a))
      row.push(`${me.contender.replace('pqscan-', '')} ${fmtMs(me.totalMs)} · ${best.contender} ${fmtMs(best.totalMs)} · **${(me.totalMs / best.totalMs).toFixed(2)}×**`)
    }
    L.push(`| ${row.join(' | ')} |`)
  }
  for (const s of scs) {
    L.push('', `### Cold page loads: ${SCENARIOS[s].label}`, '')
    L.push('| query | contender | cold: page | load | query | statics | warm-cache: page | load | query | statics | data bytes | round trips | check |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|')
    for (const q of qs) {
      for (const c of [...new Set(cold.cells.map((x) => x.contender))]) {
        const a = cold.cells.find((x) => x.scenario === s && x.query === q && x.contender === c && x.load === 'cold')
        const b = cold.cells.find((x) => x.scenario === s && x.query === q && x.contender === c && x.load === 'warm-cache')
        if (!a || !b) continue
        const t = (x) => `${fmtMs(x.totalMs)} [${fmtMs(x.totalMinMs)}–${fmtMs(x.totalMaxMs)}] | ${fmtMs(x.loadMs)} | ${fmtMs(x.queryMs)} | ${mib(x.staticBytes)}`
        L.push(`| ${q} | ${c} | ${t(a)} | ${t(b)} | ${mib(a.bytes)} | ${SCENARIOS[s].latency === '0s' ? '–' : a.roundTrips} | ${a.ok && b.ok ? `ok (${a.rows} rows, n=${a.n})` : 'FAIL: ' + (a.why || b.why)} |`)
      }
    }
  }
  const ret = returningMarkdown(cold)
  if (ret) L.push('', ret)
  const steps = startStepsMarkdown(cold)
  if (steps) L.push('', steps)
  if (o.served) {
    L.push('', '### What the server sends for each static file (brotli q11, Content-Encoding: br)', '')
    L.push('| URL | file | shipped (pqscan\'s bridge minified) | served |', '|---|---:|---:|---:|')
    for (const [u, z] of Object.entries(o.served)) L.push(`| \`${u}\` | ${mib(z.raw)} | ${mib(z.minified)} | ${mib(z.served)} |`)
  }
  return L.join('\n')
}

/**
 * The returning visit (a third page of the profile, with the metadata the first one stored)
 * beside the first visit and the warm-cache load, per scenario and query; the peers keep no
 * metadata across page loads, so their returning visit is their warm-cache load. Null when no
 * cell has one.
 */
function returningMarkdown(cold) {
  const rc = cold.cells.filter((x) => x.load === 'returning')
  if (!rc.length) return null
  const L = ['### Returning visit: metadata kept across page loads (IndexedDB)', '']
  L.push('**first visit** = the cold page load (nothing cached; it stores the file\'s footer and page index); **warm-cache** = a second page load of the same profile without the metadata cache; **returning** = a third with it: the query\'s first request is a data request (a peer keeps no metadata: its returning visit is its warm-cache load, in italics). Page times as above (medians; the best repetition after the slash); requests and round trips of the data file; **tail** = requests of the last 64 KiB (footer, page index).', '')
  L.push('| scenario | query | contender | first visit: page | requests | round trips | tail | warm-cache: page | returning: page | requests | round trips | tail | returning / first (median, best) | returning / warm-cache | check |', '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|')
  const find = (r, contender, load) => cold.cells.find((x) => x.scenario === r.scenario && x.query === r.query && x.contender === contender && x.load === load)
  const tail = (x) => median(x.reps.map((p) => (p.ranges ?? []).filter((h) => isTail(h, p)).length))
  const page = (x) => `${fmtMs(x.totalMs)} / ${fmtMs(x.totalMinMs)}`
  for (const r of rc) {
    const peers = COLD.contenders.filter((c) => !isPq(c)).map((c) => [c, find(r, c, 'warm-cache')]).filter(([, w]) => w)
    for (const [c, ret] of [[r.contender, r], ...peers]) {
      const a = find(r, c, 'cold')
      const w = find(r, c, 'warm-cache')
      if (!a || !w) continue
      const it = ret === w ? (t) => `*${t}*` : (t) => t
      L.push(`| ${SCENARIOS[r.scenario].label} | ${r.query} | ${c} | ${page(a)} | ${a.requests} | ${a.roundTrips} | ${tail(a)} | ${page(w)} | ${it(page(ret))} | ${it(ret.requests)} | ${it(ret.roundTrips)} | ${it(tail(ret))} | **${(ret.totalMs / a.totalMs).toFixed(2)}×**, ${(ret.totalMinMs / a.totalMinMs).toFixed(2)}× | ${(ret.totalMs / w.totalMs).toFixed(2)}× | ${a.ok && ret.ok ? 'ok' : 'FAIL: ' + (a.why || ret.why)} |`)
    }
  }
  return L.join('\n')
}

// Whether a logged range header reads the file's tail (its last 64 KiB, or a suffix).
function isTail(h, rep) {
  const m = /bytes=(\d*)-(\d*)/.exec(h)
  if (!m) return false
  if (m[1] === '') return true
  return rep.fileSize > 0 ? Number(m[1]) >= rep.fileSize - 65536 : false
}

// Columns of the start-up table: [heading, mark names] (the first name present in a repetition
// counts: the page's mark where the page compiles the module, else the Worker's `w:` one, as
// in results of a bridge that compiles it in the Worker).
const STEP_COLS = [
  ['engine start called', ['worker.new', 'w:open.start']],
  ['Worker evaluated', ['w:worker.evaluated']],
  ['first tail request', ['w:http.first']],
  ['module compiled', ['module.compiled', 'w:module.compiled']],
  ['apache-arrow imported', ['arrow.imported']],
  ['instantiated', ['w:instantiated']],
  ['Go runtime started', ['w:go.initialized']],
  ['footer decoded', ['w:open.metadata']],
  ['scan started', ['w:scan.start']],
  ['first batch', ['w:scan.batch']],
  ['scan done', ['w:scan.done']],
]

// The wasm code cache in traced repetitions: "hit h/n, written w" (V8's trace events: the
// module deserialized from the cache; the module serialized into it, median per page load).
function codeCache(rs) {
  const tr = rs.filter((r) => r.wasmTrace)
  if (!tr.length) return '–'
  const hits = tr.filter((r) => r.wasmTrace['v8.wasm.moduleCacheHit'] > 0).length
  return `hit ${hits}/${tr.length}, written ${median(tr.map((r) => r.wasmTrace['v8.wasm.cachedModule'] ?? 0))}`
}

/**
 * pqscan's start-up, step by step: per cold cell, the medians of when each step ended (ms from
 * the navigation's start, jsbridge marks.js), the compile (fetch → compiled) and the Go
 * runtime's start (_initialize) as durations. Null when no cell has marks.
 */
export function startStepsMarkdown(cold) {
  const cells = cold.cells.filter((c) => isPq(c.contender) && c.reps.some((r) => r.marks?.length))
  if (!cells.length) return null
  const at = (r, names) => {
    for (const n of names) {
      const m = r.marks?.find((x) => x[0] === n)
      if (m) return m[1]
    }
    return undefined
  }
  const med = (rs, f) => {
    const v = rs.map(f).filter((x) => x !== undefined && !Number.isNaN(x))
    return v.length ? fmtMs(median(v)) : '–'
  }
  const L = ['### pqscan\'s start, step by step (jsbridge start-up marks; ms from the navigation\'s start, medians)', '']
  L.push('The page\'s and the Worker\'s marks (`jsbridge/src/marks.js`, epoch ms) put on the page\'s clock; **compile** = module fetch → compiled, **Go start** = `_initialize` (the Go runtime and every package\'s init), both durations; **code cache** (with `BENCH_COLD_TRACE=1`, else –) = in how many repetitions the module came from V8\'s wasm code cache (`v8.wasm.moduleCacheHit`) and how many times the page wrote it (`v8.wasm.cachedModule`, median).', '')
  L.push(`| scenario | contender | query | load | ${STEP_COLS.map((c) => c[0]).join(' | ')} | compile | Go start | code cache | page |`)
  L.push(`|---|---|---|---|${STEP_COLS.map(() => '---:').join('|')}|---:|---:|---|---:|`)
  for (const c of cells) {
    const rs = c.reps.filter((r) => r.marks?.length)
    const cols = STEP_COLS.map(([, names]) => med(rs, (r) => at(r, names)))
    const compile = med(rs, (r) => at(r, ['module.compiled', 'w:module.compiled']) - at(r, ['module.fetch', 'w:module.fetch']))
    const goStart = med(rs, (r) => at(r, ['w:go.initialized']) - at(r, ['w:instantiated']))
    L.push(`| ${SCENARIOS[c.scenario].label} | ${c.contender} | ${c.query} | ${c.load} | ${cols.join(' | ')} | ${compile} | ${goStart} | ${codeCache(rs)} | ${fmtMs(c.totalMs)} |`)
  }
  return L.join('\n')
}
