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

// Test_topkOverWasm: orderBy (top-k and a sort) runs inside the module with no new export:
// the wasm engine returns the native engine's rows in the same order, with the same bytes
// and the same units skipped by the runtime bound.
func Test_topkOverWasm(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	file := testcorpus.Read(t, "hyparquet/page_index.parquet")
	for _, so := range []pqscan.ScanOptions{
		{OrderBy: "id DESC", Limit: 10, Columns: []string{"ri", "id", "word"}},
		{OrderBy: "word DESC, id", Where: "id < 2000", Limit: 5, Offset: 2, Columns: []string{"ri", "word"}},
		{OrderBy: "word", Columns: []string{"ri"}, BatchRows: 333},
	} {
		so.RowIndex = "ri"
		run := func(engine pqscan.Engine) ([]int64, pqscan.Report) {
			f, err := pqscan.OpenReaderAt(ctx, bytes.NewReader(file), int64(len(file)), pqscan.Options{Engine: engine, TailSize: 1024})
			require.NoError(t, err)
			defer f.Close()
			rd, err := f.Scan(ctx, so)
			require.NoError(t, err)
			defer rd.Close()
			var got []int64
			for {
				rec, err := rd.Next()
				if errors.Is(err, io.EOF) {
					return got, rd.Report()
				}
				require.NoError(t, err, so.OrderBy)
				got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
				rec.Release()
			}
		}
		want, wrep := run(pqscan.Native{})
		got, grep := run(h)
		require.True(t, len(want) > 0, so.OrderBy)
		require.Equal(t, want, got, so.OrderBy)
		require.Equal(t, wrep.BytesRequested, grep.BytesRequested, so.OrderBy)
		require.Equal(t, wrep.TopKSkipped, grep.TopKSkipped, so.OrderBy)
		require.True(t, so.Limit == 0 || grep.TopKSkipped > 0, "the bound skipped nothing", so.OrderBy)
	}
}
