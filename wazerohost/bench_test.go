package wazerohost

import (
	"context"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// BenchmarkCompile: New without any cache hit, i.e. what a process without a compilation cache
// pays to compile the module.
func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		cache := wazero.NewCompilationCache()
		h, err := New(context.Background(), Config{Cache: cache})
		if err != nil {
			b.Fatal(err)
		}
		h.Close(context.Background())
		cache.Close(context.Background())
	}
}

// BenchmarkCompileCached: New in a "new process" (a fresh cache object) whose cache directory
// was filled by an earlier one, and New within one process (the same cache object).
func BenchmarkCompileCached(b *testing.B) {
	dir := b.TempDir()
	warm, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	h, err := New(context.Background(), Config{Cache: warm})
	if err != nil {
		b.Fatal(err)
	}
	h.Close(context.Background())
	b.Run("disk", func(b *testing.B) {
		for b.Loop() {
			cache, err := wazero.NewCompilationCacheWithDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			h, err := New(context.Background(), Config{Cache: cache})
			if err != nil {
				b.Fatal(err)
			}
			h.Close(context.Background())
			cache.Close(context.Background())
		}
	})
	b.Run("process", func(b *testing.B) {
		for b.Loop() {
			h, err := New(context.Background(), Config{Cache: warm})
			if err != nil {
				b.Fatal(err)
			}
			h.Close(context.Background())
		}
	})
}

// BenchmarkDecode scans the same in-memory file with the native engine and through wazero in
// each iteration and reports both throughputs and their ratio (DESIGN.md §6 measured 10–13× for
// arrow-go code in wazero).
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{
		"parquet-testing/data/alltypes_tiny_pages_plain.parquet",
		"parquet-testing/data/delta_binary_packed.parquet",
	} {
		b.Run(name[len("parquet-testing/data/"):], func(b *testing.B) {
			file := testcorpus.Read(b, name)
			h := newHost(b, Config{})
			if _, err := runWasm(b, h, file, scan.Options{}); err != nil { // warm: instance pooled
				b.Fatal(err)
			}
			var native, wasm time.Duration
			for b.Loop() {
				t0 := time.Now()
				if r := runNative(b, file, scan.Options{}); r.err != "" {
					b.Fatal(r.err)
				}
				t1 := time.Now()
				if _, err := runWasm(b, h, file, scan.Options{}); err != nil {
					b.Fatal(err)
				}
				native, wasm = native+t1.Sub(t0), wasm+time.Since(t1)
			}
			mb := float64(len(file)) * float64(b.N) / 1e6
			b.ReportMetric(mb/native.Seconds(), "native-MB/s")
			b.ReportMetric(mb/wasm.Seconds(), "wazero-MB/s")
			b.ReportMetric(wasm.Seconds()/native.Seconds(), "wazero/native")
		})
	}
}
