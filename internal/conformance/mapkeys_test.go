package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_groupKeyMaps: MAP columns whose key is a required group (a struct key, as Spark
// writes them, and a list key) read as Arrow maps with those keys, and their values equal
// arrow-go's reading of the file and DuckDB's (duckdb/dump.mjs; skipped without its npm
// package, except under CI).
func Test_groupKeyMaps(t *testing.T) {
	data, err := testcorpus.GroupKeyMaps()
	require.NoError(t, err)
	res, err := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
	require.NoError(t, err)
	require.Equal(t, int64(testcorpus.GroupKeyMapRows), res.rows)
	require.Equal(t, "map<struct<a: int32, b: utf8 nullable>, utf8, items_nullable>", res.schema.Field(1).Type.String())
	require.Equal(t, "map<list<element: int32, nullable>, int64, items_nullable>", res.schema.Field(2).Type.String())

	tbl, err := readArrowGo(data)
	require.NoError(t, err)
	defer tbl.Release()
	require.Equal(t, arrow.MAP, tbl.Schema().Field(1).Type.ID())
	require.Equal(t, "", compareWithArrowGo(data, tbl))

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "maps.parquet"), data, 0o644))
	ds := duckDump(t, dir, "maps.parquet")
	require.Equal(t, "", ds[0].Error)
	require.Equal(t, `MAP(STRUCT("a" INTEGER, "b" VARCHAR), VARCHAR)`, ds[0].Columns[1].Type)
	require.Equal(t, "MAP(INTEGER[], BIGINT)", ds[0].Columns[2].Type)
	n, _, msgs := compareWithDuckDB(ds[0], res, map[string]bool{})
	require.Equal(t, []string(nil), msgs)
	require.True(t, n > 2*testcorpus.GroupKeyMapRows, n)
}
