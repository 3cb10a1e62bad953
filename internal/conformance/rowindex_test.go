package conformance

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_datasetRowIndex: over a dataset the row index is each row's position in its own file;
// a predicate on it prunes in every file, and it takes its place in Columns.
func Test_datasetRowIndex(t *testing.T) {
	dir := t.TempDir()
	b := testcorpus.Read(t, "hyparquet/page_index.parquet") // id = the row's position
	for _, n := range []string{"a.parquet", "b.parquet"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), b, 0o644))
	}
	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, []string{dir + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	for _, tc := range []struct {
		name    string
		cols    []string
		where   string
		riAt    int
		wantIDs []int64
	}{
		{name: "a range of positions in each file", cols: []string{"id"}, where: "ri BETWEEN 1498 AND 1500", riAt: 0,
			wantIDs: []int64{1498, 1499, 1500, 1498, 1499, 1500}},
		{name: "listed after a column", cols: []string{"id", "ri"}, where: "ri < 2 OR id = 2999", riAt: 1,
			wantIDs: []int64{0, 1, 2999, 0, 1, 2999}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := ds.Scan(ctx, pqscan.ScanOptions{Columns: tc.cols, Where: tc.where, RowIndex: "ri"})
			require.NoError(t, err)
			defer rd.Close()
			var ids []int64
			for {
				rec, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				require.Equal(t, "ri", rec.Schema().Field(tc.riAt).Name)
				ri := rec.Column(tc.riAt).(*array.Int64)
				id := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int32)
				for i := 0; i < int(rec.NumRows()); i++ {
					require.Equal(t, int64(id.Value(i)), ri.Value(i), "position in its file = id")
					ids = append(ids, int64(id.Value(i)))
				}
				rec.Release()
			}
			require.Equal(t, tc.wantIDs, ids)
		})
	}
}
