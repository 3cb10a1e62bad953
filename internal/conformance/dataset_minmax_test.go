package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// mmCase is one SELECT min(col), max(col) over a dataset [WHERE where].
type mmCase struct{ col, where string }

// duckLines runs each SQL with DuckDB (duckdb/query.mjs) and returns one JSON line of rows
// per query.
func duckLines(t *testing.T, sqls []string) []string {
	t.Helper()
	return testcorpus.DuckLines(t, sqls...)
}

// duckMinMax runs each case's min/max with DuckDB over the files glob matches below root
// (hive_partitioning, union_by_name) and returns [min, max] as canonical strings.
func duckMinMax(t *testing.T, root, glob string, cases []mmCase) [][2]string {
	t.Helper()
	var sqls []string
	for _, c := range cases {
		sql := fmt.Sprintf(`SELECT CAST(min("%s") AS VARCHAR), CAST(max("%s") AS VARCHAR) FROM read_parquet('%s', hive_partitioning = true, union_by_name = true)`,
			c.col, c.col, filepath.Join(root, glob))
		if c.where != "" {
			sql += " WHERE " + c.where
		}
		sqls = append(sqls, sql)
	}
	lines := duckLines(t, sqls)
	var res [][2]string
	for i := range cases {
		var rows [][]any
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &rows))
		require.Equal(t, 1, len(rows))
		var p [2]string
		for j := range p {
			p[j] = "NULL"
			if s, ok := rows[0][j].(string); ok {
				p[j] = s
			}
		}
		res = append(res, p)
	}
	return res
}

// mmCanon is element 0 of a as duckMinMax gives DuckDB's answer (floats by value).
func mmCanon(a arrow.Array) string {
	switch {
	case a.IsNull(0):
		return "NULL"
	case a.DataType().ID() == arrow.FLOAT64:
		return strconv.FormatFloat(a.(*array.Float64).Value(0), 'g', -1, 64)
	}
	return a.ValueStr(0)
}

// floatCanon parses DuckDB's VARCHAR of a double back into mmCanon's form.
func floatCanon(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return s
}

// checkMinMax compares Dataset.MinMax with DuckDB on each case and returns the reports.
func checkMinMax(t *testing.T, ds *pqscan.Dataset, want [][2]string, cases []mmCase) []pqscan.Report {
	t.Helper()
	var reps []pqscan.Report
	for i, c := range cases {
		rec, rep, err := ds.MinMax(context.Background(), c.col, pqscan.ScanOptions{Where: c.where})
		require.NoError(t, err, c.col, c.where)
		lo, hi := mmCanon(rec.Column(0)), mmCanon(rec.Column(1))
		w := want[i]
		if rec.Column(0).DataType().ID() == arrow.FLOAT64 {
			w = [2]string{floatCanon(w[0]), floatCanon(w[1])}
		}
		rec.Release()
		require.Equal(t, w[0], lo, c.col, c.where, "min")
		require.Equal(t, w[1], hi, c.col, c.where, "max")
		reps = append(reps, rep)
	}
	return reps
}

// Test_datasetMinMaxDuckDB: Dataset.MinMax over a Hive folder (a file whose int32 id the
// table widens to int64, a file without the name column) equals DuckDB's min() and max()
// over the same files, for file and partition columns, with and without predicates.
func Test_datasetMinMaxDuckDB(t *testing.T) {
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 250},
		{dir: "event_date=2024-01-02", first: 1000, rows: 120},
		{dir: "event_date=2024-01-03", first: 2000, rows: 90, noName: true},
		{dir: "event_date=2024-01-04", first: 3000, rows: 130, idInt32: true},
	}
	root, _, _ := buildDataset(t, days)
	var cases []mmCase
	for _, col := range []string{"id", "value", "name", "event_date"} {
		for _, w := range []string{"", "event_date >= DATE '2024-01-03'", "id >= 1050 AND id < 3100", "name = 'n3'", "id < 0", "name IS NULL", "value > 500.5 OR id < 3"} {
			cases = append(cases, mmCase{col, w})
		}
	}
	want := duckMinMax(t, root, "*/*.parquet", cases)
	ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	checkMinMax(t, ds, want, cases)
	// A partition predicate alone leaves the kept files without a residual: the row groups'
	// exact int64 statistics answer id, no data page is read.
	_, rep, err := ds.MinMax(context.Background(), "id", pqscan.ScanOptions{Where: "event_date <= DATE '2024-01-02'"})
	require.NoError(t, err)
	require.Equal(t, 2, rep.FilesRead)
	require.True(t, rep.RowGroupsFromMetadata == rep.RowGroupsTotal && rep.RowGroupsTotal > 0, "row groups from metadata", rep.RowGroupsFromMetadata, "of", rep.RowGroupsTotal)
	// Errors stay clear: an unknown column, and options a min/max does not take.
	_, _, err = ds.MinMax(context.Background(), "nope", pqscan.ScanOptions{})
	require.ErrorContains(t, err, `no column "nope"`)
	_, _, err = ds.MinMax(context.Background(), "id", pqscan.ScanOptions{Limit: 3})
	require.ErrorContains(t, err, "minMax does not combine")
}

