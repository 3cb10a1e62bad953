// The floor of a "response → next request" gap in headless Chromium on this machine: a chain of
// range requests whose next round is asked for as soon as the previous round's bodies are in,
// with no engine between them, measured from the bench server's request log exactly as the
// bench measures pqscan's gaps (lib.js gaps()). What a Parquet reader adds over this floor is
// its own; what the floor itself is, no reader in this browser on this box can go under.
//
//   make bench-gapfloor    (or node e2e/bench/gapfloor.js; BENCH_DIR: the events files)
//
// Variants, each in a fresh page: the chain in a dedicated Worker (where pqscan's engine runs)
// and in the page itself; "+copy": each body also copied into a WebAssembly.Memory before the
// next round (what the bridge does when it pushes a response into the module); and the same
// chain in this Node process (undici's fetch: the floor of e2e/bench/steps.js's gaps). The rounds
// are shaped like Q1's on the sorted file (a 64 KiB tail, then 3 and 4 parallel ranges of
// ~100–300 KiB). Knobs: GAPFLOOR_RUNS (default 15), GAPFLOOR_LATENCY (the bench server's added
// latency per request, e.g. 30ms; default none), GAPFLOOR_H2=1 (the server's TLS port: HTTP/2,
// every request on one connection, as from a CDN).
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { readdirSync, statSync } from 'node:fs'
import { startServer, startBrowser, getLog, gaps, median } from './lib.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../..')
const env = process.env
const DATA = path.resolve(root, env.BENCH_DIR || '.cache/events')
const RUNS = Number(env.GAPFLOOR_RUNS || 15)
const LATENCY = env.GAPFLOOR_LATENCY || '0s'

const file = readdirSync(DATA).filter((f) => f.includes('sorted') && f.endsWith('.parquet') && !f.includes('unsorted')).sort()[0]
if (!file) throw new Error(`gapfloor: no sorted events file in ${DATA} (make bench-events)`)
const size = statSync(path.join(DATA, file)).size

// Rounds of [offset, length]; the offsets spread over the file so that nothing is cached.
const K = 1024
const rounds = [
  [[size - 64 * K, 64 * K]],
  [[1_000_000, 90 * K], [9_000_000, 120 * K], [40_000_000, 60 * K]],
  [[2_000_000, 300 * K], [12_000_000, 250 * K], [60_000_000, 180 * K], [90_000_000, 200 * K]],
]

// The chain, as source run in a Worker or in the page: resolves with the client-side ms per
// round (first request issued → last body in).
const chainSrc = `
async function chain(url, rounds, copy) {
  const mem = copy ? new WebAssembly.Memory({ initial: 64 }) : null
  const t = []
  for (const round of rounds) {
    const t0 = performance.now()
    const bodies = await Promise.all(round.map(async ([off, len]) => {
      const r = await fetch(url, { headers: { Range: 'bytes=' + off + '-' + (off + len - 1) } })
      if (r.status !== 206) throw new Error('status ' + r.status)
      return new Uint8Array(await r.arrayBuffer())
    }))
    if (mem) {
      let need = bodies.reduce((s, b) => s + b.length, 0)
      const have = mem.buffer.byteLength
      if (need > have) mem.grow(Math.ceil((need - have) / 65536))
      let p = 0
      const u8 = new Uint8Array(mem.buffer)
      for (const b of bodies) { u8.set(b, p); p += b.length }
    }
    t.push(performance.now() - t0)
  }
  return t
}`

const chainFn = new Function(`${chainSrc}; return chain`)() // eslint-disable-line no-new-func

const H2 = env.GAPFLOOR_H2 === '1'
const srv = await startServer(DATA, H2 ? ['-h2'] : [])
const br = await startBrowser()
try {
  await fetch(`${srv.url}__bench/config?latency=${LATENCY}`)
  const base = H2 ? srv.tlsURL : srv.url
  const url = `${base}data/${file}`
  console.log(`gapfloor: ${file} (${(size / 2 ** 20).toFixed(1)} MiB), ${RUNS} runs per variant, added latency ${LATENCY}, ${H2 ? 'HTTP/2 (TLS)' : 'HTTP/1.1'}; Chromium ${br.version}`)
  const variants = [
    { name: 'Worker', worker: true, copy: false },
    { name: 'Worker +copy', worker: true, copy: true },
    { name: 'page', worker: false, copy: false },
    { name: 'page +copy', worker: false, copy: true },
    // Node's fetch speaks HTTP/1.1 only (and would refuse the self-signed certificate).
    ...(H2 ? [] : [{ name: 'Node', node: true, copy: false }]),
  ]
  const rows = []
  for (const v of variants) {
    const page = v.node ? null : await br.ctx.newPage()
    await page?.goto(`${base}index.html?c=none`)
    const largest = []
    const perRound = rounds.slice(1).map(() => [])
    for (let i = 0; i < RUNS + 1; i++) {
      await getLog(srv)
      if (v.node) await chainFn(url, rounds, v.copy)
      else await page.evaluate(async ({ src, url, rounds, v }) => {
        if (v.worker) {
          const body = `${src}\nonmessage = async (e) => postMessage(await chain(...e.data))`
          const w = (window.__gapW ??= new Worker(URL.createObjectURL(new Blob([body], { type: 'text/javascript' }))))
          return await new Promise((res) => { w.onmessage = (e) => res(e.data); w.postMessage([url, rounds, v.copy]) })
        }
        // eslint-disable-next-line no-new-func
        const chain = new Function(`${src}; return chain`)()
        return chain(url, rounds, v.copy)
      }, { src: chainSrc, url, rounds, v })
      const ents = await getLog(srv)
      const g = gaps(ents)
      if (i === 0) continue // the first run opens the connections and starts the Worker
      largest.push(Math.max(...g))
      g.forEach((x, j) => perRound[j]?.push(x))
    }
    await page?.close()
    const q = (a, f) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) * f)]
    rows.push(`| ${v.name} | ${perRound.map((r) => median(r).toFixed(2)).join(' · ')} | ${median(largest).toFixed(2)} [${q(largest, 0).toFixed(2)}–${q(largest, 1).toFixed(2)}] |`)
  }
  console.log('\n| variant | gap per round, median (ms) | largest per run: median [min–max] (ms) |\n|---|---|---|\n' + rows.join('\n'))
} finally {
  await br.close()
  srv.stop()
}
