package wazerohost_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// Test_icebergPrune: corpus tables queried with a predicate on partitioned columns read, natively
// and with the module as the engine, the rows the same query reads with pruning off; the
// scan's statistics (column metrics and partition values) skip files before any footer, and
// the open's IcebergWhere leaves the same files out of Files.
func Test_icebergPrune(t *testing.T) {
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	read := func(e pqscan.Engine, root, openWhere string, o pqscan.ScanOptions) ([]string, scan.Report, int) {
		ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{Engine: e, IcebergWhere: openWhere, DeferSchema: true})
		require.NoError(t, err, root)
		defer ds.Close()
		r, err := ds.Scan(ctx, o)
		require.NoError(t, err, root)
		defer r.Close()
		return scanRows(t, r), r.Report(), len(ds.Files())
	}
	tests := []struct {
		name, table, where string
		files              int // the table's files
		afterStats         int // files left by the scan's statistics
	}{
		{name: "identity, evolved spec", table: "lithium__partition_evolution", where: "c3 = 42", files: 7, afterStats: 1},
		{name: "identity, first spec", table: "lithium__partition_evolution", where: "c1 = 3", files: 7, afterStats: 1},
		{name: "day of timestamptz", table: "lithium__day_timestamptz_partitioning", where: "c2 >= '2025-01-01T00:00:00Z'", files: 3, afterStats: 1},
		{name: "year of date", table: "lithium__year_date_partitioning", where: "c2 < '2025-01-01'", files: 2, afterStats: 1},
		{name: "month of timestamptz", table: "lithium__month_timestamptz_partitioning", where: "c2 < '2025-01-01T00:00:00Z'", files: 3, afterStats: 1},
		{name: "hour of timestamptz", table: "lithium__hour_timestamptz_partitioning", where: "c2 < '2025-01-01T00:00:00Z'", files: 3, afterStats: 1},
		{name: "null partition", table: "lithium__partitioning_with_null_value", where: "c1 IS NULL", files: 4, afterStats: 2},
		{name: "bucket, a value elsewhere", table: "lithium__bucket_partitioning", where: "col_long = 5", files: 1, afterStats: 0},
		{name: "bucket, its value", table: "lithium__bucket_partitioning", where: "col_string = 'some-string'", files: 1, afterStats: 1},
	}
	dir := filepath.Join(testcorpus.Dir(t), "iceberg", "tables")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(dir, tc.table)
			want, _, _ := read(nil, root, "", pqscan.ScanOptions{Where: tc.where, NoPrune: true})
			for _, e := range []pqscan.Engine{nil, h} {
				got, rep, n := read(e, root, "", pqscan.ScanOptions{Where: tc.where})
				require.Equal(t, want, got)
				require.Equal(t, tc.files, n)
				require.Equal(t, tc.afterStats, rep.FilesAfterStats)
				got, _, n = read(e, root, tc.where, pqscan.ScanOptions{Where: tc.where})
				require.Equal(t, want, got)
				require.Equal(t, tc.afterStats, n) // the same statistics, before the delete files are planned
			}
		})
	}
}

// scanRows reads every row of r as "column=value|…" strings, sorted.
func scanRows(t *testing.T, r *pqscan.Reader) []string {
	t.Helper()
	var rows []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			sort.Strings(rows)
			return rows
		}
		require.NoError(t, err)
		for i := 0; i < int(rec.NumRows()); i++ {
			var vals []string
			for c := 0; c < int(rec.NumCols()); c++ {
				vals = append(vals, rec.ColumnName(c)+"="+rec.Column(c).ValueStr(i))
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
		rec.Release()
	}
}
