package httpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testclock"
)

func TestHTTP_unknownSizeProbeKeepsTail(t *testing.T) {
	data := testData(10000)
	_, base, log := serve(t, data, faultserver.Options{})
	opt := fastOpt()
	opt.TailSize = 1000
	src := NewHTTP(base+"/f.bin", opt)

	size, err := src.Size(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(10000), size)
	require.Equal(t, []string{"bytes=-1000"}, log.header("Range"))
	require.Equal(t, []string{"GET"}, log.header("X-Method"))

	// The engine's tail read (explicit or as a suffix) is served from the probe.
	tail := []httprange.Range{{Off: 9500, Len: 500}, {Off: -800, Len: 800}}
	got, err := collect(t, src, tail)
	require.NoError(t, err)
	require.Equal(t, expect(data, []httprange.Range{{Off: 9500, Len: 500}, {Off: 9200, Len: 800}}), got)
	require.Equal(t, Stats{Requests: 1, Bytes: 1000, RoundTrips: 1}, src.Stats())

	// Outside the tail: one request with If-Match from the first response.
	got, err = collect(t, src, []httprange.Range{{Off: 0, Len: 10}})
	require.NoError(t, err)
	require.Equal(t, expect(data, []httprange.Range{{Off: 0, Len: 10}}), got)
	require.Equal(t, []string{"bytes=-1000", "bytes=0-9"}, log.header("Range"))
	ifMatch := log.header("If-Match")
	require.Equal(t, "", ifMatch[0])
	require.True(t, strings.HasPrefix(ifMatch[1], `"`), "strong ETag sent back", ifMatch[1])
	require.Equal(t, []string{"identity", "identity"}, log.header("Accept-Encoding"))
	require.Equal(t, Stats{Requests: 2, Bytes: 1010, RoundTrips: 2}, src.Stats())
}

func TestHTTP_suffixFetchLearnsSize(t *testing.T) {
	data := testData(300)
	_, base, log := serve(t, data, faultserver.Options{})
	src := NewHTTP(base+"/f.bin", fastOpt()) // default TailSize, 64 KiB > file
	got, err := collect(t, src, []httprange.Range{{Off: -100, Len: 100}, {Off: 0, Len: 4}})
	require.NoError(t, err)
	require.Equal(t, expect(data, []httprange.Range{{Off: 200, Len: 100}, {Off: 0, Len: 4}}), got)
	require.Equal(t, []string{"bytes=-65536"}, log.header("Range"))
	require.Equal(t, Stats{Requests: 1, Bytes: 300, RoundTrips: 1}, src.Stats())
}

func TestHTTP_knownSizeNoProbe(t *testing.T) {
	data := testData(1000)
	_, base, log := serve(t, data, faultserver.Options{})
	opt := fastOpt()
	opt.FileSize = 1000
	src := NewHTTP(base+"/f.bin", opt)
	size, err := src.Size(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(1000), size)
	ranges := []httprange.Range{{Off: 0, Len: 1}, {Off: 100, Len: 50}, {Off: 999, Len: 1}, {Off: 500, Len: 0}}
	got, err := collect(t, src, ranges)
	require.NoError(t, err)
	require.Equal(t, expect(data, ranges), got)
	require.Equal(t, []string{"bytes=0-0", "bytes=100-149", "bytes=999-999"}, sorted(log.header("Range")))
	require.Equal(t, []string{"GET", "GET", "GET"}, log.header("X-Method"))
	require.Equal(t, Stats{Requests: 3, Bytes: 52, RoundTrips: 1}, src.Stats())

	_, err = collect(t, src, []httprange.Range{{Off: 990, Len: 11}})
	require.ErrorIs(t, err, ErrOutOfRange)
	_, err = collect(t, src, []httprange.Range{{Off: 1, Len: -1}})
	require.ErrorIs(t, err, ErrInvalidRange)
	require.Equal(t, int64(3), src.Stats().Requests)
}

