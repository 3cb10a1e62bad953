// The response → next-request gap of pqscan's scans, step by step, in Node:
// the bridge in the calling thread ({worker: false}) against the bench server on 127.0.0.1,
// Q1 and Q2 of the browser benchmark on BENCH_DIR's sorted file. For every round of requests
// it prints the gap the server saw (its request log: the previous round's last response end
// to this round's first request start, lib.js gaps) and what the bridge did in between: the
// ms spent in each module call (pq_next, pq_push_owned, …) and the rest (JS, awaits), and the
// process's CPU time inside those calls (process.cpuUsage: steadier than wall time on a
// shared machine).
//
//   node e2e/bench/steps.js                  # warm: one engine, STEPS_REPS (5) runs per query
//   STEPS_COLD=1 node e2e/bench/steps.js     # a fresh engine (compile + instance) per run
//   STEPS_WASM=bin/pqscan-names.wasm STEPS_PROF=e2e/bench/out/q.cpuprofile node e2e/bench/steps.js
//       # a V8 CPU profile of the measured runs only (after STEPS_WARMUP queries), with a module
//       # that keeps its name section (bin/pqscan-names.wasm, from `make size`)
//
// Knobs: BENCH_DIR (.cache/events), BENCH_ROWS (4000000), STEPS_LAYOUT (sorted; or small-rg,
// unsorted: which events file), STEPS_LATENCY (30ms: added by the
// server before every response, so that each round is one engine step), STEPS_QUERIES (Q1,Q2), STEPS_REPS
// (5), STEPS_WARMUP (2 queries of each kind before the measured runs, warm only), STEPS_WASM
// (jsbridge/pqscan.wasm), STEPS_JSON (a file to write the rounds to), STEPS_CALLS=1 (list
// every module call of 1 ms or more, with the step kind pq_next returned), STEPS_TL=1 (print each
// run's timeline: fetches, deliveries, module calls over 1 ms of CPU).
import { readdirSync, statSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startServer, getLog, gaps, median } from './lib.js'
import { openOracle } from './oracle.js'
import { createEngine } from '../../jsbridge/src/index.js'
import { Instance } from '../../jsbridge/src/module.js'
import { HttpSource } from '../../jsbridge/src/http.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../..')
const env = process.env
const DATA = path.resolve(root, env.BENCH_DIR || '.cache/events')
const ROWS = Number(env.BENCH_ROWS || 4000000)
const QUERIES = (env.STEPS_QUERIES || 'Q1,Q2').split(',')
const REPS = Number(env.STEPS_REPS || 5)
const COLD = env.STEPS_COLD === '1'
const WASM = path.resolve(root, env.STEPS_WASM || 'jsbridge/pqscan.wasm')
const WARMUP = Number(env.STEPS_WARMUP ?? 2)
const PROF = env.STEPS_PROF ? path.resolve(root, env.STEPS_PROF) : null
const LAYOUT = env.STEPS_LAYOUT || 'sorted'

// Segments: from one fetch's end (its last byte delivered) to the next fetch's start, the ms
// of each module call made in between (a call that spans a boundary counts where it started).
let seg = null
const segs = []
// The timeline of a measured run (fetch calls, deliveries, module calls), for predRound().
let tl = null

