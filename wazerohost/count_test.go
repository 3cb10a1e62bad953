package wazerohost_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// Test_countOverWasm: the count mode (ScanOptions.Count) runs inside the module with no new
// export: File.Count over the wasm engine gives the native engine's count and report
// (rows counted from metadata, bytes and round trips).
func Test_countOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	file := testcorpus.Read(t, "hyparquet/page_index.parquet")
	for _, where := range []string{"", "id >= 1000", "id >= 1300 AND id < 1700", "word = 'nope'"} {
		count := func(engine pqscan.Engine) (int64, pqscan.Report) {
			f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(file), int64(len(file)), pqscan.Options{Engine: engine, TailSize: 1024})
			require.NoError(t, err)
			defer f.Close()
			n, rep, err := f.Count(ctx, pqscan.ScanOptions{Where: where})
			require.NoError(t, err, where)
			return n, rep
		}
		want, wrep := count(pqscan.Native{})
		got, grep := count(h)
		require.Equal(t, want, got, where)
		require.Equal(t, wrep.RowsCountedFromMetadata, grep.RowsCountedFromMetadata, where)
		require.Equal(t, wrep.BytesRequested, grep.BytesRequested, where)
		require.Equal(t, wrep.RoundTrips, grep.RoundTrips, where)
	}
}
