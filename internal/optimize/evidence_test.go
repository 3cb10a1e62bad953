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

// Test_Evidence produces the before/after table of docs/CLI.md ("pqscan optimize"). It is
// skipped unless PQSCAN_EVIDENCE=1 (it generates a ~70 MB file and sorts a million rows):
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
	a := make([][]Cost, len(variants))
	for i, v := range variants {
		a[i], err = Measure(ctx, afters[i], pqscan.Options{}, queries)
		require.NoError(t, err)
		var sb strings.Builder
		require.NoError(t, WriteCosts(&sb, b, a[i]))
		t.Logf("before %s → after %s\n%s", filepath.Base(before), v.name, sb.String())
	}
	require.NoError(t, checkEvidence(b, a[0], a[1]))
}

// evidenceClaims are docs/CLI.md's before → after table (131,072-row groups), one row per
// query of Test_Evidence in order: the rows matched, and the least reduction of bytes the
// table's ratio stands for (8.4×, 10.0×, 2.2×, 2.9×, rounded down to leave room for the
// tail-read size and the footer), and the row groups read after.
var evidenceClaims = []struct {
	name         string
	rows         int64
	minRatio     float64
	rowGroupsMax int
}{
	{name: "Q1 largest tenant", rows: 240, minRatio: 8, rowGroupsMax: 2},
	{name: "Q1 median tenant", rows: 0, minRatio: 9.5, rowGroupsMax: 1},
	{name: "Q2 user of largest tenant", rows: 5, minRatio: 2, rowGroupsMax: 2},
	{name: "Q2 user of median tenant", rows: 6, minRatio: 2.5, rowGroupsMax: 1},
}

// oneGroupMinRatio is docs/CLI.md's "Q1 for the largest tenant drops to 391 KiB (32.7×)" with
// one 1M-row group, rounded down.
const oneGroupMinRatio = 30