func TestHTTP_faults(t *testing.T) {
	data := testData(1000)
	ranges := []httprange.Range{{Off: 10, Len: 10}}
	tests := []struct {
		name         string
		mode         string
		size         int64
		maxWhole     int64
		ranges       []httprange.Range
		wantErr      error
		wantContains string
		wantRequests int64
		wantRetries  int64
	}{
		{name: "good", mode: "", wantRequests: 1},
		{name: "ignore-range", mode: "ignore-range", wantRequests: 1},
		{name: "ignore-range then more ranges from memory", mode: "ignore-range",
			ranges: []httprange.Range{{Off: 10, Len: 10}, {Off: 500, Len: 100}, {Off: 0, Len: 1000}}, wantRequests: 1},
		{name: "ignore-range too large", mode: "ignore-range", maxWhole: 999, wantErr: ErrTooLarge, wantRequests: 1},
		{name: "wrong-range", mode: "wrong-range", wantErr: ErrBadContentRange,
			wantContains: `server returned Content-Range "bytes 11-20/1000" for bytes=10-19`, wantRequests: 1},
		{name: "no-content-range", mode: "no-content-range", wantErr: ErrBadContentRange,
			wantContains: "no Content-Range for bytes=10-19", wantRequests: 1},
		{name: "short-body retried then error", mode: "short-body", wantErr: ErrShortBody,
			wantContains: "got 5 of 10 bytes at offset 10", wantRequests: 3, wantRetries: 2},
		{name: "reset-once", mode: "reset-once", wantRequests: 2, wantRetries: 1},
		{name: "reset-always", mode: "reset-always", wantErr: ErrShortBody, wantRequests: 3, wantRetries: 2},
		{name: "503-once", mode: "503-once", wantRequests: 2, wantRetries: 1},
		{name: "429-once", mode: "429-once", wantRequests: 2, wantRetries: 1},
		{name: "etag-change (412 to If-Match)", mode: "etag-change",
			ranges: []httprange.Range{{Off: 10, Len: 10}, {Off: 30, Len: 10}}, wantErr: ErrFileChanged,
			wantContains: "412", wantRequests: 2},
		{name: "truncate (size changes, same ETag)", mode: "truncate",
			ranges: []httprange.Range{{Off: 10, Len: 10}, {Off: 30, Len: 10}}, wantErr: ErrFileChanged,
			wantContains: "size 1000 → 500", wantRequests: 2},
		{name: "truncate beyond new end (416)", mode: "truncate",
			ranges: []httprange.Range{{Off: 10, Len: 10}, {Off: 600, Len: 10}}, wantErr: ErrFileChanged,
			wantContains: "size 1000 → 500", wantRequests: 2},
		{name: "size hint wrong", mode: "", size: 2000, wantErr: ErrFileChanged,
			wantContains: "size given in Options.FileSize 2000 → 1000", wantRequests: 1},
		{name: "gzip", mode: "gzip", wantErr: ErrEncoding, wantContains: `Content-Encoding "gzip"`, wantRequests: 1},
		{name: "404 not retried", mode: "nope", wantErr: ErrStatus, wantContains: "404", wantRequests: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, base, _ := serve(t, data, faultserver.Options{})
			opt := fastOpt()
			opt.MaxRetries = 2
			opt.Concurrency = 1 // deterministic request counts
			opt.FileSize = 1000
			if tc.size != 0 {
				opt.FileSize = tc.size
			}
			opt.MaxWholeBody = tc.maxWhole
			url := base + "/f.bin"
			if tc.mode != "" {
				url = base + "/fault/" + tc.mode + "/f.bin"
			}
			src := NewHTTP(url, opt)
			rs := ranges
			if tc.ranges != nil {
				rs = tc.ranges
			}
			got, err := collect(t, src, rs)
			st := src.Stats()
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				if tc.wantContains != "" {
					require.ErrorContains(t, err, tc.wantContains)
				}
				var re *retryableError
				require.True(t, !errors.As(err, &re), "retry marker leaked", err)
			} else {
				require.NoError(t, err)
				require.Equal(t, expect(data, rs), got)
			}
			require.Equal(t, tc.wantRequests, st.Requests, "requests")
			require.Equal(t, tc.wantRetries, st.Retries, "retries")
		})
	}
}

