// Back-to-back scans in one Node process, each one's time printed: how V8 tiers the module's
// code up over a run (e2e/bench/NOTES.md), without bench/cmd/wasmspeed's other
// engines beside it.
//
//   node bench/v8/scanloop.mjs FILE.parquet MODULE.wasm '["value"]' SCANS [SLEEP_MS]
import { readFileSync } from 'node:fs'
import { Core } from '../../jsbridge/src/core.js'
import { MemoryBlob } from './memory-blob.mjs'
const [file, wasm, cols, n, sleep] = process.argv.slice(2)
const core = new Core({ wasm: readFileSync(wasm), hostZstd: true })
const { id } = await core.openFile(new MemoryBlob(new Uint8Array(readFileSync(file))))
const ts = []
for (let i = 0; i < Number(n); i++) {
  if (Number(sleep)) await new Promise((r) => setTimeout(r, Number(sleep)))
  const t0 = performance.now(); for await (const st of core.scan(id, { columns: JSON.parse(cols) })) void st; ts.push(performance.now() - t0) }
console.log(ts.map((t) => t.toFixed(1)).join(' '))
ts.splice(0, 15); ts.sort((a,b)=>a-b); console.log('median after 15', ts[ts.length>>1].toFixed(1))
