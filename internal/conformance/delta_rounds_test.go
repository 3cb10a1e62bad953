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
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// busyTransport counts requests, response bytes and busy periods (a request starting while
// none is in flight begins one): with a server that adds latency to every answer, a busy
// period is a round trip of the host.
type busyTransport struct {
	mu       sync.Mutex
	inFlight int
	periods  int
	requests int
	bytes    atomic.Int64
}

func (b *busyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b.mu.Lock()
	if b.inFlight == 0 {
		b.periods++
	}
	b.inFlight++
	b.requests++
	b.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = &countBody{resp.Body, b}
	} else {
		b.done()
	}
	return resp, err
}

func (b *busyTransport) done() {
	b.mu.Lock()
	b.inFlight--
	b.mu.Unlock()
}

type countBody struct {
	rc interface {
		Read([]byte) (int, error)
		Close() error
	}
	b *busyTransport
}

func (c *countBody) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	c.b.bytes.Add(int64(n))
	return n, err
}

func (c *countBody) Close() error {
	err := c.rc.Close()
	c.b.done()
	return err
}

// Test_deltaOpenRounds (evidence, PQSCAN_EVIDENCE=1): opening each test Delta table over a
// plain file server (no listing: probed) with 20 ms added to every answer; logs the
// requests, response bytes and round trips (busy periods) of each open.
func Test_deltaOpenRounds(t *testing.T) {
	if os.Getenv("PQSCAN_EVIDENCE") == "" {
		t.Skip("evidence run: PQSCAN_EVIDENCE=1")
	}
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		if r.URL.Query().Get("list-type") != "" {
			http.NotFound(w, r)
			return
		}
		http.FileServer(http.Dir(corpus)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	var tables []string
	for _, pat := range []string{"dat/*/delta", "delta-rs/*"} {
		m, _ := filepath.Glob(filepath.Join(corpus, pat))
		tables = append(tables, m...)
	}
	var sumReq, sumRounds int
	var sumBytes int64
	for _, root := range tables {
		rel, _ := filepath.Rel(corpus, root)
		bt := &busyTransport{}
		ds, err := pqscan.OpenDataset(context.Background(), []string{srv.URL + "/" + filepath.ToSlash(rel) + "/"},
			pqscan.Options{HTTP: pqscan.HTTPOptions{Client: &http.Client{Transport: bt}}, DeferSchema: true})
		status := "ok"
		if err != nil {
			status = "error: " + strings.SplitN(err.Error(), ":", 2)[0]
		} else {
			ds.Close()
		}
		t.Logf("%-52s %3d requests %8d B %2d round trips  %s", rel, bt.requests, bt.bytes.Load(), bt.periods, status)
		sumReq, sumRounds, sumBytes = sumReq+bt.requests, sumRounds+bt.periods, sumBytes+bt.bytes.Load()
	}
	t.Logf("total: %d requests, %d B, %d round trips over %d tables", sumReq, sumBytes, sumRounds, len(tables))
	require.True(t, len(tables) >= 18)
}

// Test_deltaCheckpointWithCommits: probed over a plain server, the checkpoint after
// _last_checkpoint and the commits after it are one round: the server holds the first probed
// commit until the checkpoint's request has arrived. A host that read the checkpoint only
// after the commits were answered would wait on itself (the guard gives up after 20 s and
// the test fails).
func Test_deltaCheckpointWithCommits(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	const rel = "delta-rs/simple_table_with_checkpoint"
	cp := make(chan struct{})
	var once sync.Once
	var timedOut atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, ".checkpoint.parquet"):
			once.Do(func() { close(cp) })
		case strings.HasSuffix(r.URL.Path, "/_delta_log/00000000000000000011.json"):
			select {
			case <-cp:
			case <-time.After(20 * time.Second):
				timedOut.Store(true)
			}
		}
		http.FileServer(http.Dir(corpus)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	want, _, err := deltaRows(t, filepath.Join(corpus, rel), nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	got, _, err := deltaRows(t, srv.URL+"/"+rel, nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	sameRows(t, "probed", got, want)
	require.True(t, !timedOut.Load(), "the checkpoint was not read in the round of the commits after it")
}