// The predicate round → output requests step of Q2, from the timeline and the
// server's log: the predicate round is the first fetch below the tail and index rounds; after
// its last range was delivered, the ms and module CPU until the next fetch starts (client),
// the ms from its last response's end to the next request's start (server), and how many
// fetches (the output pages of row groups already filtered) started before that last range.
function predRound(events, log) {
  if (env.STEPS_TL === "1") for (const e of events) if (e.kind !== "call" || e.cpu > 1) console.log("     tl", e.kind, e.t.toFixed(1), e.kind === "fetch" ? JSON.stringify(e.ranges.map((r) => [r.off, r.len])) : e.kind === "got" ? `${e.off}+${e.len}` : `${e.name} cpu ${e.cpu.toFixed(1)}`)
  // The second fetch wholly below every byte fetched before it: the tail is at the end of
  // the file, the index round (page indexes) just before it, the data pages before them.
  let low = Infinity
  let below = 0
  const i = events.findIndex((e) => {
    if (e.kind !== 'fetch') return false
    const under = low < Infinity && e.ranges.every((r) => r.off + r.len <= low)
    low = Math.min(low, ...e.ranges.map((r) => r.off))
    return under && ++below === 2
  })
  if (i < 0) return null
  const pr = events[i].ranges
  const inPred = (off) => pr.some((r) => off >= r.off && off < r.off + r.len)
  let last = -1
  events.forEach((e, k) => {
    if (e.kind === 'got' && inPred(e.off)) last = k
  })
  const tLast = events[last].t
  const next = events.slice(last + 1).find((e) => e.kind === 'fetch')
  const early = events.slice(i + 1, last).filter((e) => e.kind === 'fetch').length
  // No fetch after it: every output request went out before its last range arrived.
  const cpu = next ? events.filter((e) => e.kind === 'call' && e.t >= tLast && e.t < next.t).reduce((n, e) => n + e.cpu, 0) : null
  const startOf = (e) => Number(/bytes=(\d+)-/.exec(e.range || '')?.[1] ?? -1)
  const predLog = log.filter((e) => inPred(startOf(e)))
  const end = Math.max(...predLog.map((e) => e.end))
  const after = log.filter((e) => e.start >= end && !inPred(startOf(e))).sort((a, b) => a.start - b.start)[0]
  return { client: next ? next.t - tLast : null, cpu, server: after ? after.start - end : null, early, predRequests: predLog.length }
}
const now = () => performance.now()
for (const name of ['next', 'push', 'ranges', 'metadata', 'schema', 'ipc', 'open', 'report', 'close']) {
  const f = Instance.prototype[name]
  Instance.prototype[name] = function (...a) {
    const t = now()
    const c0 = process.cpuUsage()
    try {
      const r = f.apply(this, a)
      if (name === 'next') this.lastKind = r
      return r
    } finally {
      if (seg) seg.calls[name] = (seg.calls[name] ?? 0) + now() - t
      if (seg) {
        const c = process.cpuUsage(c0)
        seg.cpu = (seg.cpu ?? 0) + (c.user + c.system) / 1000
      }
      if (tl) {
        const c = process.cpuUsage(c0)
        tl.push({ kind: 'call', t, name, cpu: (c.user + c.system) / 1000 })
      }
      if (seg && env.STEPS_CALLS === '1' && now() - t >= 1) (seg.list ??= []).push(`${name}${name === 'next' ? '→' + this.lastKind : ''} ${(now() - t).toFixed(1)}`)
    }
  }
}
const fetchRanges = HttpSource.prototype.fetchRanges
HttpSource.prototype.fetchRanges = async function (ranges, signal, deliver) {
  if (seg) {
    seg.ms = now() - seg.t0
    segs.push(seg)
    seg = null
  }
  if (tl) tl.push({ kind: 'fetch', t: now(), ranges, bytes: ranges.reduce((n, r) => n + r.len, 0) })
  const got = (off, b) => {
    if (tl) tl.push({ kind: 'got', t: now(), off, len: b.length })
    deliver(off, b)
  }
  try {
    return await fetchRanges.call(this, ranges, signal, got)
  } finally {
    seg = { t0: now(), calls: {} }
  }
}

function where(q) {
  if (q === 'Q1') return `tenant_id = ${P.tenant} AND event_time >= TIMESTAMP '${P.loISO}' AND event_time < TIMESTAMP '${P.hiISO}'`
  return `user_id = ${P.user}`
}

