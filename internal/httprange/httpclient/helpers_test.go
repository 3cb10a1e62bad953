package httpclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
)

func testData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	return b
}

// reqLog records the headers of every request that reaches the server, and the peak number of
// requests in flight.
type reqLog struct {
	mu       sync.Mutex
	reqs     []http.Header
	inFlight atomic.Int64
	peak     atomic.Int64
}

func (l *reqLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := l.inFlight.Add(1)
		defer l.inFlight.Add(-1)
		for {
			p := l.peak.Load()
			if n <= p || l.peak.CompareAndSwap(p, n) {
				break
			}
		}
		l.mu.Lock()
		hdr := r.Header.Clone()
		hdr.Set("X-Method", r.Method)
		hdr.Set("X-Path", r.URL.Path)
		l.reqs = append(l.reqs, hdr)
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *reqLog) header(name string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, h := range l.reqs {
		out = append(out, h.Get(name))
	}
	return out
}

// serve starts a faultserver holding f.bin = data behind a request log, on 127.0.0.1.
func serve(t *testing.T, data []byte, opt faultserver.Options) (*faultserver.Server, string, *reqLog) {
	t.Helper()
	fs := faultserver.New(opt)
	fs.Add("f.bin", data)
	log := &reqLog{}
	ts := httptest.NewServer(log.wrap(fs))
	t.Cleanup(ts.Close)
	return fs, ts.URL, log
}

// fastOpt are Options with short backoffs so that retry tests stay fast.
func fastOpt() Options {
	return Options{
		Client:     &http.Client{Timeout: 10 * time.Second},
		Backoff:    time.Millisecond,
		MaxBackoff: 5 * time.Millisecond,
	}
}

// collect fetches ranges and returns the delivered bytes keyed by offset.
func collect(t *testing.T, src Source, ranges []httprange.Range) (map[int64][]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := map[int64][]byte{}
	err := src.Fetch(ctx, ranges, func(off int64, b []byte) error {
		_, dup := got[off]
		require.True(t, !dup, "deliver called twice for", off)
		got[off] = append([]byte{}, b...)
		return nil
	})
	return got, err
}

// expect returns the bytes of ranges out of data, keyed by offset.
func expect(data []byte, ranges []httprange.Range) map[int64][]byte {
	out := map[int64][]byte{}
	for _, r := range ranges {
		out[r.Off] = append([]byte{}, data[r.Off:r.End()]...)
	}
	return out
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}
