package main

import (
	"runtime"
	"runtime/debug"
)

// heapFloor is the smallest goal the module's collector is given: while the live heap is
// small, Go's default (GOGC=100: collect when the heap has doubled, 4 MB at least) would
// start a cycle every few MB a query allocates; the module instead lets the heap grow to about
// 36 MB before collecting, and collects at twice the live heap (the default) once that is more.
//
// Why this costs the host no memory: wasm memory never shrinks and Go cannot give pages back
// to it, so once the module's memory has grown to ~36 MB (the first collection comes there),
// collecting before the heap fills it frees nothing the browser gets back; it only spends CPU,
// a large share of a warm small query's (the collector under GOGC=100 on a live heap of a few
// MB), some of it inside the planning steps that sit between a response and the next request
// (BENCHMARKS.md, "The collector's goal has a floor").
//
// Why the first collection waits too: under the default the first query starts the collector
// two or three times while the heap is still small, the first cycle inside the first open, so
// the collector's code runs for the first time on the thread waiting for the answer, and V8
// compiles each wasm function at its first call (in Chromium's trace of a cold page the
// collector is about a tenth of the functions compiled: BENCHMARKS.md, "What a cold first
// query compiles").
//
// How: Go has no floor for its heap goal, only GOGC, so after each collection the exports
// that allocate (retuneGC) set GOGC from the live heap the collection left: the percent that
// puts the next goal at heapFloor, between 100 (the default, for a live heap of half the
// floor or more) and maxGCPercent. A finalizer cannot do it: the module's one goroutine
// never blocks, so the finalizer goroutine may not run for many calls. Between a collection
// and the next export call the goal is the one the previous percent gives, so an export that
// allocates much more than the floor can overshoot it once, by that call's allocations.
// A GOGC in the environment (wazerohost, tests) is left alone (gc_wasm.go).
const (
	heapFloor    = 36 << 20
	maxGCPercent = 800 // Go's minimum goal of 4 MB × (1 + 800/100): the floor on a fresh heap
)

var gcFloor struct {
	on     bool
	cycles int64
	stats  debug.GCStats // reused: ReadGCStats keeps its Pause slice
	mem    runtime.MemStats
}

// startGCFloor sets the collector's goal to the floor (gc_wasm.go calls it at the module's
// start; natively nothing does, except the test).
func startGCFloor() {
	debug.ReadGCStats(&gcFloor.stats)
	gcFloor.cycles = gcFloor.stats.NumGC
	gcFloor.on = true
	debug.SetGCPercent(maxGCPercent)
}

// retuneGC sets GOGC for the heap the last collection left, if one has run since the last
// call (it reads the collection count otherwise). The heap in use now stands for the live heap
// of that collection: it is that plus what was allocated since, so the goal errs low.
// (runtime/metrics has the live heap itself, but linking it added 22 KB to the module.)
func retuneGC() {
	if !gcFloor.on {
		return
	}
	debug.ReadGCStats(&gcFloor.stats)
	if gcFloor.stats.NumGC == gcFloor.cycles {
		return
	}
	gcFloor.cycles = gcFloor.stats.NumGC
	runtime.ReadMemStats(&gcFloor.mem) // stops the world: only after a collection
	debug.SetGCPercent(gcPercentFor(gcFloor.mem.HeapAlloc))
}

// gcPercentFor is the GOGC whose goal, live × (1 + GOGC/100), is heapFloor, within
// [100, maxGCPercent].
func gcPercentFor(live uint64) int {
	if live == 0 || live >= heapFloor/2 {
		return 100
	}
	return int(min(uint64(maxGCPercent), 100*heapFloor/live-100))
}
