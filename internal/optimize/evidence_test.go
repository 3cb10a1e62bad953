package optimize

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_Evidence produces the before/after table of README.md. It is skipped unless
// PQSCAN_EVIDENCE=1 (it generates a ~70 MB file and sorts a million rows):
//
//	PQSCAN_EVIDENCE=1 go test ./internal/optimize -run Evidence -v -timeout 30m
//
// Files go to PQSCAN_BENCH_DIR (default ../../.cache/events), where the DuckDB check of
// duckcheck/ can read them.
func Test_Evidence(t *testing.T) {
	if os.Getenv("PQSCAN_EVIDENCE") != "1" {
		t.Skip("set PQSCAN_EVIDENCE=1")
	}
	ctx := context.Background()
	dir := os.Getenv("PQSCAN_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "events")
	}
	cfg := events.Config{Rows: 1 << 20, Layout: events.Unsorted, RowGroupRows: 1 << 17}
	before, err := events.Cached(dir, cfg)
	require.NoError(t, err)

	variants := []struct {
		name string
		opts Options
	}{
		{"sorted-rg131072", Options{SortBy: []string{"tenant_id", "event_time"}, Bloom: []BloomSpec{{Column: "user_id"}}, RowGroupRows: 1 << 17, MemoryCap: 128 << 20}},
		{"sorted-default", Options{SortBy: []string{"tenant_id", "event_time"}, Bloom: []BloomSpec{{Column: "user_id"}}, MemoryCap: 128 << 20}},
	}
	afters := make([]string, len(variants))
	for i, v := range variants {
		afters[i] = filepath.Join(dir, strings.TrimSuffix(events.FileName(cfg), ".parquet")+"-optimized-"+v.name+".parquet")
		if _, err := os.Stat(afters[i]); err == nil && os.Getenv("PQSCAN_EVIDENCE_REWRITE") == "" {
			continue // made by an earlier run (same input, same options)
		}
		in, err := pqscan.Open(ctx, before, pqscan.Options{})
		require.NoError(t, err)
		f, err := os.Create(afters[i])
		require.NoError(t, err)
		bw := bufio.NewWriterSize(f, 1<<20)
		start := time.Now()
		v.opts.Version, v.opts.TempDir = "evidence", t.TempDir()
		res, err := Rewrite(ctx, in, bw, v.opts)
		require.NoError(t, err)
		require.NoError(t, bw.Flush())
		require.NoError(t, f.Close())
		in.Close()
		st, _ := os.Stat(afters[i])
		bs, _ := os.Stat(before)
		t.Logf("%s: %d rows, %d row groups, %d → %d bytes, %d runs spilled (%d bytes), bloom %+v, %v",
			v.name, res.Rows, res.RowGroups, bs.Size(), st.Size(), res.SortedRuns, res.SpilledBytes, res.Bloom, time.Since(start).Round(time.Second))
	}

	// Workload values: the largest tenant, a median-sized one, and a user of each.
	bigT, midT, bigUser, midUser := pickValues(t, afters[0])
	window := "event_time >= TIMESTAMP '2026-10-15 12:00:00' AND event_time < TIMESTAMP '2026-10-15 13:00:00'"
	queries := []Query{
		{Where: fmt.Sprintf("tenant_id = %d AND %s", bigT, window), Columns: []string{"event_type", "value"}},
		{Where: fmt.Sprintf("tenant_id = %d AND %s", midT, window), Columns: []string{"event_type", "value"}},
		{Where: fmt.Sprintf("user_id = %d", bigUser)},
		{Where: fmt.Sprintf("user_id = %d", midUser)},
	}
	b, err := Measure(ctx, before, pqscan.Options{}, queries)
	require.NoError(t, err)
	for i, v := range variants {
		a, err := Measure(ctx, afters[i], pqscan.Options{}, queries)
		require.NoError(t, err)
		var sb strings.Builder
		require.NoError(t, WriteCosts(&sb, b, a))
		t.Logf("before %s → after %s\n%s", filepath.Base(before), v.name, sb.String())
	}
}

// pickValues returns the tenant with the most rows, the tenant at the median of the tenant
// sizes, and the first user_id seen of each.
func pickValues(t *testing.T, path string) (big, mid, bigUser, midUser int64) {
	f, err := pqscan.Open(context.Background(), path, pqscan.Options{})
	require.NoError(t, err)
	defer f.Close()
	r, err := f.Scan(context.Background(), pqscan.ScanOptions{Columns: []string{"tenant_id", "user_id"}})
	require.NoError(t, err)
	defer r.Close()
	count := map[int64]int{}
	user := map[int64]int64{}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		tid, uid := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
		for i := range tid.Len() {
			if count[tid.Value(i)]++; count[tid.Value(i)] == 1 {
				user[tid.Value(i)] = uid.Value(i)
			}
		}
		rec.Release()
	}
	type tc struct {
		t int64
		n int
	}
	var ts []tc
	for k, n := range count {
		ts = append(ts, tc{k, n})
	}
	slices.SortFunc(ts, func(a, b tc) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.t, b.t)) })
	bt, mt := ts[0], ts[len(ts)/2]
	t.Logf("tenants: largest %d (%d rows), median %d (%d rows)", bt.t, bt.n, mt.t, mt.n)
	return bt.t, mt.t, user[bt.t], user[mt.t]
}
