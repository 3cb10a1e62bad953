package faultserver

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testclock"
)

func testData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	return b
}

func start(t *testing.T, opt Options) (*Server, string) {
	t.Helper()
	s := New(opt)
	base, err := s.Start("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, base
}

// client never decompresses and does not follow redirects unless asked.
func client(follow bool) *http.Client {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	if !follow {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return c
}

type result struct {
	status  int
	header  http.Header
	body    []byte
	bodyErr error
}

func get(t *testing.T, c *http.Client, url string, hdr map[string]string) result {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: body, bodyErr: err}
}

// want is the expectation for one attempt; empty fields are not checked.
type want struct {
	status       int
	contentRange string
	noCR         bool
	body         []byte
	bodyErr      bool
	header       map[string]string
	hdr          map[string]string // request headers for this attempt
	check        func(t *testing.T, r result)
}

func TestServer_modes(t *testing.T) {
	data := testData(100)
	inverted := bytes.Clone(data)
	for i := range inverted {
		inverted[i] ^= 0xFF
	}
	rng := map[string]string{"Range": "bytes=10-19"}
	tests := []struct {
		name     string
		path     string
		attempts []want
	}{
		{name: "good", path: "/f.bin", attempts: []want{{
			status: 206, contentRange: "bytes 10-19/100", body: data[10:20], hdr: rng,
			header: map[string]string{
				"Access-Control-Allow-Origin":   "*",
				"Access-Control-Expose-Headers": "Content-Range, Content-Length, ETag, Last-Modified, Accept-Ranges",
				"Accept-Ranges":                 "bytes",
			},
			check: func(t *testing.T, r result) { require.True(t, r.header.Get("ETag") != "", "ETag") },
		}}},
		{name: "good without Range", path: "/f.bin", attempts: []want{{status: 200, body: data}}},
		{name: "ignore-range", path: "/fault/ignore-range/f.bin", attempts: []want{
			{status: 200, noCR: true, body: data, hdr: rng, header: map[string]string{"Accept-Ranges": "none"}},
		}},
		{name: "wrong-range", path: "/fault/wrong-range/f.bin", attempts: []want{
			{status: 206, contentRange: "bytes 11-20/100", body: data[11:21], hdr: rng},
			{status: 206, contentRange: "bytes 89-98/100", body: data[89:99], hdr: map[string]string{"Range": "bytes=90-99"}},
		}},
		{name: "no-content-range", path: "/fault/no-content-range/f.bin", attempts: []want{
			{status: 206, noCR: true, body: data[10:20], hdr: rng},
		}},
		{name: "short-body", path: "/fault/short-body/f.bin", attempts: []want{
			{status: 206, contentRange: "bytes 10-19/100", body: data[10:15], hdr: rng},
			{status: 206, contentRange: "bytes 10-19/100", body: data[10:15], hdr: rng},
		}},
		{name: "reset-once", path: "/fault/reset-once/f.bin", attempts: []want{
			{status: 206, contentRange: "bytes 10-19/100", bodyErr: true, hdr: rng},
			{status: 206, contentRange: "bytes 10-19/100", body: data[10:20], hdr: rng},
		}},
		{name: "reset-always", path: "/fault/reset-always/f.bin", attempts: []want{
			{status: 206, bodyErr: true, hdr: rng},
			{status: 206, bodyErr: true, hdr: rng},
		}},
		{name: "503-once", path: "/fault/503-once/f.bin", attempts: []want{
			{status: 503, header: map[string]string{"Retry-After": "0"}, hdr: rng},
			{status: 206, body: data[10:20], hdr: rng},
		}},
		{name: "429-once", path: "/fault/429-once/f.bin", attempts: []want{
			{status: 429, header: map[string]string{"Retry-After": "0"}, hdr: rng},
			{status: 206, body: data[10:20], hdr: rng},
		}},
		{name: "etag-change with If-Match", path: "/fault/etag-change/f.bin", attempts: []want{
			{status: 206, body: data[10:20], hdr: rng},
			{status: 412, hdr: map[string]string{"Range": "bytes=10-19", "If-Match": `"` + "will be replaced" + `"`}},
		}},
		{name: "etag-change without If-Match", path: "/fault/etag-change/f.bin", attempts: []want{
			{status: 206, body: data[10:20], hdr: rng},
			{status: 206, body: inverted[10:20], hdr: rng, check: func(t *testing.T, r result) {
				require.True(t, bytes.HasSuffix([]byte(r.header.Get("ETag")), []byte(`-v2"`)), r.header.Get("ETag"))
			}},
		}},
		{name: "truncate", path: "/fault/truncate/f.bin", attempts: []want{
			{status: 206, contentRange: "bytes 10-19/100", hdr: rng},
			{status: 206, contentRange: "bytes 10-19/50", body: data[10:20], hdr: rng},
			{status: 416, contentRange: "bytes */50", hdr: map[string]string{"Range": "bytes=60-69"}},
		}},
		{name: "gzip", path: "/fault/gzip/f.bin", attempts: []want{
			{status: 206, contentRange: "bytes 10-19/100", hdr: map[string]string{"Range": "bytes=10-19", "Accept-Encoding": "identity"},
				header: map[string]string{"Content-Encoding": "gzip"},
				check: func(t *testing.T, r result) {
					zr, err := gzip.NewReader(bytes.NewReader(r.body))
					require.NoError(t, err)
					plain, err := io.ReadAll(zr)
					require.NoError(t, err)
					require.Equal(t, data[10:20], plain)
				}},
		}},
		{name: "redirect", path: "/fault/redirect/f.bin?x=1", attempts: []want{
			{status: 307, hdr: rng, check: func(t *testing.T, r result) {
				require.Equal(t, "/f.bin?x=1", r.header.Get("Location")[len("http://127.0.0.1:")+len(portOf(r.header.Get("Location"))):])
			}},
		}},
		{name: "no-expose", path: "/fault/no-expose/f.bin", attempts: []want{
			{status: 206, body: data[10:20], hdr: rng, check: func(t *testing.T, r result) {
				require.Equal(t, "", r.header.Get("Access-Control-Expose-Headers"))
				require.Equal(t, "*", r.header.Get("Access-Control-Allow-Origin"))
			}},
		}},
		{name: "unknown mode", path: "/fault/nope/f.bin", attempts: []want{{status: 404}}},
		{name: "missing file", path: "/nope.bin", attempts: []want{{status: 404}}},
		{name: "traversal", path: "/../../etc/passwd", attempts: []want{{status: 404}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, base := start(t, Options{})
			s.Add("f.bin", data)
			c := client(false)
			var last result
			for i, w := range tc.attempts {
				hdr := w.hdr
				if hdr["If-Match"] != "" {
					hdr = map[string]string{"Range": hdr["Range"], "If-Match": last.header.Get("ETag")}
				}
				r := get(t, c, base+tc.path, hdr)
				require.Equal(t, w.status, r.status, "attempt", i)
				if w.contentRange != "" {
					require.Equal(t, w.contentRange, r.header.Get("Content-Range"), "attempt", i)
				}
				if w.noCR {
					require.Equal(t, "", r.header.Get("Content-Range"), "attempt", i)
				}
				if w.bodyErr {
					require.Error(t, r.bodyErr, "attempt", i)
				} else {
					require.NoError(t, r.bodyErr, "attempt", i)
				}
				if w.body != nil {
					require.Equal(t, w.body, r.body, "attempt", i)
				}
				for k, v := range w.header {
					require.Equal(t, v, r.header.Get(k), "attempt", i, k)
				}
				if w.check != nil {
					w.check(t, r)
				}
				last = r
			}
		})
	}
}

func portOf(loc string) string {
	rest := loc[len("http://127.0.0.1:"):]
	for i, c := range rest {
		if c < '0' || c > '9' {
			return rest[:i]
		}
	}
	return rest
}

func TestServer_redirectFollowed(t *testing.T) {
	data := testData(100)
	s, base := start(t, Options{})
	s.Add("f.bin", data)
	r := get(t, client(true), base+"/fault/redirect/f.bin", map[string]string{"Range": "bytes=5-9"})
	require.Equal(t, 206, r.status)
	require.Equal(t, data[5:10], r.body)
	st := s.Stats()
	require.Equal(t, int64(1), st["/fault/redirect/f.bin"].Requests)
	require.Equal(t, PathStats{Requests: 1, Bytes: 5}, st["/f.bin"])
	require.True(t, s.RedirectBase() != base, "second origin")
}

func TestServer_statsPreflightReset(t *testing.T) {
	s, base := start(t, Options{})
	s.Add("f.bin", testData(100))
	c := client(false)
	req, _ := http.NewRequest(http.MethodOptions, base+"/f.bin", nil)
	req.Header.Set("Origin", "http://example.test")
	req.Header.Set("Access-Control-Request-Headers", "range")
	resp, err := c.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 204, resp.StatusCode)
	require.Equal(t, "Range, If-Match, If-Unmodified-Since", resp.Header.Get("Access-Control-Allow-Headers"))

	get(t, c, base+"/f.bin", map[string]string{"Range": "bytes=0-9"})
	get(t, c, base+"/f.bin", map[string]string{"Range": "bytes=0-29"})
	require.Equal(t, PathStats{Requests: 2, Preflights: 1, Bytes: 40}, s.Stats()["/f.bin"])
	require.Equal(t, PathStats{Requests: 2, Preflights: 1, Bytes: 40}, s.Total())

	// Reset also restarts the "once" counters.
	get(t, c, base+"/fault/503-once/f.bin", nil)
	s.Reset()
	require.Equal(t, PathStats{}, s.Total())
	require.Equal(t, 503, get(t, c, base+"/fault/503-once/f.bin", nil).status)
}

