package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testclock"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// faultFile (811 KB) is larger than the HTTP Source's 64 KiB size probe, so every scan makes requests
// after the first one: the faults that strike "mid-scan" strike between the footer and the data.
const faultFile = "parquet-testing/data/alltypes_tiny_pages_plain.parquet"

// httpScan is what one scan through the Go API over HTTP produced.
type httpScan struct {
	rows    int64
	matches bool // every batch equals the in-memory scan's
	src     httpclient.Source
	err     error           // the first error of Open, Scan or Next
	waits   []time.Duration // the retry delays the Source asked for (httpclient.Options.Sleep)
}

// scanHTTP opens url with the native engine and scans it whole, comparing each batch with want.
// The Source's retry delays are recorded, not slept.
func scanHTTP(ctx context.Context, url string, ho httpclient.Options, want *scanResult) (out httpScan) {
	clock := &testclock.Recorder{}
	ho.Sleep = clock.Sleep
	src := httpclient.NewHTTP(url, ho)
	out = httpScan{src: src, matches: true}
	defer func() { out.waits = clock.Waits() }()
	f, err := pqscan.Open(ctx, src, pqscan.Options{})
	if err != nil {
		out.err = err
		return out
	}
	defer f.Close()
	r, err := f.Scan(ctx, pqscan.ScanOptions{})
	if err != nil {
		out.err = err
		return out
	}
	defer r.Close()
	for i := 0; ; i++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			out.err = err
			return out
		}
		if i >= len(want.recs) || !array.RecordEqual(want.recs[i], rec) {
			out.matches = false
		}
		out.rows += rec.NumRows()
		rec.Release()
	}
}

// checkNotPartial is the invariant every fault test asserts: a scan either fails with an error
// or returns exactly the whole file's rows and values; never fewer rows and no error.
func checkNotPartial(t *testing.T, got httpScan, want *scanResult) {
	t.Helper()
	if got.err == nil {
		require.Equal(t, want.rows, got.rows, "rows of a scan that reported no error")
		require.True(t, got.matches, "batches differ from the in-memory scan")
	}
}

func fastHTTP() httpclient.Options {
	return httpclient.Options{Backoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}
}

// TestFaults_goAPI runs the Go API (native engine, HTTP Source) against each kind of server
// misbehaviour on 127.0.0.1: the right rows, or a clear typed error.
func TestFaults_goAPI(t *testing.T) {
	file := testcorpus.Read(t, faultFile)
	want, err := scanAll(context.Background(), file, pqscan.Options{}, pqscan.ScanOptions{})
	require.NoError(t, err)
	require.True(t, want.rows > 0, "reference rows")

	tests := []struct {
		name    string
		mode    string
		srvOpts faultserver.Options
		timeout time.Duration
		wantErr []error // nil: the whole file's rows; else errors.Is one of these
		check   func(t *testing.T, got httpScan, srv *faultserver.Server)
	}{
		{name: "good", check: func(t *testing.T, got httpScan, srv *faultserver.Server) {
			require.Equal(t, int64(0), got.src.Stats().Retries, "retries")
		}},
		{name: "Range ignored: whole file once", mode: faultserver.ModeIgnoreRange,
			check: func(t *testing.T, got httpScan, srv *faultserver.Server) {
				st := got.src.Stats()
				require.Equal(t, int64(1), st.Requests, "requests")
				require.Equal(t, int64(len(file)), st.Bytes, "bytes")
				require.Equal(t, int64(len(file)), srv.Total().Bytes, "bytes the server sent")
			}},
		{name: "wrong Content-Range", mode: faultserver.ModeWrongRange, wantErr: []error{httpclient.ErrBadContentRange}},
		{name: "no Content-Range", mode: faultserver.ModeNoContentRange, wantErr: []error{httpclient.ErrBadContentRange}},
		{name: "short body every time: retried, then an error", mode: faultserver.ModeShortBody,
			wantErr: []error{httpclient.ErrShortBody},
			check: func(t *testing.T, got httpScan, srv *faultserver.Server) {
				require.True(t, got.src.Stats().Retries >= 1, "retries", got.src.Stats())
			}},
		{name: "reset mid-body once: retried", mode: faultserver.ModeResetOnce,
			check: func(t *testing.T, got httpScan, srv *faultserver.Server) {
				require.Equal(t, int64(1), got.src.Stats().Retries, "retries")
			}},
		{name: "reset mid-body every time", mode: faultserver.ModeResetAlways, wantErr: []error{httpclient.ErrShortBody}},
		{name: "503 with Retry-After: 1", mode: faultserver.Mode503Once, srvOpts: faultserver.Options{RetryAfter: 1},
			check: func(t *testing.T, got httpScan, srv *faultserver.Server) {
				require.Equal(t, int64(1), got.src.Stats().Retries, "retries")
				require.Equal(t, fmt.Sprint([]time.Duration{time.Second}), fmt.Sprint(got.waits), "Retry-After honoured")
			}},
		{name: "429 with Retry-After: 0", mode: faultserver.Mode429Once,
			check: func(t *testing.T, got httpScan, srv *faultserver.Server) {
				require.Equal(t, int64(1), got.src.Stats().Retries, "retries")
				require.Equal(t, fmt.Sprint([]time.Duration{0}), fmt.Sprint(got.waits), "Retry-After honoured")
			}},
		// The server holds the response for an hour (until the client goes away), so the scan
		// can only end by its deadline, before any byte of the held response.
		{name: "slow first byte past the deadline", mode: faultserver.ModeSlow, srvOpts: faultserver.Options{SlowFirstByte: time.Hour},
			timeout: 200 * time.Millisecond, wantErr: []error{context.DeadlineExceeded},
			check: func(t *testing.T, got httpScan, srv *faultserver.Server) {
				st := srv.Stats()["/fault/slow/f.parquet"]
				require.True(t, st.Requests >= 1, "the held request reached the server", st)
				require.Equal(t, int64(0), st.Bytes, "bytes of the held response")
				require.Equal(t, int64(0), got.rows, "rows")
			}},
		{name: "ETag change mid-scan", mode: faultserver.ModeETagChange, wantErr: []error{httpclient.ErrFileChanged}},
		{name: "truncated between footer and data", mode: faultserver.ModeTruncate, wantErr: []error{httpclient.ErrFileChanged}},
		{name: "redirect to another origin", mode: faultserver.ModeRedirect,
			check: func(t *testing.T, got httpScan, srv *faultserver.Server) {
				st := srv.Stats()
				require.True(t, st["/f.parquet"].Requests >= 2, "served by the other origin", st)
			}},
		{name: "gzip Content-Encoding on a range response", mode: faultserver.ModeGzip, wantErr: []error{httpclient.ErrEncoding}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := faultserver.New(tc.srvOpts)
			srv.Add("f.parquet", file)
			base, err := srv.Start("127.0.0.1:0")
			require.NoError(t, err)
			defer srv.Close()
			url := base + "/f.parquet"
			if tc.mode != "" {
				url = base + "/fault/" + tc.mode + "/f.parquet"
			}
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			got := scanHTTP(ctx, url, fastHTTP(), want)
			checkNotPartial(t, got, want)
			if tc.wantErr == nil {
				require.NoError(t, got.err)
			} else {
				matched := false
				for _, e := range tc.wantErr {
					matched = matched || errors.Is(got.err, e)
				}
				require.True(t, matched, "want one of", tc.wantErr, "got", got.err)
				t.Logf("error: %v", got.err)
			}
			if tc.check != nil {
				tc.check(t, got, srv)
			}
			t.Logf("%d rows, %+v", got.rows, got.src.Stats())
		})
	}
}

