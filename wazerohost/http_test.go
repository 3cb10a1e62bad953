package wazerohost

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// httpFile is larger than the default 64 KiB tail read, so every scan needs requests after the
// first one (which is where validators, retries and fault modes show).
const httpFile = "parquet-testing/data/alltypes_tiny_pages_plain.parquet"

func startServer(t *testing.T, opts faultserver.Options, file []byte) (*faultserver.Server, string) {
	t.Helper()
	srv := faultserver.New(opts)
	srv.Add("f.parquet", file)
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv, base
}

// runHTTP scans url through the module and returns the IPC streams, the report and the Source.
func runHTTP(t *testing.T, ctx context.Context, h *Host, url string, opts scan.Options) (result, httpclient.Source, error) {
	t.Helper()
	src := httpclient.NewHTTP(url, httpclient.Options{Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	var res result
	rep, err := runRaw(ctx, h, src, opts, func(b []byte) error {
		res.streams = append(res.streams, bytes.Clone(b))
		return nil
	})
	res.report = rep
	if err != nil {
		res.err = engineMessage(err)
	}
	return res, src, err
}

// Test_httpScan: a scan over a real HTTP server on 127.0.0.1 gives the native engine's bytes,
// fetches only what the engine asked for, and the bytes the Source counts are the bytes the
// server sent.
func Test_httpScan(t *testing.T) {
	h := newHost(t, Config{})
	file := testcorpus.Read(t, httpFile)
	srv, base := startServer(t, faultserver.Options{}, file)
	tests := []struct {
		name     string
		opts     scan.Options
		maxBytes int64 // the most the scan may download
	}{
		{name: "whole file", opts: scan.Options{}, maxBytes: int64(len(file))},
		{name: "one column, 10 rows", opts: scan.Options{Columns: []string{"id"}, Limit: 10}, maxBytes: int64(len(file)) * 3 / 4},
		{name: "selective where", opts: scan.Options{Columns: []string{"id", "string_col"}, Where: "id = 4321"}, maxBytes: int64(len(file)) * 3 / 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			want := runNative(t, file, tc.opts)
			require.True(t, want.err == "" && len(want.streams) > 0, "native", want.err)
			got, src, err := runHTTP(t, context.Background(), h, base+"/f.parquet", tc.opts)
			require.NoError(t, err)
			equalStreams(t, want, got)
			st := src.Stats()
			// The server counts a body after writing it, which can be after the client has read
			// it: wait briefly for its counters to settle.
			total := srv.Total()
			for deadline := time.Now().Add(2 * time.Second); total.Bytes != st.Bytes && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
				total = srv.Total()
			}
			t.Logf("%d requests, %d round trips, %d bytes of %d (report: %d requested)",
				st.Requests, st.RoundTrips, st.Bytes, len(file), got.report.BytesRequested)
			require.Equal(t, total.Bytes, st.Bytes, "server vs source bytes")
			require.Equal(t, total.Requests, st.Requests, "server vs source requests")
			require.True(t, st.Bytes <= tc.maxBytes, "downloaded", st.Bytes)
		})
	}
}

// Test_httpFaults: each server misbehaviour gives the right rows or a clear, typed error.
func Test_httpFaults(t *testing.T) {
	h := newHost(t, Config{})
	file := testcorpus.Read(t, httpFile)
	srv, base := startServer(t, faultserver.Options{}, file)
	want := runNative(t, file, scan.Options{})
	tests := []struct {
		name    string
		mode    string
		wantErr error // nil: the result must equal the native one
	}{
		{name: "Range ignored", mode: faultserver.ModeIgnoreRange},
		{name: "503 then success", mode: faultserver.Mode503Once},
		{name: "429 then success", mode: faultserver.Mode429Once},
		{name: "reset mid-body then success", mode: faultserver.ModeResetOnce},
		{name: "redirect", mode: faultserver.ModeRedirect},
		{name: "wrong Content-Range", mode: faultserver.ModeWrongRange, wantErr: httpclient.ErrBadContentRange},
		{name: "no Content-Range", mode: faultserver.ModeNoContentRange, wantErr: httpclient.ErrBadContentRange},
		{name: "ETag change mid-scan", mode: faultserver.ModeETagChange, wantErr: httpclient.ErrFileChanged},
		{name: "gzip body", mode: faultserver.ModeGzip, wantErr: httpclient.ErrEncoding},
		{name: "short body every time", mode: faultserver.ModeShortBody, wantErr: httpclient.ErrShortBody},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			got, src, err := runHTTP(t, context.Background(), h, base+"/fault/"+tc.mode+"/f.parquet", scan.Options{})
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				t.Logf("error: %v", err)
				return
			}
			require.NoError(t, err)
			equalStreams(t, want, got)
			if tc.mode == faultserver.ModeIgnoreRange {
				require.Equal(t, int64(len(file)), src.Stats().Bytes, "whole file read exactly once")
			}
		})
	}
	require.Equal(t, int64(0), h.Stats().Discarded, "a fetch error must not cost the instance")
}

// Test_httpMemoryCap: a guest that needs more memory than its cap fails with ErrOutOfMemory, and
// the host recovers with a fresh instance.
func Test_httpMemoryCap(t *testing.T) {
	file := testcorpus.Read(t, httpFile)
	_, base := startServer(t, faultserver.Options{}, file)
	h := newHost(t, Config{MemoryLimitPages: 128, PoolSize: 1}) // 8 MiB: the runtime starts, the scan does not fit
	_, _, err := runHTTP(t, context.Background(), h, base+"/f.parquet", scan.Options{})
	require.ErrorIs(t, err, ErrOutOfMemory)
	require.ErrorIs(t, err, ErrTrap)
	t.Logf("error: %v", err)
	require.Equal(t, int64(1), h.Stats().Discarded)

	// The engine's own cap (Options.MemoryCap) is an ordinary scan error, not a trap.
	h2 := newHost(t, Config{PoolSize: 1})
	_, _, err = runHTTP(t, context.Background(), h2, base+"/f.parquet", scan.Options{MemoryCap: 1 << 10})
	require.ErrorIs(t, err, ErrScan)
	require.Equal(t, Stats{Instantiated: 1}, h2.Stats())
}

// Test_httpDeadline: a context that expires mid-scan ends it with the context's error. Every
// response is held 150 ms and the scan needs at least two round trips, so it cannot finish
// inside the 250 ms deadline; no duration is asserted.
func Test_httpDeadline(t *testing.T) {
	file := testcorpus.Read(t, httpFile)
	_, base := startServer(t, faultserver.Options{Latency: 150 * time.Millisecond}, file)
	h := newHost(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	_, _, err := runHTTP(t, ctx, h, base+"/f.parquet", scan.Options{})
	require.True(t, errors.Is(err, context.DeadlineExceeded), err)
}

func equalStreams(t *testing.T, want, got result) {
	t.Helper()
	require.Equal(t, want.err, got.err)
	require.Equal(t, len(want.streams), len(got.streams), "batches")
	for i := range want.streams {
		require.True(t, bytes.Equal(want.streams[i], got.streams[i]), "batch", i, "differs")
	}
}
