// The V8 side of bench/cmd/wasmspeed: the module driven by the JS bridge's own loop (Core, in
// this thread, the engine started and the file's footer read before the first timed scan),
// over the file in memory as a Blob. bench/cmd/wasmspeed starts it once and writes one line per
// scan to stdin, a JSON array of columns ([] = all), so that native, wazero and V8 runs
// interleave (a JSON array of columns, or {columns, batchRows}); each answer is one line
// {"seconds": s, "cpuSeconds": c, "ipcBytes": n} (c: the CPU time of every thread of this
// process during the scan), or {"error": msg}.
//
//   node bench/v8/wasmspeed.mjs FILE.parquet [MODULE.wasm]
//
//
// Run with --cpu-prof over a module built with names (bin/pqscan-names.wasm, `make size`) to
// see the hot functions by name.
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { Core } from '../../jsbridge/src/core.js'
import { MemoryBlob } from './memory-blob.mjs'

const args = process.argv.slice(2)
const [file, wasm = new URL('../../wazerohost/pqscan.wasm', import.meta.url).pathname] = args
const core = new Core({ wasm: readFileSync(wasm) })
const { id } = await core.openFile(new MemoryBlob(new Uint8Array(readFileSync(file))))

const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')
out({ ready: true })
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue
  try {
    const req = JSON.parse(line)
    const opts = Array.isArray(req) ? { columns: req } : req
    const t0 = process.hrtime.bigint()
    const c0 = process.cpuUsage()
    let ipcBytes = 0
    for await (const st of core.scan(id, opts)) if (st.type === 'batch') ipcBytes += st.ipc.byteLength
    const c = process.cpuUsage(c0)
    out({ seconds: Number(process.hrtime.bigint() - t0) / 1e9, cpuSeconds: (c.user + c.system) / 1e6, ipcBytes })
  } catch (e) {
    out({ error: String(e?.stack ?? e) })
  }
}
