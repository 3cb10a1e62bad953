package bench

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/events"
)

// BenchmarkThreads: every column of the sorted 4M-row events file (four 1M-row row groups,
// in memory, so only the engine is timed) scanned as one session (threads=1) and split into
// units on two goroutines (threads=2). It reports wall and CPU milliseconds per scan (the
// machine is shared: CPU time says how much work, wall time how long it took; compare both),
// and fails if the two return different bytes. The file comes from `make bench-events`
// (PQSCAN_BENCH_DIR); without it the benchmark is skipped.
func BenchmarkThreads(b *testing.B) {
	cfg := events.Config{Rows: 4_000_000, Layout: events.Sorted}
	path := filepath.Join(benchDir(), events.FileName(cfg))
	file, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no benchmark file (make bench-events): %v", err)
	}
	var sums [2]uint64
	var wall [2]float64
	for i, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			var units int
			cpu0, wall0 := cpuTime(), time.Now()
			for b.Loop() {
				sums[i], units = scanThreads(b, file, threads)
			}
			wall[i] = float64(time.Since(wall0).Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(wall[i], "wall-ms/op")
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(units), "units")
			b.SetBytes(int64(len(file)))
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

// scanThreads scans every column of file on threads goroutines and returns a hash of the
// IPC batches and the number of units.
func scanThreads(tb testing.TB, file []byte, threads int) (uint64, int) {
	ctx := context.Background()
	f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(file), int64(len(file)), pqscan.Options{Threads: threads})
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var so pqscan.ScanOptions
	if v, err := strconv.ParseInt(os.Getenv("PQSCAN_BENCH_MEMORY_CAP"), 10, 64); err == nil {
		so.MemoryCap = v // the memory cap the units share (0: the engine's default, 256 MiB)
	}
	r, err := f.Scan(ctx, so)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	for {
		b, err := r.NextIPC()
		if err == io.EOF {
			return uint64(h.Sum32()), r.Report().Units
		}
		if err != nil {
			tb.Fatal(err)
		}
		h.Write(b)
	}
}
