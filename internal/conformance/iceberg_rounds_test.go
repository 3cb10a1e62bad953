package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
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

// Test_icebergDeletesWithFooters: a scan of an Iceberg table with deletion vectors fetches
// the vectors' blobs and the data files' footers in one round. The server holds the Puffin
// file's answer until the data file's tail has been asked for: a host that asked for the
// footer only once the vector was read would wait on itself (the guard gives up after 20 s
// and the test fails). With 20 ms added to every answer, the scan's round trips are counted
// (busy periods): the manifest, then the vector with the footers (the data files are small:
// their tails hold their pages).
func Test_icebergDeletesWithFooters(t *testing.T) {
	const (
		table  = "lithium__deletion_vectors"
		puffin = "dv-20260504_111849_00012_8gkte-2ed65adb-8895-4026-bb5e-efcedbf874e5.puffin"
		data   = "20260504_111440_00009_8gkte-580c7fe8-68ec-4a8b-8bce-a37f4af02113.parquet"
	)
	fs := faultserver.New(faultserver.Options{Dir: filepath.Join(testcorpus.Dir(t), "iceberg", "tables")})
	var mu sync.Mutex
	var tail chan struct{}
	var once *sync.Once
	var timedOut atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		tail, once := tail, once
		mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, data):
			once.Do(func() { close(tail) })
		case strings.HasSuffix(r.URL.Path, puffin):
			select {
			case <-tail:
			case <-time.After(20 * time.Second):
				timedOut.Store(true)
			}
		}
		fs.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		mu.Lock()
		tail, once = make(chan struct{}), &sync.Once{}
		mu.Unlock()
		bt := &busyTransport{}
		ds, err := pqscan.OpenDataset(ctx, []string{srv.URL + "/" + table + "/"},
			pqscan.Options{Engine: eng, HTTP: pqscan.HTTPOptions{Client: &http.Client{Transport: bt}}})
		require.NoError(t, err)
		opened := bt.periods
		rows := datasetRows(t, ds)
		ds.Close()
		require.Equal(t, 8, len(rows))
		require.True(t, !timedOut.Load(), "the footer was asked only after the deletion vector")
		require.Equal(t, 2, bt.periods-opened, "round trips of the scan")
	}
}