func TestHTTP_ignoreRangeDownloadsOnce(t *testing.T) {
	data := testData(1 << 20)
	fs, base, _ := serve(t, data, faultserver.Options{})
	opt := fastOpt()
	src := NewHTTP(base+"/fault/ignore-range/f.bin", opt) // unknown size: the probe gets the 200
	var ranges []httprange.Range
	for i := int64(0); i < 20; i++ {
		ranges = append(ranges, httprange.Range{Off: i * 50000, Len: 1000})
	}
	got, err := collect(t, src, ranges)
	require.NoError(t, err)
	require.Equal(t, expect(data, ranges), got)
	require.Equal(t, Stats{Requests: 1, Bytes: 1 << 20, RoundTrips: 1}, src.Stats())
	require.Equal(t, int64(1), fs.Total().Requests)

	// Known size: the first request goes alone until the 200 is seen; the other 19 ranges are
	// served from its body.
	fs.Reset()
	opt.FileSize = 1 << 20
	src = NewHTTP(base+"/fault/ignore-range/f.bin", opt)
	got, err = collect(t, src, ranges)
	require.NoError(t, err)
	require.Equal(t, expect(data, ranges), got)
	require.Equal(t, Stats{Requests: 1, Bytes: 1 << 20, RoundTrips: 1}, src.Stats())
	require.Equal(t, int64(1<<20), fs.Total().Bytes) // server side too: sent once
}

func TestHTTP_weakETagUsesIfUnmodifiedSince(t *testing.T) {
	data := testData(100)
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	log := &reqLog{}
	ts := httptest.NewServer(log.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `W/"weak"`)
		http.ServeContent(w, r, "", mod, strings.NewReader(string(data)))
	})))
	defer ts.Close()
	opt := fastOpt()
	opt.FileSize = 100
	opt.Concurrency = 1
	src := NewHTTP(ts.URL, opt)
	ranges := []httprange.Range{{Off: 0, Len: 10}, {Off: 20, Len: 10}}
	got, err := collect(t, src, ranges)
	require.NoError(t, err)
	require.Equal(t, expect(data, ranges), got)
	require.Equal(t, []string{"", ""}, log.header("If-Match"))
	require.Equal(t, []string{"", "Mon, 06 May 2024 07:08:09 GMT"}, log.header("If-Unmodified-Since"))
}

func TestHTTP_lastModifiedChange(t *testing.T) {
	data := testData(100)
	n := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		// No ETag, and a server that ignores If-Unmodified-Since: only the header reveals it.
		r.Header.Del("If-Unmodified-Since")
		http.ServeContent(w, r, "", time.Unix(int64(1e9+n), 0), strings.NewReader(string(data)))
	}))
	defer ts.Close()
	opt := fastOpt()
	opt.FileSize = 100
	opt.Concurrency = 1
	_, err := collect(t, NewHTTP(ts.URL, opt), []httprange.Range{{Off: 0, Len: 10}, {Off: 20, Len: 10}})
	require.ErrorIs(t, err, ErrFileChanged)
	require.ErrorContains(t, err, "Last-Modified")
}

func TestHTTP_etagChangeWithoutIfMatchSupport(t *testing.T) {
	data := testData(100)
	n := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		r.Header.Del("If-Match") // a server (or cache) that ignores preconditions
		w.Header().Set("ETag", []string{`"a"`, `"b"`}[min(n-1, 1)])
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader(string(data)))
	}))
	defer ts.Close()
	opt := fastOpt()
	opt.FileSize = 100
	opt.Concurrency = 1
	_, err := collect(t, NewHTTP(ts.URL, opt), []httprange.Range{{Off: 0, Len: 10}, {Off: 20, Len: 10}})
	require.ErrorIs(t, err, ErrFileChanged)
	require.ErrorContains(t, err, `the file changed during the scan (ETag "a" → "b"`)
}

func TestHTTP_redirectToOtherOrigin(t *testing.T) {
	data := testData(1000)
	fs := faultserver.New(faultserver.Options{})
	fs.Add("f.bin", data)
	base, err := fs.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer fs.Close()
	src := NewHTTP(base+"/fault/redirect/f.bin", fastOpt())
	ranges := []httprange.Range{{Off: 0, Len: 100}, {Off: 900, Len: 100}, {Off: 400, Len: 10}}
	got, err := collect(t, src, ranges)
	require.NoError(t, err)
	require.Equal(t, expect(data, ranges), got)
	st := fs.Stats()
	require.True(t, st["/fault/redirect/f.bin"].Requests >= 2, "redirected", st)
	require.True(t, st["/f.bin"].Requests >= 2, "served by the second origin", st)
}

