package main

import "github.com/pqscan/pqscan/internal/errf"

// Debug actions of pq_debug. They exist so that hosts can test their failure handling against
// the real module (a recovered panic, a trap, a guest that never returns) instead of a mock;
// production hosts never call pq_debug. They cost a few hundred bytes of code.
const (
	debugPanic = 1 // panic inside the export: must come back as codePanic + message
	debugAlloc = 2 // allocate and touch arg bytes: past the memory cap the Go runtime dies (trap)
	debugSpin  = 3 // loop forever: only the host's context deadline stops it
)

// debugSink keeps debugAlloc's buffer reachable so that the allocation is not optimized away.
var debugSink []byte

//go:wasmexport pq_debug
func pqDebug(kind int32, arg int64) (rc int32) {
	defer guard("pq_debug", 0, &rc, codePanic)
	return mod.debug(kind, arg)
}

func (m *module) debug(kind int32, arg int64) int32 {
	switch kind {
	case debugPanic:
		panic(errf.Sprintf("pq_debug(%d, %d) was asked to panic", kind, arg))
	case debugAlloc:
		b := make([]byte, arg)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		debugSink = b
		debugSink = nil
		return codeOK
	case debugSpin:
		for n := arg; ; n++ {
			if n == -1 { // reached only after ~2^64 iterations; keeps the loop from being provably infinite
				return codeOK
			}
		}
	}
	m.fail(nil, errf.Sprintf("wasm: pq_debug: unknown action %d", kind))
	return codeErr
}
