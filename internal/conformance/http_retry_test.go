package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testclock"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// openRows opens src as a dataset with opts and returns its file count and row count.
func openRows(t *testing.T, src string, opts pqscan.Options) (files, rows int, err error) {
	t.Helper()
	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, []string{src}, opts)
	if err != nil {
		return 0, 0, err
	}
	defer ds.Close()
	n, err := scanErr(ctx, ds, pqscan.ScanOptions{})
	return len(ds.Files()), n, err
}

// failFirst answers the first request for a path ending in suffix with code (and Retry-After
// when retryAfter is not ""), and passes every other request to next.
type failFirst struct {
	next               http.Handler
	suffix, retryAfter string
	code               int

	mu     sync.Mutex
	served int // requests for the path
}

func (f *failFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, f.suffix) {
		f.mu.Lock()
		f.served++
		first := f.served == 1
		f.mu.Unlock()
		if first {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			http.Error(w, "busy", f.code)
			return
		}
	}
	f.next.ServeHTTP(w, r)
}

// Test_deltaCommitRetried: a 503 or 429 on a _delta_log commit is retried with the range
// client's policy (Retry-After honoured), over a server that lists and one that does not
// (the log probed): the open succeeds and reads the same table. The waits go through
// HTTPOptions.Sleep, so nothing sleeps.
func Test_deltaCommitRetried(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	const rel = "dat/basic_append/delta"
	wantFiles, wantRows, err := openRows(t, filepath.Join(corpus, rel)+"/", pqscan.Options{})
	require.NoError(t, err)
	for _, c := range []struct {
		name       string
		code       int
		retryAfter string
		wantWait   string // the recorded wait, when the server named it
	}{
		{name: "503", code: http.StatusServiceUnavailable},
		{name: "429 Retry-After 0", code: http.StatusTooManyRequests, retryAfter: "0", wantWait: "[0s]"},
		{name: "429 Retry-After 1", code: http.StatusTooManyRequests, retryAfter: "1", wantWait: "[1s]"},
	} {
		for _, server := range []string{"listing", "plain"} {
			t.Run(c.name+" "+server, func(t *testing.T) {
				var next http.Handler = http.FileServer(http.Dir(corpus))
				if server == "listing" {
					next = faultserver.New(faultserver.Options{Dir: corpus})
				}
				h := &failFirst{next: next, suffix: "/_delta_log/00000000000000000001.json", code: c.code, retryAfter: c.retryAfter}
				srv := httptest.NewServer(h)
				defer srv.Close()
				rec := &testclock.Recorder{}
				files, rows, err := openRows(t, srv.URL+"/"+rel+"/", pqscan.Options{HTTP: pqscan.HTTPOptions{Sleep: rec.Sleep}})
				require.NoError(t, err)
				require.Equal(t, wantFiles, files)
				require.Equal(t, wantRows, rows)
				require.Equal(t, 2, h.served, "commit requests")
				require.Equal(t, 1, len(rec.Waits()), "retries")
				if c.wantWait != "" {
					require.Equal(t, c.wantWait, fmtDurations(rec.Waits()))
				}
			})
		}
	}
}

func fmtDurations(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

// Test_listingPageRetried: a 503 or 429 on every listing page's first request is retried: a
// Hive folder opens with all its files (the listing is its only source), and a Delta folder
// is recognised from its listing without falling back to probing the log.
func Test_listingPageRetried(t *testing.T) {
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 50},
		{dir: "event_date=2024-01-02", first: 100, rows: 60},
	}
	root, paths, _ := buildDataset(t, days)
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	const deltaRel = "dat/basic_append/delta"
	wantFiles, wantRows, err := openRows(t, filepath.Join(corpus, deltaRel)+"/", pqscan.Options{})
	require.NoError(t, err)
	for _, c := range []struct {
		name       string
		fault      string
		retryAfter int
	}{
		{name: "503", fault: faultserver.ModeList503Once},
		{name: "429 Retry-After 0", fault: faultserver.ModeList429Once},
		{name: "429 Retry-After 1", fault: faultserver.ModeList429Once, retryAfter: 1},
	} {
		t.Run(c.name+" hive", func(t *testing.T) {
			srv := faultserver.New(faultserver.Options{ListPageSize: 1, ListFault: c.fault, RetryAfter: c.retryAfter})
			for _, p := range paths {
				rel, _ := filepath.Rel(root, p)
				srv.Add("events/"+filepath.ToSlash(rel), must(os.ReadFile(p)))
			}
			base, err := srv.Start("127.0.0.1:0")
			require.NoError(t, err)
			defer srv.Close()
			rec := &testclock.Recorder{}
			files, rows, err := openRows(t, base+"/events/", pqscan.Options{HTTP: pqscan.HTTPOptions{Sleep: rec.Sleep}})
			require.NoError(t, err)
			require.Equal(t, 2, files)
			require.Equal(t, 110, rows)
			require.Equal(t, int64(4), srv.Stats()["/?list-type=2"].Requests, "listing requests: 2 pages, each twice")
			require.Equal(t, 2, len(rec.Waits()), "retries")
		})
		t.Run(c.name+" delta", func(t *testing.T) {
			srv := faultserver.New(faultserver.Options{Dir: corpus, ListFault: c.fault, RetryAfter: c.retryAfter})
			base, err := srv.Start("127.0.0.1:0")
			require.NoError(t, err)
			defer srv.Close()
			rec := &testclock.Recorder{}
			files, rows, err := openRows(t, base+"/"+deltaRel+"/", pqscan.Options{HTTP: pqscan.HTTPOptions{Sleep: rec.Sleep}})
			require.NoError(t, err)
			require.Equal(t, wantFiles, files)
			require.Equal(t, wantRows, rows)
			for p := range srv.Stats() {
				if p == "/?list-type=2" {
					continue
				}
				_, err := os.Stat(filepath.Join(corpus, filepath.FromSlash(p)))
				require.NoError(t, err, "a probe for an object that does not exist: the listing was given up")
			}
		})
	}
}