func TestHTTP_retryAfter(t *testing.T) {
	tests := []struct {
		name          string
		retryAfter    int
		maxRetryAfter time.Duration
		wait          time.Duration
	}{
		{name: "honoured", retryAfter: 1, wait: time.Second},
		{name: "capped", retryAfter: 3600, maxRetryAfter: 50 * time.Millisecond, wait: 50 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := testData(100)
			_, base, _ := serve(t, data, faultserver.Options{RetryAfter: tc.retryAfter})
			opt := fastOpt()
			opt.FileSize = 100
			opt.MaxRetryAfter = tc.maxRetryAfter
			sl := &testclock.Recorder{}
			opt.Sleep = sl.Sleep
			src := NewHTTP(base+"/fault/429-once/f.bin", opt)
			got, err := collect(t, src, []httprange.Range{{Off: 0, Len: 100}})
			require.NoError(t, err)
			require.Equal(t, data, got[0])
			require.Equal(t, fmt.Sprint([]time.Duration{tc.wait}), fmt.Sprint(sl.Waits()), "waits before retrying")
			require.Equal(t, int64(1), src.Stats().Retries)
		})
	}
}

// A cancelled context ends a Fetch whose response the server is still holding: the server
// releases nothing and the client has no timeout, so Fetch can only return by the
// cancellation (a Fetch that ignored it would hang until go test's -timeout), and the held
// handler sees the client go away.
func TestHTTP_cancel(t *testing.T) {
	entered, gone, release := make(chan struct{}, 8), make(chan struct{}, 8), make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
			gone <- struct{}{}
		}
	}))
	defer ts.Close()
	defer close(release)
	opt := fastOpt()
	opt.FileSize = 100
	opt.Client = &http.Client{} // no client timeout: only the cancellation can end the request
	src := NewHTTP(ts.URL+"/f.bin", opt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-entered
		cancel()
	}()
	err := src.Fetch(ctx, []httprange.Range{{Off: 0, Len: 10}, {Off: 10, Len: 10}}, func(int64, []byte) error {
		t.Error("deliver after cancel")
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	<-gone
	require.Equal(t, int64(0), src.Stats().Retries)
}

func TestHTTP_deliverErrorStops(t *testing.T) {
	data := testData(1000)
	_, base, _ := serve(t, data, faultserver.Options{})
	opt := fastOpt()
	opt.FileSize = 1000
	opt.Concurrency = 1
	src := NewHTTP(base+"/f.bin", opt)
	stop := errors.New("stop")
	calls := 0
	var ranges []httprange.Range
	for i := int64(0); i < 10; i++ {
		ranges = append(ranges, httprange.Range{Off: i * 100, Len: 10})
	}
	err := src.Fetch(context.Background(), ranges, func(int64, []byte) error {
		calls++
		return stop
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 1, calls)
	require.True(t, src.Stats().Requests <= 2, "stopped early", src.Stats())
}

func TestHTTP_concurrencyCap(t *testing.T) {
	data := testData(100000)
	_, base, log := serve(t, data, faultserver.Options{Latency: 20 * time.Millisecond})
	opt := fastOpt()
	opt.FileSize = int64(len(data))
	opt.Concurrency = 3
	src := NewHTTP(base+"/f.bin", opt)
	var ranges []httprange.Range
	for i := int64(0); i < 12; i++ {
		ranges = append(ranges, httprange.Range{Off: i * 8000, Len: 5000})
	}
	got, err := collect(t, src, ranges)
	require.NoError(t, err)
	require.Equal(t, expect(data, ranges), got)
	require.Equal(t, int64(3), log.peak.Load())
	require.Equal(t, Stats{Requests: 12, Bytes: 60000, RoundTrips: 1}, src.Stats())
}

// A new source lets its first request through alone (the server may ignore Range and send
// the whole file); with RangeKnown (a stored tail shows it answers ranges) the first round
// goes out whole.
func TestHTTP_rangeKnownFirstRoundTogether(t *testing.T) {
	data := testData(100000)
	for _, known := range []bool{false, true} {
		_, base, log := serve(t, data, faultserver.Options{Latency: 20 * time.Millisecond})
		opt := fastOpt()
		opt.FileSize = int64(len(data))
		opt.RangeKnown = known
		src := NewHTTP(base+"/f.bin", opt)
		ranges := []httprange.Range{{Off: 0, Len: 100}, {Off: 5000, Len: 100}, {Off: 9000, Len: 100}}
		got, err := collect(t, src, ranges)
		require.NoError(t, err)
		require.Equal(t, expect(data, ranges), got)
		want := int64(2) // the first alone, then the other two together
		if known {
			want = 3
		}
		require.Equal(t, want, log.peak.Load(), "requests in flight together, RangeKnown=%v", known)
	}
}

// The cap holds across Fetch calls running at once (a driver taking a round as it arrives
// starts the next fetch while the last one is in flight): two Fetches of 12 ranges with
// Concurrency 3 never have more than 3 requests at the server.
func TestHTTP_concurrencyCapAcrossFetches(t *testing.T) {
	data := testData(200000)
	_, base, log := serve(t, data, faultserver.Options{Latency: 20 * time.Millisecond})
	opt := fastOpt()
	opt.FileSize = int64(len(data))
	opt.Concurrency = 3
	src := NewHTTP(base+"/f.bin", opt)
	var a, b []httprange.Range
	for i := int64(0); i < 12; i++ {
		a = append(a, httprange.Range{Off: i * 8000, Len: 5000})
		b = append(b, httprange.Range{Off: 100000 + i*8000, Len: 5000})
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, rs := range [][]httprange.Range{a, b} {
		wg.Go(func() {
			n := 0
			errs[i] = src.Fetch(context.Background(), rs, func(int64, []byte) error { n++; return nil })
			if errs[i] == nil && n != len(rs) {
				errs[i] = fmt.Errorf("%d of %d ranges delivered", n, len(rs))
			}
		})
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.Equal(t, int64(3), log.peak.Load())
	require.Equal(t, int64(24), src.Stats().Requests)
}

func TestHTTP_emptyFile416(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes */0")
		w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
	}))
	defer ts.Close()
	src := NewHTTP(ts.URL, fastOpt())
	size, err := src.Size(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(0), size)
}

func TestHTTP_connectionRefused(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	opt := fastOpt()
	opt.MaxRetries = 1
	src := NewHTTP(url+"/f.bin", opt)
	_, err := src.Size(context.Background())
	require.Error(t, err)
	require.Equal(t, int64(1), src.Stats().Retries)
}

func TestHTTP_contentLengthShorterThanContentRange(t *testing.T) {
	data := testData(1000)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes 10-19/1000")
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[10:15]) // net/http sends Content-Length: 5
	}))
	defer ts.Close()
	opt := fastOpt()
	opt.FileSize = 1000
	opt.MaxRetries = 1
	src := NewHTTP(ts.URL, opt)
	_, err := collect(t, src, []httprange.Range{{Off: 10, Len: 10}})
	require.ErrorIs(t, err, ErrShortBody)
	require.ErrorContains(t, err, "Content-Length 5")
	require.Equal(t, Stats{Requests: 2, Retries: 1, RoundTrips: 1}, src.Stats())
}

