package main

import "runtime/debug"

// firstGCPercent holds Go's collector off until the heap has grown to about 36 MB (Go's
// minimum heap target of 4 MB times (1 + 800/100)) instead of 4–8 MB, for the first
// collection only: the exports that allocate call gcAfterFirst, which restores the default
// (GOGC=100) as soon as a cycle has run. A finalizer cannot do that here: the module's one
// goroutine never blocks, so the finalizer goroutine may not run for many calls, and the
// raised target would go on for them (a Node run showed the second cycle's goal at 9× live).
//
// Why: the first query used to start the collector two or three times while the heap was
// still small (Go's start included: the first cycle, at 4 MB, came inside the first open and
// took 52 ms in cold code in Node 20), so the collector's code ran for the first time inside
// it, and V8 compiles each wasm function at its first call (Chromium's trace of a cold page's
// Q4: wasm.CompileLazy, 1,364 functions, ~310 ms). The collector's functions were 154 of them,
// 184 KB of the 1.61 MB of code compiled during a first Q4 (e2e/bench/NOTES.md "What a cold
// first query compiles"). Wasm memory never shrinks and Go cannot give pages back to the
// host, so collecting early saves the browser no memory once the module has grown; the cost
// is the first ~36 MB being allocated before any of it is reused. A GOGC in the environment
// (wazerohost, tests) is left alone.
const firstGCPercent = 800

var gcFirst struct {
	pending bool
	old     int
	base    int64         // collections before holdFirstGC
	stats   debug.GCStats // reused: ReadGCStats keeps its Pause slice
}

// holdFirstGC raises the collector's target until the next collection (gc_wasm.go calls it
// at the module's start; natively nothing does, except the test).
func holdFirstGC() {
	debug.ReadGCStats(&gcFirst.stats)
	gcFirst.base = gcFirst.stats.NumGC
	gcFirst.old = debug.SetGCPercent(firstGCPercent)
	gcFirst.pending = true
}

// gcAfterFirst restores the collector's default once its first cycle has run. SetGCPercent
// recomputes the current cycle's goal at once, so the raised target outlasts the first cycle
// by at most the allocations of one export call.
func gcAfterFirst() {
	if !gcFirst.pending {
		return
	}
	debug.ReadGCStats(&gcFirst.stats)
	if gcFirst.stats.NumGC > gcFirst.base {
		debug.SetGCPercent(gcFirst.old)
		gcFirst.pending = false
	}
}
