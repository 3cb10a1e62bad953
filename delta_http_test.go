package pqscan_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_deltaHTTP: Delta tables served by a plain file server (no listing: _last_checkpoint,
// then commits probed until a 404; checkpoints and data files by range requests) read the
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
		{"delta-rs/delta-0.8.0-special-partition", nil},
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
	_, err = pqscan.OpenDataset(context.Background(), []string{srv.URL + "/delta-rs/table-with-dv-small/"}, pqscan.Options{})
	require.ErrorIs(t, err, pqscan.ErrUnsupportedFeature)
}