// checkEvidence returns an error naming the first claim of docs/CLI.md's optimize table that
// the measured costs contradict: before is the unsorted file, small the rewrite with
// 131,072-row groups, one the rewrite with one row group; each holds the queries of
// evidenceClaims in order.
//
// The claims: every rewrite returns the same rows; with 131,072-row groups every query reads
// at most the claimed row groups and at least minRatio times fewer bytes in fewer requests and
// no more round trips; with one row group Q1 of the largest tenant reads oneGroupMinRatio
// times fewer bytes than before and fewer than with 131,072-row groups, while both Q2 read
// more bytes than with 131,072-row groups (the bloom filter has nothing to skip).
func checkEvidence(before, small, one []Cost) error {
	if len(before) != len(evidenceClaims) || len(small) != len(before) || len(one) != len(before) {
		return fmt.Errorf("want %d costs each, got %d, %d, %d", len(evidenceClaims), len(before), len(small), len(one))
	}
	for i, c := range evidenceClaims {
		b, s, o := before[i], small[i], one[i]
		if b.RowsMatched != c.rows || s.RowsMatched != c.rows || o.RowsMatched != c.rows {
			return fmt.Errorf("%s: rows %d before, %d and %d after, docs/CLI.md says %d", c.name, b.RowsMatched, s.RowsMatched, o.RowsMatched, c.rows)
		}
		if s.Bytes == 0 || float64(b.Bytes)/float64(s.Bytes) < c.minRatio {
			return fmt.Errorf("%s: bytes %d → %d (%s), docs/CLI.md claims at least %.1f×", c.name, b.Bytes, s.Bytes, ratio(b.Bytes, s.Bytes), c.minRatio)
		}
		if s.Requests >= b.Requests || s.RoundTrips > b.RoundTrips {
			return fmt.Errorf("%s: requests %d → %d, round trips %d → %d: docs/CLI.md claims fewer requests, no more round trips",
				c.name, b.Requests, s.Requests, b.RoundTrips, s.RoundTrips)
		}
		if got := s.Report.RowGroupsAfterBloom; got > c.rowGroupsMax {
			return fmt.Errorf("%s: %d row groups read after, docs/CLI.md says %d", c.name, got, c.rowGroupsMax)
		}
	}
	if b, s, o := before[0], small[0], one[0]; o.Bytes == 0 || float64(b.Bytes)/float64(o.Bytes) < oneGroupMinRatio || o.Bytes >= s.Bytes {
		return fmt.Errorf("%s, one row group: bytes %d → %d (%s), %d with 131,072-row groups: docs/CLI.md claims at least %d× and fewer",
			evidenceClaims[0].name, b.Bytes, o.Bytes, ratio(b.Bytes, o.Bytes), s.Bytes, oneGroupMinRatio)
	}
	for i := 2; i < 4; i++ {
		if one[i].Bytes <= small[i].Bytes {
			return fmt.Errorf("%s: %d bytes with one row group, %d with 131,072-row groups: docs/CLI.md claims one row group reads more",
				evidenceClaims[i].name, one[i].Bytes, small[i].Bytes)
		}
	}
	return nil
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

// readmeCosts returns the costs of docs/CLI.md's evidence table (before, 131,072-row groups, one
// row group), so that Test_checkEvidence runs the checks without the 70 MB file.
func readmeCosts() (before, small, one []Cost) {
	mib := func(f float64) int64 { return int64(f * (1 << 20)) }
	rows := []int64{240, 0, 5, 6}
	b := []int64{mib(12.5), mib(10.0), mib(10.7), mib(10.1)}
	s := []int64{mib(1.49), mib(1.00), mib(4.92), mib(3.51)}
	o := []int64{391 << 10, mib(1.07), mib(5.74), mib(6.21)}
	reqB, reqS := []int64{50, 17, 60, 58}, []int64{19, 9, 42, 20}
	rtB, rtS := []int64{4, 3, 4, 4}, []int64{3, 3, 4, 4}
	rgS := []int{2, 1, 2, 1}
	for i := range rows {
		before = append(before, Cost{Bytes: b[i], Requests: reqB[i], RoundTrips: rtB[i], RowsMatched: rows[i]})
		small = append(small, Cost{Bytes: s[i], Requests: reqS[i], RoundTrips: rtS[i], RowsMatched: rows[i]})
		small[i].Report.RowGroupsAfterBloom = rgS[i]
		one = append(one, Cost{Bytes: o[i], RowsMatched: rows[i]})
	}
	return before, small, one
}

func Test_checkEvidence(t *testing.T) {
	tests := []struct {
		name    string
		change  func(before, small, one []Cost)
		wantErr string
	}{
		{name: "docs table", change: func(before, small, one []Cost) {}},
		{name: "rows differ after", change: func(_, small, _ []Cost) { small[0].RowsMatched-- }, wantErr: "Q1 largest tenant: rows"},
		{name: "Q2 gains less than claimed", change: func(_, small, _ []Cost) { small[3].Bytes *= 2 }, wantErr: "Q2 user of median tenant: bytes"},
		{name: "more requests after", change: func(before, small, _ []Cost) { small[1].Requests = before[1].Requests }, wantErr: "Q1 median tenant: requests"},
		{name: "more round trips after", change: func(before, small, _ []Cost) { small[2].RoundTrips = before[2].RoundTrips + 1 }, wantErr: "Q2 user of largest tenant: requests"},
		{name: "more row groups read", change: func(_, small, _ []Cost) { small[0].Report.RowGroupsAfterBloom = 3 }, wantErr: "3 row groups read after"},
		{name: "one row group no better for Q1", change: func(_, small, one []Cost) { one[0].Bytes = small[0].Bytes }, wantErr: "one row group: bytes"},
		{name: "one row group no worse for Q2", change: func(_, small, one []Cost) { one[2].Bytes = small[2].Bytes }, wantErr: "bytes with one row group"},
		{name: "a query missing", change: nil, wantErr: "want 4 costs each"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, small, one := readmeCosts()
			if tc.change == nil {
				one = one[:3]
			} else {
				tc.change(before, small, one)
			}
			err := checkEvidence(before, small, one)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}