func TestServer_dirAndNoExposeOption(t *testing.T) {
	dir := t.TempDir()
	data := testData(300)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "a.parquet"), data, 0o644))
	_, base := start(t, Options{Dir: dir, NoExposeHeaders: true})
	r := get(t, client(false), base+"/sub/a.parquet", map[string]string{"Range": "bytes=250-299"})
	require.Equal(t, 206, r.status)
	require.Equal(t, data[250:], r.body)
	require.Equal(t, "bytes 250-299/300", r.header.Get("Content-Range"))
	require.Equal(t, "", r.header.Get("Access-Control-Expose-Headers"))
	etag := r.header.Get("ETag")
	require.True(t, len(etag) > 2 && etag[0] == '"', "strong ETag", etag)
	require.Equal(t, 404, get(t, client(false), base+"/sub", nil).status)
}

func TestServer_latencyBandwidthSlow(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		opt   Options
		path  string
		waits []time.Duration
	}{
		{name: "latency", opt: Options{Latency: 150 * ms}, path: "/f.bin", waits: []time.Duration{150 * ms}},
		// 2000 bytes at 10000 B/s in chunks of 1/20 s (500 bytes), each followed by its 50 ms.
		{name: "bandwidth", opt: Options{BytesPerSecond: 10000}, path: "/f.bin", waits: []time.Duration{50 * ms, 50 * ms, 50 * ms, 50 * ms}},
		{name: "slow", opt: Options{SlowFirstByte: 150 * ms}, path: "/fault/slow/f.bin", waits: []time.Duration{150 * ms}},
		{name: "slow with latency", opt: Options{Latency: 20 * ms, SlowFirstByte: 150 * ms}, path: "/fault/slow/f.bin", waits: []time.Duration{20 * ms, 150 * ms}},
		{name: "slow mode only on its path", opt: Options{SlowFirstByte: 150 * ms}, path: "/f.bin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.opt)
			w := &testclock.Recorder{}
			// The wait after the last chunk may still be running in the handler when the
			// client has the whole body: each recorded wait is signalled, and the test takes
			// as many signals as it expects waits before comparing.
			waited := make(chan struct{}, 64)
			s.wait = func(ctx context.Context, d time.Duration) bool {
				defer func() { waited <- struct{}{} }()
				return w.Wait(ctx, d)
			}
			base, err := s.Start("127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(func() { s.Close() })
			data := testData(2000)
			s.Add("f.bin", data)
			r := get(t, client(false), base+tc.path, nil)
			require.Equal(t, 200, r.status)
			require.Equal(t, data, r.body)
			for range tc.waits {
				select {
				case <-waited:
				case <-time.After(time.Minute): // a missing wait fails the comparison below
				}
			}
			require.Equal(t, fmt.Sprint(tc.waits), fmt.Sprint(w.Waits()))
		})
	}
}

