package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// countCases are counts over corpus files with every kind of skipping metadata: row groups
// and pages the statistics decide (all or none), undecided ones, null pages, no predicate.
var countCases = []struct{ file, where string }{
	{"hyparquet/page_index.parquet", ""},
	{"hyparquet/page_index.parquet", "id >= 1000"},
	{"hyparquet/page_index.parquet", "id >= 1300 AND id < 1700"},
	{"hyparquet/page_index.parquet", "id BETWEEN 0 AND 2999"},
	{"hyparquet/page_index.parquet", "id < 100 OR id > 2900"},
	{"hyparquet/page_index.parquet", "NOT (id < 1500)"},
	{"hyparquet/page_index.parquet", "word >= 'word-001000'"},
	{"hyparquet/rowgroups.parquet", "numbers > 10"},
	{"hyparquet/rowgroups.parquet", "numbers >= 3"},
	{"hyparquet/rowgroups.parquet", "numbers IN (1, 12, 15, 40)"},
	{"hyparquet/rowgroups.parquet", "numbers != 12"},
	{"parquet-testing/data/int32_with_null_pages.parquet", "int32_field IS NULL"},
	{"parquet-testing/data/int32_with_null_pages.parquet", "int32_field IS NOT NULL"},
	{"parquet-testing/data/int32_with_null_pages.parquet", "int32_field > 0 OR int32_field IS NULL"},
	{"parquet-testing/data/alltypes_tiny_pages.parquet", "id >= 10"},
	{"parquet-testing/data/alltypes_tiny_pages.parquet", "id >= 10 AND bool_col = true"},
	{"parquet-testing/data/alltypes_tiny_pages.parquet", "tinyint_col < 5"},
	{"parquet-testing/data/alltypes_tiny_pages_plain.parquet", "id BETWEEN 100 AND 5000"},
	{"parquet-testing/data/data_index_bloom_encoding_stats.parquet", "String = 'foo'"},
	{"parquet-testing/data/binary_truncated_min_max.parquet", "utf8_full_truncation <= 'Kf'"},
	{"parquet-testing/data/sort_columns.parquet", "a IS NOT NULL"},
	{"hyparquet/dictionary_offset_indexed.parquet", "country = 'Canada'"},
}

// Test_countDuckDB: File.Count equals DuckDB's SELECT count(*) ... WHERE on the same file
// (duckdb/count.mjs), and rows are counted from metadata where the statistics decide.
func Test_countDuckDB(t *testing.T) {
	root := testcorpus.Dir(t)
	node := testcorpus.DuckNode(t)
	args := []string{testcorpus.DuckScript("count.mjs"), root}
	for _, c := range countCases {
		args = append(args, c.file, c.where)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, args...).Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(out))
	var fromMeta int64
	for _, c := range countCases {
		require.True(t, sc.Scan(), "DuckDB gave fewer answers than cases")
		var res struct{ Count, Error string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &res))
		require.Equal(t, "", res.Error, c.file, c.where)
		want, err := strconv.ParseInt(res.Count, 10, 64)
		require.NoError(t, err)
		f, err := pqscan.Open(context.Background(), filepath.Join(root, c.file), pqscan.Options{})
		require.NoError(t, err)
		got, rep, err := f.Count(context.Background(), pqscan.ScanOptions{Where: c.where})
		f.Close()
		require.NoError(t, err, c.file, c.where)
		require.Equal(t, want, got, c.file, c.where)
		require.Equal(t, got, rep.RowsMatched, c.file, c.where)
		fromMeta += rep.RowsCountedFromMetadata
	}
	t.Logf("%d counts equal DuckDB's; %d rows counted from metadata", len(countCases), fromMeta)
	require.True(t, fromMeta > 10000, "rows counted from metadata:", fromMeta)
}

// DuckCounts runs duckdb/count.mjs over root for each (file, where) pair and returns DuckDB's
// counts: the oracle of the dataset count test (dataset_count_test.go, package pqscan_test).
func DuckCounts(t *testing.T, root string, pairs [][2]string) []int64 {
	t.Helper()
	node := testcorpus.DuckNode(t)
	args := []string{testcorpus.DuckScript("count.mjs"), root}
	for _, p := range pairs {
		args = append(args, p[0], p[1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, args...).Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(out))
	var counts []int64
	for _, p := range pairs {
		require.True(t, sc.Scan(), "DuckDB gave fewer answers than cases")
		var res struct{ Count, Error string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &res))
		require.Equal(t, "", res.Error, p[0], p[1])
		n, err := strconv.ParseInt(res.Count, 10, 64)
		require.NoError(t, err)
		counts = append(counts, n)
	}
	return counts
}
