package pqscan

import "github.com/pqscan/pqscan/internal/gcpace"

// PaceGC sets the process's soft memory limit (debug.SetMemoryLimit) for scans whose memory
// cap is memCap (0: the engine's default, 256 MiB): twice the cap, raised after each
// collection to a quarter above the live heap when that has grown, so the collector never
// runs back to back. A scan's heap is mostly short-lived, pointer-free buffers: marking them
// is cheap, but under Go's default goal (twice the live heap) and with freed pages not yet
// returned, a process's resident memory runs at two to three times what its scans hold, a
// scan split over cores more so (BENCHMARKS.md). The limit is process-wide, so setting it is
// the program's choice, not the library's: the CLI calls PaceGC. stop restores the limit there
// was. With GOMEMLIMIT in the environment PaceGC does nothing.
func PaceGC(memCap int64) (stop func()) { return gcpace.Start(memCap) }
