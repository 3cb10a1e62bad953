package conformance

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_deltaHTTP: Delta tables served by a plain file server (no listing: its attempt fails,
// then _last_checkpoint, then commits probed in parallel batches until a 404; checkpoints and data files by range requests) read the
// same as from the local folder, at the latest and an older version; a folder URL without a
// log is a clear error.
func Test_deltaHTTP(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.FileServer(http.Dir(corpus)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	v0, v5 := int64(0), int64(5)
	for _, c := range []struct {
		rel     string
		version *int64
	}{
		{"dat/basic_append/delta", nil}, {"dat/basic_append/delta", &v0}, {"dat/multi_partitioned/delta", nil},
		{"dat/with_schema_change/delta", nil}, {"delta-rs/simple_table_with_checkpoint", nil},
		{"delta-rs/simple_table_with_checkpoint", &v5}, {"delta-rs/checkpoint-v2-table", nil},
		{"delta-rs/delta-0.8.0-special-partition", nil}, {"delta-rs/table-with-dv-small", nil}, {"delta-rs/table_with_deletion_logs", nil},
	} {
		want, _, err := deltaRows(t, filepath.Join(corpus, c.rel), c.version, pqscan.ScanOptions{})
		require.NoError(t, err, c.rel)
		got, _, err := deltaRows(t, srv.URL+"/"+c.rel, c.version, pqscan.ScanOptions{})
		require.NoError(t, err, c.rel)
		sameRows(t, "http "+c.rel, got, want)
	}
	_, err := pqscan.OpenDataset(context.Background(), []string{srv.URL + "/dat/"}, pqscan.Options{})
	require.ErrorIs(t, err, pqscan.ErrSource)
	require.ErrorContains(t, err, "no Delta log")
}

// Test_deltaOpenReadsNoFooter: the Delta log is the table schema, so opening the table reads
// its log only, and a scan whose partition predicate keeps one partition reads only that
// partition's files (no footer of another).
func Test_deltaOpenReadsNoFooter(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.URL.Query().Get("list-type") == "" { // the folder's listing attempt (a file server does not list)
			paths = append(paths, r.URL.Path)
		}
		mu.Unlock()
		http.FileServer(http.Dir(corpus)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	data := func() (out []string) {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range paths {
			if !strings.Contains(p, "/_delta_log/") {
				out = append(out, p)
			}
		}
		paths = nil
		return out
	}
	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, []string{srv.URL + "/dat/basic_partitioned/delta/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	require.Equal(t, []string(nil), data())
	require.Equal(t, "letter", ds.Schema().Field(ds.Schema().NumFields()-1).Name)
	r, err := ds.Scan(ctx, pqscan.ScanOptions{Where: "letter = 'a'"})
	require.NoError(t, err)
	n := 0
	for {
		rec, err := r.Next()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		n += int(rec.NumRows())
		rec.Release()
	}
	r.Close()
	require.True(t, n > 0)
	got := data()
	require.True(t, len(got) > 0)
	for _, p := range got {
		require.True(t, strings.Contains(p, "letter=a/"), p)
	}
}
