package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// Environment of the benchmarks (go test runs in bench/, so paths are relative to it):
//
//	PQSCAN_BENCH_DIR   cache directory of generated files (default ../.cache/events)
//	PQSCAN_DECODE_ROWS rows of BenchmarkDecode's file (default 500000)
func benchDir() string {
	if d := os.Getenv("PQSCAN_BENCH_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", ".cache", "events")
}

func decodeRows(tb testing.TB) int {
	if s := os.Getenv("PQSCAN_DECODE_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			tb.Fatalf("PQSCAN_DECODE_ROWS=%q", s)
		}
		return n
	}
	return 500_000
}

// decodeFile is the sorted-layout file BenchmarkDecode reads, generated once into the cache.
func decodeFile(tb testing.TB) []byte {
	path, err := events.Cached(benchDir(), events.Config{Rows: decodeRows(tb), Layout: events.Sorted})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// throughput records the last run of each BenchmarkDecode sub-benchmark (compressed MB/s),
// printed side by side with their ratio by TestMain.
var throughput struct {
	sync.Mutex
	mbps map[string]float64
	size int
}

func record(b *testing.B, name string, size int) {
	throughput.Lock()
	defer throughput.Unlock()
	if throughput.mbps == nil {
		throughput.mbps = map[string]float64{}
	}
	throughput.mbps[name] = float64(size) * float64(b.N) / b.Elapsed().Seconds() / 1e6
	throughput.size = size
}

func TestMain(m *testing.M) {
	code := m.Run()
	throughput.Lock()
	p, a := throughput.mbps["pqscan"], throughput.mbps["arrowgo"]
	throughput.Unlock()
	if p > 0 && a > 0 {
		fmt.Printf("BenchmarkDecode: %.1f MB compressed file: pqscan %.1f MB/s into IPC, arrow-go pqarrow %.1f MB/s into arrays: pqscan/arrow-go = %.2f\n",
			float64(throughput.size)/1e6, p, a, p/a)
	}
	os.Exit(code)
}

// scanAll decodes every column of the whole file into Arrow IPC with the native engine and
// returns the IPC bytes produced.
func scanAll(tb testing.TB, file []byte) int64 {
	s, err := scan.New(scan.Options{FileSize: int64(len(file))})
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	if _, err := drive.Run(context.Background(), s, src, true, func(b []byte) error {
		n += int64(len(b))
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkDecode reads every column of the whole file: pqscan into Arrow IPC streams,
// arrow-go with pqarrow.ReadTable into in-memory arrays (single-threaded, its default).
// MB/s is compressed file bytes per second.
func BenchmarkDecode(b *testing.B) {
	file := decodeFile(b)
	b.Run("pqscan", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		var ipcBytes int64
		for b.Loop() {
			ipcBytes = scanAll(b, file)
		}
		b.ReportMetric(float64(ipcBytes)/1e6, "IPC-MB")
		record(b, "pqscan", len(file))
	})
	b.Run("arrowgo", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		mem := memory.DefaultAllocator
		for b.Loop() {
			tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(file),
				parquet.NewReaderProperties(mem), pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, mem)
			if err != nil {
				b.Fatal(err)
			}
			tbl.Release()
		}
		record(b, "arrowgo", len(file))
	})
}
