// A/B of module builds in V8: each module gets its own JS bridge Core (in this thread, the file
// in memory as in wasmspeed.mjs), and the same scan runs on each in turn, ROUNDS times, the
// order rotating every round. Builds scanned back to back in one process see the same load, so
// the per-pair ratio of CPU times (process.cpuUsage: every thread of node) separates changes of
// a few percent that separate runs on the shared box cannot (their medians drift by more).
//
//   node bench/v8/abscan.mjs FILE.parquet '["value"]' ROUNDS A.wasm B.wasm [C.wasm ...]
//
// SKIP (default 6) rounds are untimed: V8 tiers the module's hot code up over the first scans.
// Prints per module: wall and CPU medians and 10% quantiles, and the median of its per-round CPU
// ratio to the first module.
import { readFileSync } from 'node:fs'
import { Core } from '../../jsbridge/src/core.js'
import { MemoryBlob } from './memory-blob.mjs'

const [file, cols, rounds, ...mods] = process.argv.slice(2)
const skip = Number(process.env.SKIP ?? 6)

const bytes = new Uint8Array(readFileSync(file))
const runs = []
for (const m of mods) {
  const core = new Core({ wasm: readFileSync(m) })
  const { id } = await core.openFile(new MemoryBlob(bytes))
  runs.push({ name: m.split('/').pop(), core, id, wall: [], cpu: [] })
}
const opts = { columns: JSON.parse(cols) }
for (let r = 0; r < Number(rounds); r++) {
  for (let i = 0; i < runs.length; i++) {
    const k = runs[(i + r) % runs.length]
    const t0 = process.hrtime.bigint()
    const c0 = process.cpuUsage()
    for await (const st of k.core.scan(k.id, opts)) void st // errors throw
    const c = process.cpuUsage(c0)
    if (r >= skip) {
      k.wall.push(Number(process.hrtime.bigint() - t0) / 1e9)
      k.cpu.push((c.user + c.system) / 1e6)
    }
  }
}
const q = (a, f) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) * f)]
for (const k of runs) {
  const ratio = k.cpu.map((c, j) => c / runs[0].cpu[j])
  console.log(
    `${k.name}: wall median ${q(k.wall, 0.5).toFixed(4)} s (q10 ${q(k.wall, 0.1).toFixed(4)}), ` +
      `CPU median ${q(k.cpu, 0.5).toFixed(4)} s (q10 ${q(k.cpu, 0.1).toFixed(4)}), CPU / ${runs[0].name} per round: median ${q(ratio, 0.5).toFixed(3)}`,
  )
}