// Test_datasetMinMaxDelta: over a Delta table served over HTTP the answer equals DuckDB's over
// the same files, and a file needing no residual is answered from the log where its
// statistics are exact (number: int64 bounds; letter: the partition value) with no request
// for any data file, while a_float (NaN is not counted in the log) reads the files, and so
// statistics off answer from the data alone.
func Test_datasetMinMaxDelta(t *testing.T) {
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	var log reqLog // data requests (topk test)
	base := log.serve(t, corpus)
	rel := "dat/basic_partitioned/delta"
	cases := []struct {
		mmCase
		dataRead bool
	}{
		{mmCase{"number", ""}, false},
		{mmCase{"number", "letter = 'a' OR letter IS NULL"}, false},
		{mmCase{"letter", ""}, false},
		{mmCase{"letter", "number > 3"}, false}, // the statistics prove which files all match
		// The data files are smaller than the tail: once read, their bytes are in the footer
		// cache (keyed by ETag), so the cases that read come last.
		{mmCase{"a_float", ""}, true},
		{mmCase{"number", "a_float > 2.5"}, false}, // from the cache: the files were read above
		{mmCase{"letter", "a_float < 5"}, false},
	}
	var mc []mmCase
	for _, c := range cases {
		mc = append(mc, c.mmCase)
	}
	want := duckMinMax(t, filepath.Join(corpus, rel), "*/*.parquet", mc)
	ds, err := pqscan.OpenDataset(context.Background(), []string{base + "/" + rel + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	for i, c := range cases {
		log.take()
		reps := checkMinMax(t, ds, want[i:i+1], mc[i:i+1])
		read := len(log.take()) > 0
		require.Equal(t, c.dataRead, read, "data files read for", c.col, c.where)
		if i < 4 {
			require.True(t, reps[0].RowsCountedFromMetadata > 0, c.col, c.where)
		}
	}
	log.take()
	rec, rep, err := ds.MinMax(context.Background(), "number", pqscan.ScanOptions{Disable: []string{"statistics"}})
	require.NoError(t, err)
	require.Equal(t, int64(0), rep.RowsCountedFromMetadata, "statistics off: nothing from the log")
	require.Equal(t, want[0][0]+" "+want[0][1], mmCanon(rec.Column(0))+" "+mmCanon(rec.Column(1)))
	rec.Release()
	require.Equal(t, 0, len(log.take()), "every data file is in the footer cache")

	// Files of several rows: exact int64 bounds answer from the log; string bounds, which
	// writers may truncate, never do (the files are read).
	rel = "dat/basic_append/delta"
	mc = []mmCase{{"number", ""}, {"letter", ""}}
	want = duckMinMax(t, filepath.Join(corpus, rel), "*.parquet", mc)
	ds2, err := pqscan.OpenDataset(context.Background(), []string{base + "/" + rel + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds2.Close()
	for i, dataRead := range []bool{false, true} {
		log.take()
		reps := checkMinMax(t, ds2, want[i:i+1], mc[i:i+1])
		require.Equal(t, dataRead, len(log.take()) > 0, "data files read for", mc[i].col)
		if !dataRead {
			require.Equal(t, int64(5), reps[0].RowsCountedFromMetadata)
		}
	}
}
