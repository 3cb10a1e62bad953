package optimize

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

func Test_Measure(t *testing.T) {
	dir := t.TempDir()
	in := genEvents(t, 50_000)
	var out bytes.Buffer
	_, err := Rewrite(context.Background(), openBytes(t, in), &out, Options{
		SortBy: []string{"tenant_id", "event_time"}, Bloom: []BloomSpec{{Column: "user_id"}}, RowGroupRows: 10_000, PageRows: 1000,
	})
	require.NoError(t, err)
	before, after := filepath.Join(dir, "in.parquet"), filepath.Join(dir, "out.parquet")
	require.NoError(t, os.WriteFile(before, in, 0o644))
	require.NoError(t, os.WriteFile(after, out.Bytes(), 0o644))
	queries := []Query{
		{Where: "tenant_id = 7 AND event_time >= TIMESTAMP '2026-09-21 14:00:00' AND event_time < TIMESTAMP '2026-09-21 14:20:00'", Columns: []string{"event_type", "value"}},
		{Where: "user_id = 7350035"}, // tenant 7, past its users: inside min/max, only bloom filters skip it
		{},
	}
	b, err := Measure(context.Background(), before, pqscan.Options{TailSize: 16 << 10}, queries)
	require.NoError(t, err)
	a, err := Measure(context.Background(), after, pqscan.Options{TailSize: 16 << 10}, queries)
	require.NoError(t, err)
	var tbl strings.Builder
	require.NoError(t, WriteCosts(&tbl, b, a))
	t.Log("\n" + tbl.String())
	for i := range queries {
		require.Equal(t, b[i].RowsMatched, a[i].RowsMatched, "query", i)
		require.True(t, a[i].Bytes > 0 && a[i].Requests > 0 && a[i].RoundTrips > 0)
	}
	require.True(t, b[0].RowsMatched > 0, "Q1 matches rows")
	require.Equal(t, int64(0), b[1].RowsMatched)
	require.Equal(t, int64(50_000), b[2].RowsMatched)
	require.True(t, a[0].Bytes*3 < b[0].Bytes, "sorted Q1 reads under a third", a[0].Bytes, b[0].Bytes)
	require.True(t, a[1].Bytes*3 < b[1].Bytes, "bloom Q2 reads under a third", a[1].Bytes, b[1].Bytes)
	require.True(t, strings.Contains(tbl.String(), "round trips"))
}
