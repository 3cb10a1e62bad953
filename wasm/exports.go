package main

import "github.com/pqscan/pqscan/internal/protocol"

// The exports. Each one converts its integers, defers guard (so that a panic becomes a status
// code and a message instead of crossing the boundary, where it would trap and poison the
// instance), and calls a module method. Pointers are i32 but unsigned: convert with uint32.

// guard is deferred by every export: it recovers a panic, records it (poisoning handle h, if
// any) and replaces the export's result with fail.
func guard[T int32 | int64](fn string, h int32, res *T, fail T) {
	if r := recover(); r != nil {
		mod.recovered(fn, h, r)
		*res = fail
	}
}

//go:wasmexport pq_abi_version
func pqABIVersion() int32 { return abiVersion }

//go:wasmexport pq_alloc
func pqAlloc(n int32) (p int32) {
	defer guard("pq_alloc", 0, &p, 0)
	retuneGC()
	return int32(mod.alloc(n))
}

//go:wasmexport pq_free
func pqFree(p int32) (rc int32) {
	defer guard("pq_free", 0, &rc, codePanic)
	return mod.free(uint32(p))
}

//go:wasmexport pq_open
func pqOpen(p, n int32) (h int32) {
	defer guard("pq_open", 0, &h, codePanic)
	retuneGC()
	return mod.open(uint32(p), n)
}

//go:wasmexport pq_next
func pqNext(h int32) (k int32) {
	// A panic inside the engine is reported as an Error step: hosts handle one failure path.
	defer guard("pq_next", h, &k, int32(protocol.Error))
	retuneGC()
	return mod.stepNext(h)
}

//go:wasmexport pq_ranges
func pqRanges(h int32) (v int64) {
	defer guard("pq_ranges", h, &v, fail64)
	return mod.rangesOf(h)
}

//go:wasmexport pq_ipc
func pqIPC(h int32) (v int64) {
	defer guard("pq_ipc", h, &v, fail64)
	return mod.ipcOf(h)
}

//go:wasmexport pq_push
func pqPush(h int32, off int64, p, n int32) (rc int32) {
	defer guard("pq_push", h, &rc, codePanic)
	retuneGC()
	return mod.push(h, off, uint32(p), n)
}

//go:wasmexport pq_push_owned
func pqPushOwned(h int32, off int64, p, n int32) (rc int32) {
	defer guard("pq_push_owned", h, &rc, codePanic)
	return mod.pushOwned(h, off, uint32(p), n)
}

//go:wasmexport pq_set_size
func pqSetSize(h int32, n int64) (rc int32) {
	defer guard("pq_set_size", h, &rc, codePanic)
	return mod.setSize(h, n)
}

//go:wasmexport pq_tighten
func pqTighten(h int32, p, n int32) (rc int32) {
	defer guard("pq_tighten", h, &rc, codePanic)
	return mod.tighten(h, uint32(p), n)
}

//go:wasmexport pq_report
func pqReport(h int32) (v int64) {
	defer guard("pq_report", h, &v, fail64)
	return mod.report(h)
}

//go:wasmexport pq_schema
func pqSchema(h int32) (v int64) {
	defer guard("pq_schema", h, &v, fail64)
	return mod.schema(h)
}

//go:wasmexport pq_metadata
func pqMetadata(h int32) (v int64) {
	defer guard("pq_metadata", h, &v, fail64)
	return mod.metadataOf(h)
}

//go:wasmexport pq_error
func pqError(h int32) (v int64) {
	defer guard("pq_error", h, &v, fail64)
	return mod.errorOf(h)
}

//go:wasmexport pq_error_kind
func pqErrorKind(h int32) (k int32) {
	defer guard("pq_error_kind", h, &k, int32(protocol.ErrOther))
	return mod.errorKindOf(h)
}

//go:wasmexport pq_close
func pqClose(h int32) (rc int32) {
	defer guard("pq_close", h, &rc, codePanic)
	return mod.closeSession(h)
}