// TestHTTP_overlappingCallsShareARoundTrip: a Fetch that begins while another is in progress
// (a round taken as it arrives, a prefetch) shares its round trip, as the JS bridge counts;
// calls one after the other count one each.
func TestHTTP_overlappingCallsShareARoundTrip(t *testing.T) {
	data := testData(10000)
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		select { // hold the first answer until the second request is in
		case <-both:
		case <-time.After(5 * time.Second):
		}
		http.ServeContent(w, r, "f.bin", time.Time{}, strings.NewReader(string(data)))
	})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	opt := fastOpt()
	opt.FileSize, opt.RangeKnown = int64(len(data)), true
	src := NewHTTP(ts.URL+"/f.bin", opt)
	var wg sync.WaitGroup
	for _, r := range []httprange.Range{{Off: 0, Len: 100}, {Off: 5000, Len: 100}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := collect(t, src, []httprange.Range{r})
			require.NoError(t, err)
		}()
	}
	wg.Wait()
	require.Equal(t, Stats{Requests: 2, Bytes: 200, RoundTrips: 1}, src.Stats())
	_, err := collect(t, src, []httprange.Range{{Off: 8000, Len: 100}})
	require.NoError(t, err)
	require.Equal(t, Stats{Requests: 3, Bytes: 300, RoundTrips: 2}, src.Stats())
}
