package wazerohost_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

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

// Test_rowIndexOverWasm: the row index option inside the module gives the native engine's
// positions and bytes.
func Test_rowIndexOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	file := testcorpus.Read(t, "hyparquet/page_index.parquet")
	run := func(engine pqscan.Engine) ([]int64, int64) {
		f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(file), int64(len(file)), pqscan.Options{Engine: engine, TailSize: 1024})
		require.NoError(t, err)
		defer f.Close()
		rd, err := f.Scan(ctx, pqscan.ScanOptions{RowIndex: "ri", Columns: []string{"ri"}, Where: "ri BETWEEN 1495 AND 1504 OR id = 7"})
		require.NoError(t, err)
		defer rd.Close()
		var got []int64
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
			rec.Release()
		}
		return got, rd.Report().BytesRequested
	}
	want, wb := run(pqscan.Native{})
	got, gb := run(h)
	require.Equal(t, []int64{7, 1495, 1496, 1497, 1498, 1499, 1500, 1501, 1502, 1503, 1504}, want)
	require.Equal(t, want, got)
	require.Equal(t, wb, gb)
}
