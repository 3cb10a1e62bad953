package wazerohost

import _ "embed"

// moduleWasm is the pqscan module built by `make wasm` (ABI: wasm/ABI.md). The file is not in
// git: build it before compiling this package.
//
//go:embed pqscan.wasm
var moduleWasm []byte

// Module returns the embedded module's bytes (read-only: do not modify).
func Module() []byte { return moduleWasm }
