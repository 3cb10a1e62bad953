package bench

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// inPageQueries are filtered scans of every column whose matches are sparse inside the
// pages they touch; the two-predicate ones are written in both orders.
var inPageQueries = []string{
	"value > 990",
	"country = 'US' AND value > 990",
	"value > 990 AND country = 'US'",
}

// BenchmarkInPage: decode time of those scans on the unsorted 4M-row events file (in
// memory, so only the engine is timed), decoding whole pages (LateMaterializationThreshold
// -1, what every page holding a match cost before) against skipping runs of at least 20
// filtered rows (the default). It fails if the two return different bytes, and prints the
// ratio per query. The file (PQSCAN_BENCH_ROWS rows, default 4M) comes from `make
// bench-events` (PQSCAN_BENCH_DIR); without it the benchmark is skipped: it is never
// generated here.
func BenchmarkInPage(b *testing.B) {
	rows := 4_000_000
	if v, err := strconv.Atoi(os.Getenv("PQSCAN_BENCH_ROWS")); err == nil && v > 0 {
		rows = v // make bench-inpage passes BENCH_ROWS
	}
	cfg := events.Config{Rows: rows, Layout: events.Unsorted}
	path := filepath.Join(benchDir(), events.FileName(cfg))
	file, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no benchmark file (make bench-events): %v", err)
	}
	for _, q := range inPageQueries {
		var ms [2]float64
		var sums [2]uint64
		for i, th := range []int{-1, 0} {
			b.Run(fmt.Sprintf("%s/threshold=%d", q, th), func(b *testing.B) {
				var rep scan.Report
				cpu0 := cpuTime()
				for b.Loop() {
					sums[i], rep = scanWhere(b, file, scan.Options{Where: q, LateMaterializationThreshold: th})
				}
				// CPU time, not wall time: the machine is shared, and CPU time varies less
				// with what else runs (it includes the GC's).
				ms[i] = float64((cpuTime() - cpu0).Microseconds()) / 1000 / float64(b.N)
				b.ReportMetric(ms[i], "cpu-ms/op")
				b.ReportMetric(float64(rep.ValuesSkipped), "values-skipped")
				b.ReportMetric(float64(rep.RowsReturned), "rows")
			})
		}
		if sums[0] != sums[1] {
			b.Fatalf("%s: whole pages and skipped runs return different bytes", q)
		}
		if ms[0] > 0 && ms[1] > 0 {
			fmt.Printf("BenchmarkInPage %q: CPU time whole pages %.1f ms, runs skipped %.1f ms: skipped/whole = %.2f (same IPC bytes, fnv %x)\n", q, ms[0], ms[1], ms[1]/ms[0], sums[0])
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// scanWhere runs one scan of an in-memory file and returns a hash of the IPC it produced and
// the report.
func scanWhere(tb testing.TB, file []byte, opts scan.Options) (uint64, scan.Report) {
	opts.FileSize = int64(len(file))
	s, err := scan.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	h := fnv.New64a()
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	if _, err := drive.Run(context.Background(), s, src, true, func(b []byte) error {
		h.Write(b)
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return h.Sum64(), s.Report()
}
