package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/icebergtest"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_icebergGenerated100: a generated table of 100 files in 10 partitions, one manifest
// each, over HTTP with 20 ms added to every answer, opened by its metadata file's URL. A
// one-partition query fetches only that partition's manifest and files, in at most the floor
// plus one round trips (metadata → manifest list → its manifest → footers → pages: 5; here the
// footers' tails hold the pages, and the Go host fetches from 8 files at once); its rows,
// count and min/max are those known by construction, and a query on one file's c3 range
// fetches only that file (and the manifests, which c3 does not partition).
func Test_icebergGenerated100(t *testing.T) {
	tbl := icebergtest.Table{Parts: 10, Files: 10, Rows: 100}
	root := t.TempDir()
	require.NoError(t, tbl.Write(root, filepath.Join(testcorpus.Dir(t), icebergtest.Template)))
	log := &requestLog{h: http.FileServer(http.Dir(root))}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		log.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	const part = 7
	var want []string
	for f := range tbl.Files {
		for r := range tbl.Rows {
			want = append(want, fmt.Sprintf(`{"c1":"%d","c2":"2025-03-03","c3":"%g"}`, part, tbl.C3(part, f, r)))
		}
	}
	var files []string
	for f := range tbl.Files {
		files = append(files, icebergtest.DataFile(part, f))
	}
	for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		bt := &busyTransport{}
		ds, err := pqscan.OpenDataset(ctx, []string{srv.URL + "/metadata/v1.metadata.json"}, pqscan.Options{Engine: eng, HTTP: pqscan.HTTPOptions{Client: &http.Client{Transport: bt}}})
		require.NoError(t, err)
		log.take("/")
		got := datasetRowsWhere(t, ds, pqscan.ScanOptions{Where: fmt.Sprintf("c1 = %d", part)})
		require.Equal(t, len(want), len(got))
		require.Equal(t, sortedCopy(want), got)
		require.Equal(t, sortedCopy(append([]string{icebergtest.Manifest(part)}, files...)), sortedCopy(log.take("/")))
		require.True(t, bt.periods <= 5+1, "round trips:", bt.periods)
		t.Logf("%T: c1 = %d: %d requests, %d round trips (open and scan)", eng, part, bt.requests, bt.periods)

		n, _, err := ds.Count(ctx, pqscan.ScanOptions{Where: fmt.Sprintf("c1 = %d", part)})
		require.NoError(t, err)
		require.Equal(t, int64(tbl.Files*tbl.Rows), n)
		rec, _, err := ds.MinMax(ctx, "c3", pqscan.ScanOptions{Where: fmt.Sprintf("c1 = %d", part)})
		require.NoError(t, err)
		require.Equal(t, []any{fmt.Sprint(tbl.C3(part, 0, 0)), fmt.Sprint(tbl.C3(part, tbl.Files-1, tbl.Rows-1))},
			[]any{arrowCanon(rec.Column(0), 0), arrowCanon(rec.Column(1), 0)})
		rec.Release()
		require.Equal(t, 0, len(log.take("/")), "count and min/max from what the scan read")

		lo := tbl.C3(3, 4, 10)
		got = datasetRowsWhere(t, ds, pqscan.ScanOptions{Where: fmt.Sprintf("c3 >= %g AND c3 < %g", lo, lo+5)})
		require.Equal(t, 5, len(got))
		// c3 is no partition field: every manifest not read yet is, then one file.
		wantReq := []string{icebergtest.DataFile(3, 4)}
		for p := range tbl.Parts {
			if p != part {
				wantReq = append(wantReq, icebergtest.Manifest(p))
			}
		}
		require.Equal(t, sortedCopy(wantReq), sortedCopy(log.take("/")))
		ds.Close()
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
