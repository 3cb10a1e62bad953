// The "response → next request" section of BENCHMARKS.md (target: under 5 ms on Q1 and Q2):
// per pqscan cell, the gaps of lib.js gaps() — for each round of requests, the ms from the
// previous round's last response end to the round's first request start, as the bench
// server logged them — from the warm cells (results) and the cold page loads (cold.cells).
import { median } from './lib.js'

const GAP_QUERIES = ['Q1', 'Q2']
const f1 = (x) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(1))

// Per round index: the median gap over the repetitions that have that round.
function perRound(reps) {
  const n = Math.max(0, ...reps.map((r) => r.gaps.length))
  const out = []
  for (let i = 0; i < n; i++) out.push(median(reps.filter((r) => r.gaps.length > i).map((r) => r.gaps[i])))
  return out
}

function row(label, reps) {
  const rs = reps.filter((r) => Array.isArray(r.gaps))
  if (!rs.length) return null
  const largest = rs.map((r) => Math.max(0, ...r.gaps))
  const sum = rs.map((r) => r.gaps.reduce((a, b) => a + b, 0))
  const pr = perRound(rs)
  return `| ${label} | ${rs.length} | ${pr.map(f1).join(' · ') || '–'} | ${f1(median(largest))} [${f1(Math.min(...largest))}–${f1(Math.max(...largest))}] | ${f1(median(sum))} |`
}

/**
 * The section's body from results.json (o.scenarios, o.results, o.cold) and, when given, a
 * pqscan-only run of its own (g: the results of run.js with BENCH_OUT_JSON=bench/results-gaps.json).
 */
export function gapsMarkdown(o, g) {
  const L = []
  L.push('For each round of requests (a request that starts when no other is in flight), the ms from the previous round\'s last response end to its first request start, from the bench server\'s request log: what the bridge, the Worker hops and the engine (footer decode, planning, the exact filter) spent between getting the bytes and asking for more. Per round: the median over the repetitions; **largest**: the median [min–max] of each repetition\'s largest gap; **sum**: all gaps of a run. With no added latency, the requests of one engine step may end and start one after the other and count as rounds of their own (gaps near 0); at 30 ms the rounds are the engine\'s steps. Target: every gap under 5 ms on Q1 and Q2.', '')
  L.push('| cell | n | per round (ms) | largest (ms) | sum (ms) |', '|---|---:|---|---|---:|')
  let any = false
  const warm = (o, when) => {
    for (const [sc, S] of Object.entries(o.scenarios ?? {})) {
      for (const r of (o.results ?? []).filter((x) => x.scenario === sc && x.contender === 'pqscan' && GAP_QUERIES.includes(x.query))) {
        const line = row(`warm, ${S.label}, ${r.layout} ${r.query}${when}`, r.reps ?? [])
        if (line) L.push(line), (any = true)
      }
    }
  }
  warm(o, '')
  if (g) warm(g, ` (${g.date.slice(0, 16).replace('T', ' ')} UTC)`)
  for (const c of (o.cold?.cells ?? []).filter((x) => x.contender.startsWith('pqscan') && GAP_QUERIES.includes(x.query))) {
    const line = row(`${c.load} page, ${c.contender}, ${c.scenario === 'none' ? 'no added latency' : c.scenario}, ${c.layout} ${c.query}`, c.reps ?? [])
    if (line) L.push(line), (any = true)
  }
  if (!any) return '(no gaps in these results: they predate the gap log; run `make bench` or `make bench-cold`)'
  if (g) L.push('', `The rows with a date are a pqscan-only run: \`${g.command}\` (load average ${g.machine.loadavgStart.join(' / ')} at its start).`)
  return L.join('\n')
}
