package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_RunDataset: the dataset workload on a small month (2 files a day): both sides return
// the same rows, the one-day query's scan touches only that day's files, and every figure
// the table prints is filled in. (No wall-clock assertion.)
func Test_RunDataset(t *testing.T) {
	dir := t.TempDir()
	root, err := events.MonthCached(dir, events.Month{Config: events.Config{Rows: 20000}, Parts: 2})
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, events.SingleFile))
	require.NoError(t, err)
	tbl, err := Open(b)
	require.NoError(t, err)
	p, err := ChooseParams(tbl)
	require.NoError(t, err)
	rs, err := RunDataset(context.Background(), DatasetConfig{Root: root, Params: p, ListPageSize: 25})
	require.NoError(t, err)
	require.Equal(t, 4, len(rs))
	for _, r := range rs {
		require.True(t, r.RowsOK, r.Query.Name, r.Dataset.Rows, r.Single.Rows)
		require.True(t, r.Dataset.Rows > 0, r.Query.Name, "matches no row")
		require.Equal(t, int64(3), r.Dataset.ListRequests, r.Query.Name) // 62 keys in pages of 25
		require.Equal(t, 62, r.Dataset.FilesTotal, r.Query.Name)
		require.True(t, r.Dataset.RoundTrips > 0 && r.Single.RoundTrips > 0, r.Query.Name)
		require.Equal(t, r.Dataset.ListRequests+int64(r.Dataset.OpenRounds+r.Dataset.ScanRounds), int64(r.Dataset.RoundTrips))
	}
	d1 := rs[0]
	require.True(t, d1.ScanDay, "D1's scan touched other days:", d1.Dataset.ScanDays)
	require.Equal(t, 2, d1.Dataset.FilesAfterPartitions)
	require.Equal(t, int64(100), rs[3].Dataset.Rows)
}
