package bench

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// BenchmarkValueColumn is the browser benchmark's full scan (Q3, sum(value)) natively: the one
// DOUBLE column of every layout decoded into Arrow IPC on one goroutine, from memory, so only
// decompression, decoding and IPC writing are timed. Rows: PQSCAN_DECODE_ROWS.
func BenchmarkValueColumn(b *testing.B) {
	for _, layout := range events.Layouts {
		b.Run(string(layout), func(b *testing.B) {
			path, err := events.Cached(benchDir(), events.Config{Rows: decodeRows(b), Layout: layout})
			if err != nil {
				b.Fatal(err)
			}
			file, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				s, err := scan.New(scan.Options{FileSize: int64(len(file)), Columns: []string{"value"}})
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
				if _, err := drive.Run(context.Background(), s, src, true, func(p []byte) error {
					n += int64(len(p))
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/1e6, "IPC-MB")
		})
	}
}
