// A fresh instance's first open and first scan in Node (e2e/bench/NOTES.md): the
// module compiled from bytes, the instance started, the sorted events file opened from memory
// and scanned once with the options given; prints {ti, to, ts} (ms: instance, open, scan).
// Run one process per measurement, with or without V8 flags (e.g. --liftoff-only).
//
//   node bench/v8/first-query.mjs MODULE.wasm '{"limit":100}' [FILE.parquet]
import { readFileSync } from 'node:fs'
import { Core } from '../../jsbridge/src/core.js'
import { MemoryBlob } from './memory-blob.mjs'
const bytes = new Uint8Array(readFileSync(process.argv[4] ?? '.cache/events/events-v1-sorted-4000000-rg1048576.parquet'))
const q = JSON.parse(process.argv[3])
const mod = await WebAssembly.compile(readFileSync(process.argv[2]))
const core = new Core({ wasm: mod, hostZstd: true })
let t = performance.now()
await core.instance()
const ti = performance.now() - t; t = performance.now()
const { id } = await core.openFile(new MemoryBlob(bytes))
const to = performance.now() - t; t = performance.now()
let rows = 0
for await (const st of core.scan(id, q)) if (st.type === 'batch') rows++
const ts = performance.now() - t
console.log(JSON.stringify({ ti, to, ts }))
