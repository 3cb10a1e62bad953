// The response → next-request gap of pqscan's scans, step by step (issue 14 item 2), in Node:
// the bridge in the calling thread ({worker: false}) against the bench server on 127.0.0.1,
// Q1 and Q2 of the browser benchmark on BENCH_DIR's sorted file. For every round of requests
// it prints the gap the server saw (its request log: the previous round's last response end
// to this round's first request start, lib.js gaps) and what the bridge did in between: the
// ms spent in each module call (pq_next, pq_push_owned, …) and the rest (JS, awaits).
//
//   node e2e/bench/steps.js                  # warm: one engine, STEPS_REPS (5) runs per query
//   STEPS_COLD=1 node e2e/bench/steps.js     # a fresh engine (compile + instance) per run
//   node --cpu-prof --cpu-prof-dir=e2e/bench/out/prof e2e/bench/steps.js   # with a module that
//       keeps its name section (STEPS_WASM=bin/pqscan-names.wasm, from `make size`)
//
// Knobs: BENCH_DIR (.cache/events), BENCH_ROWS (4000000), STEPS_QUERIES (Q1,Q2), STEPS_REPS
// (5), STEPS_WASM (jsbridge/pqscan.wasm), STEPS_JSON (a file to write the rounds to).
import { readdirSync, statSync, writeFileSync } from 'node:fs'
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

// Segments: from one fetch's end (its last byte delivered) to the next fetch's start, the ms
// of each module call made in between (a call that spans a boundary counts where it started).
let seg = null
const segs = []
const now = () => performance.now()
for (const name of ['next', 'push', 'ranges', 'metadata', 'schema', 'ipc', 'open', 'report', 'close']) {
  const f = Instance.prototype[name]
  Instance.prototype[name] = function (...a) {
    const t = now()
    try {
      const r = f.apply(this, a)
      if (name === 'next') this.lastKind = r
      return r
    } finally {
      if (seg) seg.calls[name] = (seg.calls[name] ?? 0) + now() - t
      if (seg && env.STEPS_CALLS === '1' && now() - t >= 1) (seg.list ??= []).push(`${name}${name === 'next' ? '→' + this.lastKind : ''} ${(now() - t).toFixed(1)}`)
    }
  }
}
const fetchRanges = HttpSource.prototype.fetchRanges
HttpSource.prototype.fetchRanges = async function (...a) {
  if (seg) {
    seg.ms = now() - seg.t0
    segs.push(seg)
    seg = null
  }
  try {
    return await fetchRanges.apply(this, a)
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
  const name = readdirSync(DATA).find((n) => n.startsWith(`events-v1-sorted-${ROWS}-`))
  if (!name) throw new Error(`no sorted ${ROWS}-row file in ${DATA}`)
  const o = await openOracle()
  P = await o.params(path.join(DATA, name))
  o.close()
  const srv = await startServer(DATA)
  const url = `${srv.url}data/${name}`
  const fileSize = statSync(path.join(DATA, name)).size // as the browser bench passes it
  const out = []
  let engine = null
  try {
    for (const q of QUERIES) {
      for (let i = 0; i < REPS; i++) {
        if (COLD || !engine) {
          engine?.terminate()
          engine = createEngine({ worker: false, wasm: WASM })
          if (!COLD) await (await engine.openParquet(url, { fileSize })).close?.() // warm: compiled and started
        }
        await getLog(srv)
        segs.length = 0
        seg = null
        const t0 = now()
        const f = await engine.openParquet(url, { fileSize })
        const t = await f.scan({ columns: q === 'Q1' ? ['event_type', 'value'] : undefined, where: where(q) }).toTable()
        const ms = now() - t0
        if (seg) segs.push({ ...seg, ms: now() - seg.t0, last: true })
        seg = null
        f.close?.()
        const g = gaps(await getLog(srv))
        out.push({ query: q, rep: i, ms, rows: t.numRows, gaps: g, segs: segs.map((s) => ({ ms: +s.ms.toFixed(2), last: s.last, list: s.list, calls: Object.fromEntries(Object.entries(s.calls).map(([k, v]) => [k, +v.toFixed(2)])) })) })
        console.log(`${q} ${COLD ? 'cold' : 'warm'} #${i}: ${ms.toFixed(0)} ms, ${t.numRows} rows; server gaps ${g.map((x) => x.toFixed(1)).join(' ')}`)
        for (const s of out.at(-1).segs) {
          const c = Object.entries(s.calls).filter(([, v]) => v >= 0.05).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')
          console.log(`   ${s.last ? 'after the last response' : 'between responses'}: ${s.ms.toFixed(1)} ms (${c})${s.list ? ' [' + s.list.join(', ') + ']' : ''}`)
        }
      }
      const rs = out.filter((r) => r.query === q)
      console.log(`${q}: median ${median(rs.map((r) => r.ms)).toFixed(0)} ms; largest gap per run ${rs.map((r) => Math.max(0, ...r.gaps).toFixed(1)).join(' ')}`)
    }
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
