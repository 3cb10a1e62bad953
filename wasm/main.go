// Command wasm is the WebAssembly face of pqscan: a thin //go:wasmexport ABI over package scan,
// built as a wasip1 reactor (-buildmode=c-shared). The ABI is documented in ABI.md, the one
// place hosts (jsbridge, wazerohost) read it from.
//
// Every export only decodes integers, pointers and lengths, calls plain Go, and encodes the
// result (STYLE.md rule 8): the logic lives in module.go so that it runs and is tested natively.
// Non-goals: I/O of any kind (the engine is sans-IO), threads, and exporting Go values.
package main

// main is required by the c-shared build mode but never runs: hosts call _initialize and then
// the exports.
func main() {}
