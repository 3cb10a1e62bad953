package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// tableAll scans a dataset opened from srcs with opts and returns its IPC batches and report.
func tableAll(t *testing.T, srcs []string, opts pqscan.Options, so pqscan.ScanOptions) ([][]byte, pqscan.Report, error) {
	t.Helper()
	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, srcs, opts)
	if err != nil {
		return nil, pqscan.Report{}, err
	}
	defer ds.Close()
	r, err := ds.Scan(ctx, so)
	if err != nil {
		return nil, pqscan.Report{}, err
	}
	defer r.Close()
	return drainIPC(r)
}

// sameTableSplit checks that a dataset scan on three threads returns the one session's rows
// in its order and the same file lines, and returns both reports.
func sameTableSplit(t *testing.T, what string, srcs []string, opts pqscan.Options, so pqscan.ScanOptions) (one, split pqscan.Report) {
	t.Helper()
	opts.Threads = 1
	want, wrep, werr := tableAll(t, srcs, opts, so)
	opts.Threads = 3
	got, grep, gerr := tableAll(t, srcs, opts, so)
	if werr != nil || gerr != nil {
		require.True(t, werr != nil && gerr != nil, what, werr, gerr)
		require.Equal(t, werr.Error(), gerr.Error(), what)
		return wrep, grep
	}
	require.NoError(t, sameBatchRows(want, got), what)
	require.Equal(t, wrep.RowsReturned, grep.RowsReturned, what)
	require.Equal(t, wrep.FilesTotal, grep.FilesTotal, what)
	require.Equal(t, wrep.FilesAfterStats, grep.FilesAfterStats, what)
	require.Equal(t, len(wrep.Files), len(grep.Files), what)
	for i := range wrep.Files {
		require.Equal(t, wrep.Files[i].SkippedBy, grep.Files[i].SkippedBy, what, wrep.Files[i].Path)
		require.Equal(t, wrep.Files[i].RowsReturned, grep.Files[i].RowsReturned, what, wrep.Files[i].Path)
	}
	return wrep, grep
}

// splitTable is sameTableSplit of a scan that must run as runs of files when it reads two.
func splitTable(t *testing.T, what string, srcs []string, so pqscan.ScanOptions) {
	t.Helper()
	one, split := sameTableSplit(t, what, srcs, pqscan.Options{}, so)
	if one.FilesRead >= 2 {
		require.True(t, split.Units >= 2, what, "units", split.Units)
	}
}

// Test_tableSplitCorpus: every Delta and Iceberg table of the shared corpus (deletion vectors,
// column mapping, checkpoints, schema changes, equality and position deletes, defaults)
// scanned as runs of files on three threads, one file a unit, gives the one session's rows.
func Test_tableSplitCorpus(t *testing.T) {
	withUnitMinBytes(t, 1)
	dir := testcorpus.Dir(t)
	var tables []string
	for _, group := range []string{"dat", "delta-rs"} {
		ents, err := os.ReadDir(filepath.Join(dir, "delta", group))
		require.NoError(t, err)
		for _, e := range ents {
			if e.IsDir() {
				tables = append(tables, filepath.Join(dir, "delta", group, e.Name())+"/")
			}
		}
	}
	for _, row := range testcorpus.IcebergTables(t) {
		if _, refused := icebergRefused[row["name"]]; !refused {
			tables = append(tables, filepath.Join(dir, "iceberg", "tables", row["name"], row["table_root"])+"/")
		}
	}
	require.True(t, len(tables) > 30, len(tables))
	for _, tab := range tables {
		splitTable(t, tab, []string{tab}, pqscan.ScanOptions{})
	}
}

