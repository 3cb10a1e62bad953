package bench

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/rowfmt"
)

// BenchmarkThreadsDisk is `pqscan cat FILE --format arrow` of the sorted 4M-row events file
// in the process: the file read from disk (so the heap holds only what the scan allocates,
// and the collector paces on that), every batch decoded by arrow-go (Reader.Next) and written
// again as Arrow IPC, as the CLI does, into a hash. threads=1 and threads=2 run in the same
// process, so the second inherits the first's heap settings; run them as separate
// -bench patterns to compare cold processes. It reports wall and CPU milliseconds and heap
// allocations per scan, and the wall ratio of the two.
func BenchmarkThreadsDisk(b *testing.B) {
	cfg := events.Config{Rows: 4_000_000, Layout: events.Sorted}
	path := filepath.Join(benchDir(), events.FileName(cfg))
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no benchmark file (make bench-events): %v", err)
	}
	var sums [2]uint32
	var wall [2]float64
	for i, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			b.ReportAllocs()
			cpu0, wall0 := cpuTime(), time.Now()
			for b.Loop() {
				sums[i] = catArrow(b, path, threads)
			}
			wall[i] = float64(time.Since(wall0).Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(wall[i], "wall-ms/op")
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
	if sums[0] != 0 && sums[1] != 0 && sums[0] != sums[1] {
		b.Fatalf("threads=2 returned other bytes than threads=1")
	}
	if wall[0] > 0 && wall[1] > 0 {
		// Printed, not logged: a parent benchmark's log shows only with -test.v.
		fmt.Printf("%s: threads=1 / threads=2 wall %.2f×\n", b.Name(), wall[0]/wall[1])
	}
}

// catArrow is the CLI's `cat --format arrow` of path on threads goroutines, into a hash.
func catArrow(tb testing.TB, path string, threads int) uint32 {
	ctx := context.Background()
	f, err := pqscan.Open(ctx, path, pqscan.Options{Threads: threads})
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r, err := f.Scan(ctx, pqscan.ScanOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	w, err := rowfmt.New("arrow", h, r.Schema(), rowfmt.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return h.Sum32()
}