let P
async function main() {
  const name = readdirSync(DATA).find((n) => n.startsWith(`events-v1-${LAYOUT}-${ROWS}-`))
  if (!name) throw new Error(`no ${LAYOUT} ${ROWS}-row file in ${DATA}`)
  const o = await openOracle()
  P = await o.params(path.join(DATA, name))
  o.close()
  const srv = await startServer(DATA)
  await (await fetch(`${srv.url}__bench/config?latency=${env.STEPS_LATENCY || '30ms'}&mbps=0`)).text()
  const url = `${srv.url}data/${name}`
  const fileSize = statSync(path.join(DATA, name)).size // as the browser bench passes it
  const out = []
  let engine = null
  const query = (q) => engine.openParquet(url, { fileSize }).then(async (f) => {
    const t = await f.scan({ columns: q === 'Q1' ? ['event_type', 'value'] : undefined, where: where(q) }).toTable()
    f.close?.()
    return t
  })
  let prof = null
  try {
    if (!COLD) {
      engine = createEngine({ worker: false, wasm: WASM })
      for (let i = 0; i < WARMUP; i++) for (const q of QUERIES) await query(q)
    }
    if (PROF) {
      prof = new Session()
      prof.connect()
      await prof.post('Profiler.enable')
      await prof.post('Profiler.setSamplingInterval', { interval: 100 })
      await prof.post('Profiler.start')
    }
    for (const q of QUERIES) {
      for (let i = 0; i < REPS; i++) {
        if (COLD) {
          engine?.terminate()
          engine = createEngine({ worker: false, wasm: WASM })
        }
        await getLog(srv)
        segs.length = 0
        seg = null
        tl = []
        const t0 = now()
        const c0 = process.cpuUsage()
        const t = await query(q)
        const ms = now() - t0
        const c1 = process.cpuUsage(c0)
        const cpuMs = (c1.user + c1.system) / 1000
        if (seg) segs.push({ ...seg, ms: now() - seg.t0, last: true })
        seg = null
        const log = await getLog(srv)
        const g = gaps(log)
        const pred = predRound(tl, log.filter((e) => e.path.startsWith('/data/')))
        tl = null
        out.push({ query: q, rep: i, ms, cpuMs, rows: t.numRows, gaps: g, pred, segs: segs.map((s) => ({ ms: +s.ms.toFixed(2), cpu: +(s.cpu ?? 0).toFixed(2), last: s.last, list: s.list, calls: Object.fromEntries(Object.entries(s.calls).map(([k, v]) => [k, +v.toFixed(2)])) })) })
        console.log(`${q} ${COLD ? 'cold' : 'warm'} #${i}: ${ms.toFixed(0)} ms, ${t.numRows} rows; server gaps ${g.map((x) => x.toFixed(1)).join(' ')}`)
        if (pred) console.log(`   predicate round (${pred.predRequests} requests) → next request: ${pred.client?.toFixed(1) ?? 'none'} ms after its last range was delivered (module CPU ${pred.cpu?.toFixed(1) ?? '–'} ms), server ${pred.server?.toFixed(1) ?? '–'} ms; ${pred.early} fetches started before that range`)
        for (const s of out.at(-1).segs) {
          const c = Object.entries(s.calls).filter(([, v]) => v >= 0.05).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')
          console.log(`   ${s.last ? 'after the last response' : 'between responses'}: ${s.ms.toFixed(1)} ms (${c})${s.list ? ' [' + s.list.join(', ') + ']' : ''}`)
        }
      }
      const rs = out.filter((r) => r.query === q)
      const rounds = Math.max(...rs.map((r) => r.gaps.length))
      const per = Array.from({ length: rounds }, (_, i) => median(rs.filter((r) => r.gaps.length > i).map((r) => r.gaps[i])).toFixed(1))
      const nseg = Math.max(...rs.map((r) => r.segs.length))
      const cpu = Array.from({ length: nseg }, (_, i) => median(rs.filter((r) => r.segs.length > i).map((r) => r.segs[i].cpu)).toFixed(1))
      console.log(`${q}: CPU ms of the process inside module calls, per segment (between two rounds; the last: after the last response): ${cpu.join(' · ')}`)
      const pr = rs.filter((r) => r.pred)
      if (pr.length) {
        const m = (f) => {
          const xs = pr.map(f).filter((x) => x !== null && x !== undefined)
          return xs.length ? median(xs).toFixed(1) : 'none'
        }
        const none = pr.filter((r) => r.pred.client === null).length
        console.log(`${q}: predicate round → next request, median of ${pr.length}: client ${m((r) => r.pred.client)} ms, module CPU ${m((r) => r.pred.cpu)} ms, server ${m((r) => r.pred.server)} ms; early fetches ${m((r) => r.pred.early)}; no request after it in ${none}`)
      }
      console.log(`${q}: median ${median(rs.map((r) => r.ms)).toFixed(0)} ms (process CPU ${median(rs.map((r) => r.cpuMs)).toFixed(0)} ms); median gap per round ${per.join(' · ')}; largest gap per run ${rs.map((r) => Math.max(0, ...r.gaps).toFixed(1)).join(' ')}`)
    }
    if (prof) writeFileSync(PROF, JSON.stringify((await prof.post('Profiler.stop')).profile))
  } finally {
    engine?.terminate()
    srv.stop()
  }
  if (env.STEPS_JSON) writeFileSync(path.resolve(root, env.STEPS_JSON), JSON.stringify(out, null, 1) + '\n')
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
