package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/icebergtest"
)

// BenchmarkIceberg: a generated Iceberg table of 100 files in 10 partitions (one manifest
// each) over HTTP with 20 ms added to every answer and a ListObjectsV2 listing; one
// partition's rows read, the table opened either by its folder (listing, version hint) or by
// its metadata file. Reports the requests, response bytes and round trips (busy periods) of
// the open and of the query. Needs PQSCAN_TESTDATA (the template table).
func BenchmarkIceberg(b *testing.B) {
	corpus := os.Getenv("PQSCAN_TESTDATA")
	if corpus == "" {
		b.Skip("PQSCAN_TESTDATA is not set")
	}
	tbl := icebergtest.Table{Parts: 10, Files: 10, Rows: 1000}
	root := b.TempDir()
	if err := tbl.Write(filepath.Join(root, "t"), filepath.Join(corpus, icebergtest.Template)); err != nil {
		b.Fatal(err)
	}
	srv := faultserver.New(faultserver.Options{Dir: root, Latency: 20 * time.Millisecond})
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	for _, src := range []struct{ name, url string }{{"folder", base + "/t/"}, {"metadata-file", base + "/t/metadata/v1.metadata.json"}} {
		b.Run(src.name, func(b *testing.B) {
			ctx := context.Background()
			rc := &roundCounter{next: http.DefaultTransport}
			var openRounds, rounds int
			var openReq, req, bytes int64
			for b.Loop() {
				srv.Reset()
				rc.reset()
				ds, err := pqscan.OpenDataset(ctx, []string{src.url}, pqscan.Options{HTTP: pqscan.HTTPOptions{Client: &http.Client{Transport: rc}}})
				if err != nil {
					b.Fatal(err)
				}
				openRounds, openReq = rc.rounds(), srv.Total().Requests
				n, err := countRows(ctx, ds, pqscan.ScanOptions{Where: "c1 = 7"})
				ds.Close()
				if err != nil || n != int64(tbl.Files*tbl.Rows) {
					b.Fatal(n, err)
				}
				rounds, req, bytes = rc.rounds()-openRounds, srv.Total().Requests-openReq, srv.Total().Bytes
			}
			b.ReportMetric(float64(openRounds), "open-rounds")
			b.ReportMetric(float64(openReq), "open-requests")
			b.ReportMetric(float64(rounds), "query-rounds")
			b.ReportMetric(float64(req), "query-requests")
			b.ReportMetric(float64(bytes), "bytes")
			fmt.Fprintf(os.Stderr, "iceberg %s: open %d requests in %d rounds; c1 = 7: %d requests in %d rounds; %d B in all\n",
				src.name, openReq, openRounds, req, rounds, bytes)
		})
	}
}

// countRows reads every row of the scan o and counts them.
func countRows(ctx context.Context, ds *pqscan.Dataset, o pqscan.ScanOptions) (int64, error) {
	r, err := ds.Scan(ctx, o)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += rec.NumRows()
		rec.Release()
	}
}
