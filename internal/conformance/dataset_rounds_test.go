package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_deltaHTTPListing: over a server that lists (ListObjectsV2), an http(s) Delta folder is
// recognised from the folder's one listing, which also gives the log's entries: no
// _last_checkpoint or commit is probed (every request is for a listed object), and the
// listing stops at the first page past _delta_log/ (the data files are the log's to name).
// A listing that fails (a service error, a truncated page) falls back to probing, which
// reads the same table.
func Test_deltaHTTPListing(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	for _, c := range []struct {
		rel       string
		fault     string
		listPages int64 // listing requests; 0: not checked
	}{
		{rel: "dat/basic_partitioned/delta", listPages: 2}, // 2 log entries, then letter=…: the 3rd page is not read
		{rel: "dat/multi_partitioned/delta"},
		{rel: "delta-rs/simple_table_with_checkpoint"},
		{rel: "delta-rs/checkpoint-v2-table"},
		{rel: "dat/basic_partitioned/delta", fault: faultserver.ModeListError},
		{rel: "delta-rs/simple_table_with_checkpoint", fault: faultserver.ModeListTruncated},
	} {
		t.Run(c.rel+" "+c.fault, func(t *testing.T) {
			srv := faultserver.New(faultserver.Options{Dir: corpus, ListPageSize: 2, ListFault: c.fault})
			base, err := srv.Start("127.0.0.1:0")
			require.NoError(t, err)
			defer srv.Close()
			want, _, err := deltaRows(t, filepath.Join(corpus, c.rel), nil, pqscan.ScanOptions{})
			require.NoError(t, err)
			got, _, err := deltaRows(t, base+"/"+c.rel, nil, pqscan.ScanOptions{})
			require.NoError(t, err)
			sameRows(t, c.rel, got, want)
			probed := false
			for p, st := range srv.Stats() {
				if p == "/?list-type=2" {
					if c.listPages > 0 {
						require.Equal(t, c.listPages, st.Requests, "listing pages")
					}
					continue
				}
				if _, err := os.Stat(filepath.Join(corpus, filepath.FromSlash(p))); err != nil {
					probed = true // a request for an object that does not exist: a probe
				}
			}
			require.Equal(t, c.fault != "", probed, "probed")
		})
	}
}

// Test_deltaHTTPProbeBatch: without a listing the commits are probed in batches whose
// requests are in flight together (one round each), not one after another. The discovery's
// probe has read commit 0 already (it is what shows the folder is a Delta table), so the
// server holds the other seven probes of the first batch until all have arrived; fetched
// one at a time, the first would wait for the others forever (the guard gives up after 20 s
// and fails).
func Test_deltaHTTPProbeBatch(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	const batch = 8 - 1
	var arrived atomic.Int64
	all := make(chan struct{})
	var once sync.Once
	var timedOut atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/_delta_log/0") && strings.HasSuffix(r.URL.Path, ".json") &&
			!strings.HasSuffix(r.URL.Path, "/00000000000000000000.json") {
			if arrived.Add(1) == batch {
				once.Do(func() { close(all) })
			}
			select {
			case <-all:
			case <-time.After(20 * time.Second):
				timedOut.Store(true)
			}
		}
		http.FileServer(http.Dir(corpus)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	want, _, err := deltaRows(t, filepath.Join(corpus, "dat/basic_append/delta"), nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	got, _, err := deltaRows(t, srv.URL+"/dat/basic_append/delta", nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	sameRows(t, "probed", got, want)
	require.True(t, !timedOut.Load(), "the probes of one batch were not in flight together")
	require.Equal(t, int64(batch), arrived.Load())
}

// Test_datasetHTTPFolderRounds: a plain Hive folder over a listing server costs its listing
// pages and nothing else at open (no Delta probe: the listing shows there is no log), and a
// listing that fails during that check is an error naming the listing, not a partial table.
func Test_datasetHTTPFolderRounds(t *testing.T) {
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 50},
		{dir: "event_date=2024-01-02", first: 100, rows: 60},
	}
	root, paths, _ := buildDataset(t, days)
	ctx := context.Background()
	for _, fault := range []string{"", faultserver.ModeListError, faultserver.ModeListTruncated} {
		srv := faultserver.New(faultserver.Options{ListPageSize: 1, ListFault: fault})
		for _, p := range paths {
			rel, _ := filepath.Rel(root, p)
			srv.Add("events/"+filepath.ToSlash(rel), must(os.ReadFile(p)))
		}
		base, err := srv.Start("127.0.0.1:0")
		require.NoError(t, err)
		ds, err := pqscan.OpenDataset(ctx, []string{base + "/events/"}, pqscan.Options{DeferSchema: true})
		st := srv.Stats()
		srv.Close()
		if fault != "" {
			require.ErrorIs(t, err, pqscan.ErrSource)
			require.ErrorContains(t, err, "listing")
			continue
		}
		require.NoError(t, err)
		require.Equal(t, 2, len(ds.Files()))
		ds.Close()
		require.Equal(t, 1, len(st), "paths requested at open: %v", st)
		require.Equal(t, int64(2), st["/?list-type=2"].Requests)
	}
}
