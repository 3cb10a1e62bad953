package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_datasetCountDuckDB: Dataset.Count over a Hive folder (a widened int32 file, a file
// without the name column) equals DuckDB's count(*) over the same files read with
// hive_partitioning and union_by_name; files the partition predicate rules out fetch nothing,
// and a file it proves all-match is counted from its footer (rows counted from metadata).
func Test_datasetCountDuckDB(t *testing.T) {
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 250},
		{dir: "event_date=2024-01-02", first: 1000, rows: 120},
		{dir: "event_date=2024-01-03", first: 2000, rows: 90, noName: true},
		{dir: "event_date=2024-01-04", first: 3000, rows: 130, idInt32: true},
	}
	root, _, _ := buildDataset(t, days)
	wheres := []string{
		"",
		"event_date = DATE '2024-01-02'",
		"event_date >= DATE '2024-01-03'",
		"id >= 1050",
		"id >= 1050 AND event_date <= DATE '2024-01-02'",
		"name = 'n3'",
		"name IS NULL",
		"id < 0",
		"event_date = DATE '2024-01-04' AND id BETWEEN 3010 AND 3019",
		"value > 500.5 OR id < 3",
	}
	var pairs [][2]string
	for _, w := range wheres {
		pairs = append(pairs, [2]string{"hive:*/*.parquet", w})
	}
	want := DuckCounts(t, root, pairs)
	ctx := context.Background()
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	for i, w := range wheres {
		got, rep, err := ds.Count(ctx, pqscan.ScanOptions{Where: w})
		require.NoError(t, err, w)
		require.Equal(t, want[i], got, w)
		require.Equal(t, int64(1), rep.RowsReturned, w)
		r, err := ds.Scan(ctx, pqscan.ScanOptions{Where: w})
		require.NoError(t, err, w)
		require.Equal(t, int(got), len(readAll(t, r)), "count = rows scanned:", w)
	}
	// A partition predicate alone: the kept file is counted from its footer's num_rows, the
	// others cost nothing.
	got, rep, err := ds.Count(ctx, pqscan.ScanOptions{Where: "event_date = DATE '2024-01-02'"})
	require.NoError(t, err)
	require.Equal(t, int64(120), got)
	require.Equal(t, int64(120), rep.RowsCountedFromMetadata)
	require.Equal(t, 1, rep.FilesRead)
	// Offset and limit apply to the count, as for one file.
	for _, c := range []struct{ offset, limit, want int64 }{{0, 0, 590}, {100, 0, 490}, {100, 50, 50}, {580, 50, 10}, {600, 5, 0}} {
		got, _, err := ds.Count(ctx, pqscan.ScanOptions{Offset: c.offset, Limit: c.limit})
		require.NoError(t, err)
		require.Equal(t, c.want, got, "offset", c.offset, "limit", c.limit)
	}
}

// Test_datasetCountDelta: counts over Delta tables (local and over HTTP, at an older
// version too) equal the rows their scans return (which the DAT tests check against the
// expected contents); files the Delta statistics rule out count 0.
func Test_datasetCountDelta(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	srv := httptest.NewServer(http.FileServer(http.Dir(corpus)))
	defer srv.Close()
	v0 := int64(0)
	for _, c := range []struct {
		rel, where string
		version    *int64
	}{
		{rel: "dat/basic_partitioned/delta"},
		{rel: "dat/basic_partitioned/delta", where: "letter = 'a'"},
		{rel: "dat/basic_partitioned/delta", where: "letter IS NULL"},
		{rel: "dat/basic_partitioned/delta", where: "number > 3"},
		{rel: "dat/basic_append/delta", version: &v0},
		{rel: "dat/multi_partitioned/delta", where: "letter = 'b'"},
		{rel: "delta-rs/simple_table_with_checkpoint", where: "version > 5"},
	} {
		for _, root := range []string{filepath.Join(corpus, c.rel), srv.URL + "/" + c.rel} {
			rows, _, err := deltaRows(t, root, c.version, pqscan.ScanOptions{Where: c.where})
			require.NoError(t, err, root, c.where)
			ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{DeltaVersion: c.version})
			require.NoError(t, err)
			got, _, err := ds.Count(context.Background(), pqscan.ScanOptions{Where: c.where})
			ds.Close()
			require.NoError(t, err, root, c.where)
			require.Equal(t, int64(len(rows)), got, root, c.where)
		}
	}
}

// Test_datasetCountDeltaLogOnly: a count over a Delta table served over HTTP takes every file
// that needs no residual predicate from the log's numRecords: count(*), a count on the
// partition column, and one on a data column whose statistics decide every file (these files
// hold one row each) read the log and no data file; with statistics off the files are read.
func Test_datasetCountDeltaLogOnly(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	var mu sync.Mutex
	var data []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/_delta_log/") && r.URL.Query().Get("list-type") == "" {
			mu.Lock()
			data = append(data, r.URL.Path)
			mu.Unlock()
		}
		http.FileServer(http.Dir(corpus)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	root := srv.URL + "/dat/basic_partitioned/delta"
	for _, c := range []struct {
		where    string
		disable  []string
		dataRead bool
	}{{"", nil, false}, {"letter = 'a'", nil, false}, {"letter IS NULL OR letter = 'e'", nil, false},
		{"number > 3", nil, false}, {"", []string{"statistics"}, true}, {"number > 3", []string{"statistics"}, true}} {
		rows, _, err := deltaRows(t, root, nil, pqscan.ScanOptions{Where: c.where})
		require.NoError(t, err)
		ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{})
		require.NoError(t, err)
		mu.Lock()
		data = nil
		mu.Unlock()
		got, rep, err := ds.Count(context.Background(), pqscan.ScanOptions{Where: c.where, Disable: c.disable})
		ds.Close()
		require.NoError(t, err, c.where)
		require.Equal(t, int64(len(rows)), got, c.where)
		mu.Lock()
		read := len(data) > 0
		mu.Unlock()
		require.Equal(t, c.dataRead, read, "data files read for", c.where)
		if !c.dataRead {
			require.Equal(t, got, rep.RowsCountedFromMetadata, c.where)
		}
	}
}