// Test_tableSplitHive: a Hive folder whose files differ (an extra column, a missing one, a
// narrower type) split into runs of files: every query's rows in order, with predicates on
// the partition and on data columns, projections, and a runtime-free WHERE that skips files.
func Test_tableSplitHive(t *testing.T) {
	withUnitMinBytes(t, 1)
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 250},
		{dir: "event_date=2024-01-02", first: 1000, rows: 120, extra: true},
		{dir: "event_date=2024-01-03", first: 2000, rows: 90, noName: true},
		{dir: "event_date=2024-01-04", first: 3000, rows: 130, idInt32: true},
		{dir: "event_date=2024-01-05", first: 4000, rows: 70},
		{dir: "event_date=2024-01-06", first: 5000, rows: 310},
	}
	root, paths, _ := buildDataset(t, days)
	for _, so := range []pqscan.ScanOptions{
		{},
		{Columns: []string{"name", "event_date"}},
		{Where: "event_date >= '2024-01-03'"},
		{Where: "id % 7 = 3 OR event_date = '2024-01-02'"},
		{Where: "id BETWEEN 1100 AND 3050", Columns: []string{"id"}},
		{Where: "name IS NULL"},
		{Where: "id > 1000000"},
	} {
		splitTable(t, so.Where, []string{root + "/"}, so)
		splitTable(t, so.Where, paths, so)
	}
}

// threeDays is a small Hive folder of three day files of one schema.
var threeDays = []dayFile{
	{dir: "event_date=2024-01-01", first: 0, rows: 250},
	{dir: "event_date=2024-01-02", first: 1000, rows: 120},
	{dir: "event_date=2024-01-03", first: 2000, rows: 90},
}

// Test_tableSplitOneSession: scans whose answer is not their files' answers in order stay one
// session: a limit, an offset, a count, min/max, an ORDER BY.
func Test_tableSplitOneSession(t *testing.T) {
	withUnitMinBytes(t, 1)
	days := threeDays
	root, _, _ := buildDataset(t, days)
	for _, so := range []pqscan.ScanOptions{
		{Limit: 300},
		{Offset: 10},
		{Where: "id > 5", Limit: 3},
		{OrderBy: "id DESC", Limit: 5},
	} {
		_, rep, err := tableAll(t, []string{root + "/"}, pqscan.Options{Threads: 3}, so)
		require.NoError(t, err)
		require.Equal(t, 0, rep.Units, so)
		sameTableSplit(t, "one session", []string{root + "/"}, pqscan.Options{}, so)
	}
}

// Test_tableSplitError: a file that is not Parquet fails the split scan with the one
// session's error, and no batch after it.
func Test_tableSplitError(t *testing.T) {
	withUnitMinBytes(t, 1)
	days := threeDays
	root, paths, _ := buildDataset(t, days)
	b, err := os.ReadFile(paths[2])
	require.NoError(t, err)
	copy(b[len(b)-8:], "xxxxxxxx") // footer length and magic
	require.NoError(t, os.WriteFile(paths[2], b, 0o644))
	for _, threads := range []int{1, 3} {
		_, _, err := tableAll(t, []string{root + "/"}, pqscan.Options{Threads: threads}, pqscan.ScanOptions{Columns: []string{"id"}})
		require.Error(t, err, threads)
		require.True(t, errors.Is(err, pqscan.ErrCorrupt) || errors.Is(err, pqscan.ErrNotParquet), threads, err)
	}
}

// Test_tableSplitWazero: a dataset scan through the wasm module runs its runs of files on
// several of the Host's instances, with the one module session's rows.
func Test_tableSplitWazero(t *testing.T) {
	withUnitMinBytes(t, 1)
	ctx := context.Background()
	h, err := wazerohost.New(ctx, wazerohost.Config{})
	require.NoError(t, err)
	defer h.Close(ctx)
	dir := testcorpus.Dir(t)
	for _, tab := range []string{
		filepath.Join(dir, "delta", "delta-rs", "checkpoint-v2-table") + "/",
		filepath.Join(dir, "delta", "delta-rs", "table_with_column_mapping") + "/",
		filepath.Join(dir, "delta", "dat", "with_schema_change") + "/",
	} {
		one, split := sameTableSplit(t, tab, []string{tab}, pqscan.Options{Engine: h}, pqscan.ScanOptions{})
		require.True(t, one.FilesRead >= 2 && split.Units >= 2 && split.Threads >= 2, tab, split.Units, split.Threads)
	}
}
