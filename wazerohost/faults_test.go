package wazerohost

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// afterProbe serves a scan's first request (the size probe, which brings the footer) from the
// good file and the next `limit` requests (0: all) from the fault path, so that the fault
// strikes between the footer and the data.
type afterProbe struct {
	srv   *faultserver.Server
	fault string
	limit int64
	n     atomic.Int64
}

func (h *afterProbe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := h.n.Add(1); n > 1 && (h.limit == 0 || n <= 1+h.limit) {
		r.URL.Path = h.fault
	}
	h.srv.ServeHTTP(w, r)
}

// Test_httpFaultsMore covers, through the wasm module's scan path, the fault kinds
// Test_httpFaults does not: a slow first byte against a deadline, truncation between footer and
// data, a reset on every attempt, a short body that a retry cures, a honoured Retry-After, and
// a truncated copy of the file. Results are the native engine's or an error, never a silent
// part of them.
func Test_httpFaultsMore(t *testing.T) {
	h := newHost(t, Config{})
	file := testcorpus.Read(t, httpFile)
	want := runNative(t, file, scan.Options{})
	require.True(t, want.err == "" && len(want.streams) > 0, "native", want.err)
	// Warm the pool: the deadline cases must strike during I/O, which keeps the instance. On a
	// fresh host the first scan also instantiates the module under the deadline, and on a
	// loaded machine that alone can outlast it; a deadline that stops a running guest discards
	// the instance by design (Test_deadlineInterruptsGuest), which is not what this checks.
	_, err := runWasm(t, h, file, scan.Options{})
	require.NoError(t, err)

	tests := []struct {
		name    string
		srvOpts faultserver.Options
		mode    string // a faultserver mode for every request
		after   string // a faultserver mode for the requests after the probe
		limit   int64  // with after: how many requests are faulty (0: all)
		timeout time.Duration
		wantErr error // nil: the native result
		check   func(t *testing.T, src httpclient.Source)
	}{
		{name: "slow first byte, deadline", mode: faultserver.ModeSlow, srvOpts: faultserver.Options{SlowFirstByte: 5 * time.Second},
			timeout: time.Second, wantErr: context.DeadlineExceeded},
		{name: "slow data after the footer, deadline", after: faultserver.ModeSlow, srvOpts: faultserver.Options{SlowFirstByte: 5 * time.Second},
			timeout: 1500 * time.Millisecond, wantErr: context.DeadlineExceeded},
		{name: "truncated between footer and data", mode: faultserver.ModeTruncate, wantErr: httpclient.ErrFileChanged},
		{name: "reset mid-body every time", mode: faultserver.ModeResetAlways, wantErr: httpclient.ErrShortBody,
			check: func(t *testing.T, src httpclient.Source) {
				require.Equal(t, int64(4), src.Stats().Retries, "retries (MaxRetries)")
			}},
		{name: "short body once after the footer: retried", after: faultserver.ModeShortBody, limit: 1,
			check: func(t *testing.T, src httpclient.Source) {
				require.Equal(t, int64(1), src.Stats().Retries, "retries")
			}},
		// How long Retry-After makes the client wait is httpclient's (TestDelay, no clock); here:
		// the module's scan survives the 503 with one retry and gives the native rows.
		{name: "503 with Retry-After: 1", mode: faultserver.Mode503Once, srvOpts: faultserver.Options{RetryAfter: 1},
			check: func(t *testing.T, src httpclient.Source) {
				require.Equal(t, int64(1), src.Stats().Retries, "retries")
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := faultserver.New(tc.srvOpts)
			fs.Add("f.parquet", file)
			var url string
			if tc.after != "" {
				ts := httptest.NewServer(&afterProbe{srv: fs, fault: "/fault/" + tc.after + "/f.parquet", limit: tc.limit})
				defer ts.Close()
				url = ts.URL + "/f.parquet"
			} else {
				base, err := fs.Start("127.0.0.1:0")
				require.NoError(t, err)
				defer fs.Close()
				url = base + "/fault/" + tc.mode + "/f.parquet"
			}
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			// The deadline cases: the server holds each response 5 s, longer than any deadline
			// here, so only the deadline can end the scan (with its error, asserted below);
			// no duration is measured.
			got, src, err := runHTTP(t, ctx, h, url, scan.Options{})
			if err == nil {
				equalStreams(t, want, got) // no error: the whole result
			}
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				t.Logf("error after %d batches: %v", len(got.streams), err)
			} else {
				require.NoError(t, err)
			}
			if tc.check != nil {
				tc.check(t, src)
			}
			t.Logf("%+v", src.Stats())
		})
	}

	t.Run("truncated copy of the file", func(t *testing.T) {
		_, base := startServer(t, faultserver.Options{}, file[:len(file)/2])
		got, _, err := runHTTP(t, context.Background(), h, base+"/f.parquet", scan.Options{})
		require.ErrorIs(t, err, ErrScan)
		require.Equal(t, 0, len(got.streams), "batches")
		t.Logf("error: %v", err)
	})
	// Fetch errors and deadlines in the host's I/O never cost the instance.
	st := h.Stats()
	require.Equal(t, int64(0), st.Discarded, "discarded instances", st)
}