// afterFirst serves the first request of a scan (the size probe, which reads the footer) from
// good, and every later one from the fault path: the fault strikes between footer and data.
type afterFirst struct {
	srv   *faultserver.Server
	fault string // the path for requests after the first
	n     atomic.Int64
	limit int64 // how many requests after the first are faulty; 0 means all
}

func (h *afterFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := h.n.Add(1); n > 1 && (h.limit == 0 || n <= 1+h.limit) {
		r.URL.Path = h.fault
	}
	h.srv.ServeHTTP(w, r)
}

// TestFaults_goAPIMidScan strikes after the footer was read: a short body once is retried and
// the result is whole; a slow server after Open runs into the scan's own deadline.
func TestFaults_goAPIMidScan(t *testing.T) {
	file := testcorpus.Read(t, faultFile)
	want, err := scanAll(context.Background(), file, pqscan.Options{}, pqscan.ScanOptions{})
	require.NoError(t, err)

	t.Run("short body once: retried, whole result", func(t *testing.T) {
		fs := faultserver.New(faultserver.Options{})
		fs.Add("f.parquet", file)
		h := &afterFirst{srv: fs, fault: "/fault/" + faultserver.ModeShortBody + "/f.parquet", limit: 1}
		ts := httptest.NewServer(h) // 127.0.0.1
		defer ts.Close()
		got := scanHTTP(context.Background(), ts.URL+"/f.parquet", fastHTTP(), want)
		checkNotPartial(t, got, want)
		require.NoError(t, got.err)
		require.Equal(t, int64(1), got.src.Stats().Retries, "retries")
	})

	// The server holds every request after the footer's for an hour (until the client goes
	// away): the scan can only end by its deadline, and returns no row of the held data.
	t.Run("slow data after the footer, scan deadline", func(t *testing.T) {
		fs := faultserver.New(faultserver.Options{SlowFirstByte: time.Hour})
		fs.Add("f.parquet", file)
		h := &afterFirst{srv: fs, fault: "/fault/" + faultserver.ModeSlow + "/f.parquet"}
		ts := httptest.NewServer(h)
		defer ts.Close()
		src := httpclient.NewHTTP(ts.URL+"/f.parquet", fastHTTP())
		f, err := pqscan.Open(context.Background(), src, pqscan.Options{})
		require.NoError(t, err)
		defer f.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		var rows int64
		r, err := f.Scan(ctx, pqscan.ScanOptions{})
		for err == nil {
			var rec arrow.RecordBatch
			if rec, err = r.Next(); err == nil {
				rows += rec.NumRows()
				rec.Release()
			}
		}
		if r != nil {
			r.Close()
		}
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Equal(t, int64(0), fs.Stats()["/fault/slow/f.parquet"].Bytes, "bytes of the held responses")
		require.True(t, rows < want.rows, "a deadline error after every row")
		t.Logf("error after %d rows: %v", rows, err)
	})

	t.Run("file replaced by a static truncated copy", func(t *testing.T) {
		fs := faultserver.New(faultserver.Options{})
		fs.Add("f.parquet", bytes.Clone(file[:len(file)/2]))
		base, err := fs.Start("127.0.0.1:0")
		require.NoError(t, err)
		defer fs.Close()
		got := scanHTTP(context.Background(), base+"/f.parquet", fastHTTP(), want)
		checkNotPartial(t, got, want)
		require.Error(t, got.err)
		t.Logf("error: %v", got.err)
	})
}
