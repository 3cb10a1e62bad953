package optimize

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_RewriteDataset: a dataset of small files (each its own footer and row group) is
// compacted into one file of row-group-sized row groups whose rows, read back by arrow-go,
// are the inputs' rows in file order (each input read by arrow-go too).
func Test_RewriteDataset(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i, n := range []int{300, 1200, 50, 2000} {
		b := genEvents(t, n)
		want = append(want, arrowRows(t, b)...)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.parquet", i)), b, 0o644))
	}
	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, []string{dir + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	var out bytes.Buffer
	res, err := Rewrite(ctx, ds, &out, Options{RowGroupRows: 1000, Bloom: []BloomSpec{{Column: "user_id"}}})
	require.NoError(t, err)
	require.Equal(t, int64(len(want)), res.Rows)
	require.Equal(t, 4, res.RowGroups) // 3,550 rows in row groups of 1,000
	require.Equal(t, want, arrowRows(t, out.Bytes()))
	require.Equal(t, 1, len(res.Bloom))
	require.True(t, res.Bloom[0].NDV > 100 && res.Bloom[0].NDV <= 1000, res.Bloom[0].NDV)
}
