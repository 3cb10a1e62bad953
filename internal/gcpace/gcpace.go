// Package gcpace paces a program's garbage collector for scans. A scan's heap is mostly
// pointer-free buffers (fetched pages, decoded values, Arrow IPC batches) that live for one
// batch or one unit: marking them costs the collector almost nothing (measured on the sorted
// 4M-row events file: 7–16 cycles per `pqscan cat`, under 5% of its CPU), but Go's default
// goal, twice the live heap, and the pages freed and not yet returned to the system make the
// process's resident memory two to three times what the scan holds; a scan split over cores
// (units ahead of the output hold their batches) more so.
//
// Start sets a soft memory limit (debug.SetMemoryLimit) from the scan memory cap, so the
// collector runs and the scavenger returns pages before the heap passes it; after each
// collection the limit is raised to leave room above the live heap when that has grown
// (a row group larger than the cap), so the collector never runs back to back. A process-wide
// setting belongs to the program: the CLI calls Start, a library does not.
package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"

	"github.com/pqscan/pqscan/internal/protocol"
)

// Limit is the soft memory limit for a scan memory cap memCap and a live heap of live bytes:
// twice the cap (what the units running and the batches waiting may hold, plus as much for
// the pages and buffers being decoded and the caller's batches), and at least a quarter
// above the live heap.
func Limit(memCap, live int64) int64 {
	return max(2*memCap, live+live/4)
}

// Start sets the limit for memCap (0: the engine's default cap) and keeps it above the live
// heap until stop is called, which restores the limit there was. With GOMEMLIMIT in the
// environment it does nothing: the user's limit wins.
func Start(memCap int64) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	if memCap <= 0 {
		memCap = protocol.DefaultMemoryCap
	}
	p := &pacer{memCap: memCap, prev: debug.SetMemoryLimit(Limit(memCap, 0))}
	p.arm()
	return func() {
		if !p.stopped.Swap(true) {
			debug.SetMemoryLimit(p.prev)
		}
	}
}

type pacer struct {
	memCap  int64
	prev    int64
	stopped atomic.Bool
	sample  [1]metrics.Sample
}

// sentinel is an object whose finalizer runs after each collection that finds it
// unreachable: a hook the runtime does not otherwise offer. It holds a pointer so that it is
// not a tiny allocation (those share a block and may never be finalized).
type sentinel struct{ p *pacer }

func (p *pacer) arm() {
	runtime.SetFinalizer(&sentinel{p: p}, func(s *sentinel) { s.p.collected() })
}

// collected runs on the finalizer goroutine after a collection.
func (p *pacer) collected() {
	if p.stopped.Load() {
		return
	}
	p.sample[0].Name = "/gc/heap/live:bytes"
	metrics.Read(p.sample[:])
	if v := p.sample[0].Value; v.Kind() == metrics.KindUint64 {
		live := int64(min(v.Uint64(), math.MaxInt64))
		debug.SetMemoryLimit(Limit(p.memCap, live))
	}
	p.arm()
}