// The slow mode holds the response headers until its wait ends, and gives up when the client
// goes away: a wait the test holds, then releases or cancels.
func TestServer_slowHolds(t *testing.T) {
	tests := []struct {
		name   string
		cancel bool // the client cancels while the response is held
	}{
		{name: "released"},
		{name: "client cancels", cancel: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			entered, release := make(chan time.Duration, 1), make(chan struct{})
			s.wait = func(ctx context.Context, d time.Duration) bool {
				entered <- d
				select {
				case <-release:
					return true
				case <-ctx.Done():
					return false
				}
			}
			base, err := s.Start("127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(func() { s.Close() })
			data := testData(100)
			s.Add("f.bin", data)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/fault/slow/f.bin", nil)
			require.NoError(t, err)
			type answer struct {
				status int
				body   []byte
				err    error
			}
			done := make(chan answer, 1)
			go func() {
				resp, err := client(false).Do(req)
				if err != nil {
					done <- answer{err: err}
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				done <- answer{status: resp.StatusCode, body: b, err: err}
			}()
			select {
			case d := <-entered:
				require.Equal(t, 2*time.Second, d, "the default SlowFirstByte")
			case a := <-done:
				t.Fatalf("response without waiting: status %d, %v", a.status, a.err)
			}
			select {
			case a := <-done:
				t.Fatalf("response before the wait ended: status %d, %v", a.status, a.err)
			default:
			}
			if tc.cancel {
				cancel()
				require.ErrorIs(t, (<-done).err, context.Canceled)
				return
			}
			close(release)
			a := <-done
			require.NoError(t, a.err)
			require.Equal(t, 200, a.status)
			require.Equal(t, data, a.body)
		})
	}
}
