// Runs a Go test binary built for wasip1 in node's own WASI (node:wasi), so that a kernel's
// benchmark can be timed in V8 without the engine around it:
//
//   GOOS=wasip1 GOARCH=wasm go test -c -o bin/decode.wasm ./internal/decode
//   node --no-warnings bench/v8/wasi.mjs bin/decode.wasm -test.run '^$' -test.bench Gather8 -test.count 8
//
// The first runs of a benchmark include V8's tier-up; compare the fastest of several. The
// module's optional host import (wasm/ABI.md "Host imports") is answered "not provided".
import { readFileSync } from 'node:fs'
import { WASI } from 'node:wasi'

const [file, ...args] = process.argv.slice(2)
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {}, preopens: {} })
const mod = await WebAssembly.compile(readFileSync(file))
const inst = await WebAssembly.instantiate(mod, {
  wasi_snapshot_preview1: wasi.wasiImport,
  pqscan_host: { zstd_decompress: () => -1 },
})
wasi.start(inst)
