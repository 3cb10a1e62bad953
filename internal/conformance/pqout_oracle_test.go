package conformance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/pqout"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_parquetOutputOracles: a filtered, projected scan written as Parquet by internal/pqout
// (what `pqscan cat --format parquet` writes) reads back as the same rows in three readers:
// pqscan itself, arrow-go's file reader, and DuckDB (duckdb/dump.mjs; skipped without its
// npm package, except under CI). Sources: a file with nested columns and nulls at every level,
// dictionary arrays, and a partitioned Delta table with a null partition value.
func Test_parquetOutputOracles(t *testing.T) {
	root := testcorpus.Dir(t)
	testcorpus.DuckNode(t) // skip early without the oracle
	tests := []struct {
		name string
		srcs []string // one file, or a dataset
		so   pqscan.ScanOptions
		rows int64
		dict bool // the result has dictionary arrays (written as Parquet dictionary pages)
	}{
		{name: "nested with nulls", srcs: []string{"parquet-testing/data/nullable.impala.parquet"},
			so:   pqscan.ScanOptions{Where: "id >= 2 AND id != 5", Columns: []string{"id", "int_array", "int_array_Array", "int_map", "int_Map_Array", "nested_struct"}},
			rows: 5},
		{name: "dictionary arrays", srcs: []string{"hyparquet/dictionary_offset_indexed.parquet"},
			so:   pqscan.ScanOptions{Where: "id > 150 OR country = 'Japan'", Columns: []string{"country", "id"}, DictionaryArrays: true, BatchRows: 7},
			rows: 70, dict: true},
		{name: "delta table", srcs: []string{"delta/dat/basic_partitioned/delta/"},
			so:   pqscan.ScanOptions{Where: "number >= 2", Columns: []string{"number", "letter"}},
			rows: 5},
	}
	dir := t.TempDir()
	wants := map[string]*scanResult{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			want := scanSources(ctx, t, root, tc.srcs, tc.so)
			require.Equal(t, tc.rows, want.rows)
			require.Equal(t, tc.dict, want.schema.Field(0).Type.ID() == arrow.DICTIONARY)

			var buf bytes.Buffer
			w, err := pqout.New(&buf, want.schema, pqout.Options{})
			require.NoError(t, err)
			for _, rec := range want.recs {
				require.NoError(t, w.Write(rec))
			}
			require.NoError(t, w.Close())
			out := buf.Bytes()

			// pqscan: the file reads back as the scan's result.
			wantTbl := array.NewTableFromRecords(want.schema, want.recs)
			defer wantTbl.Release()
			require.Equal(t, "", compareWithArrowGo(out, wantTbl), "pqscan reading the output vs the scan")
			// arrow-go: its reading of the file equals pqscan's.
			tbl, err := readArrowGo(out)
			require.NoError(t, err)
			defer tbl.Release()
			require.Equal(t, "", compareWithArrowGo(out, tbl), "pqscan vs arrow-go reading the output")
			name := fmt.Sprintf("out%d.parquet", len(wants))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), out, 0o644))
			wants[name] = want
		})
	}
	// DuckDB (one process for every output): its reading of each file equals the scan's result.
	var names []string
	for name := range wants {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := 0
	for _, d := range duckDump(t, dir, names...) {
		want := wants[d.File]
		require.True(t, want != nil, d.File)
		require.Equal(t, "", d.Error)
		require.Equal(t, want.rows, int64(len(d.Rows)))
		n, _, msgs := compareWithDuckDB(d, want, map[string]bool{})
		require.Equal(t, []string(nil), msgs, d.File)
		require.True(t, n >= len(d.Rows), n)
		seen++
	}
	require.Equal(t, len(tests), seen)
}

// duckDump reads each file (relative to dir) with DuckDB through duckdb/dump.mjs, one
// process for all, and returns its dumps in order (skipped without the oracle, except in CI).
func duckDump(t *testing.T, dir string, files ...string) []duckFile {
	t.Helper()
	var out []duckFile
	duckDumpEach(t, testcorpus.DuckNode(t), dir, files, func(d duckFile) { out = append(out, d) })
	require.Equal(t, len(files), len(out))
	return out
}

// scanSources scans one file, or several sources as a dataset, with the native engine.
func scanSources(ctx context.Context, t *testing.T, root string, srcs []string, so pqscan.ScanOptions) *scanResult {
	t.Helper()
	var (
		r   *pqscan.Reader
		err error
	)
	if len(srcs) == 1 && filepath.Ext(srcs[0]) == ".parquet" {
		f, err := pqscan.Open(ctx, filepath.Join(root, srcs[0]), pqscan.Options{})
		require.NoError(t, err)
		defer f.Close()
		r, err = f.Scan(ctx, so)
		require.NoError(t, err)
	} else {
		var paths []string
		for _, s := range srcs {
			p := filepath.Join(root, s)
			if s[len(s)-1] == '/' {
				p += "/"
			}
			paths = append(paths, p)
		}
		ds, err := pqscan.OpenDataset(ctx, paths, pqscan.Options{})
		require.NoError(t, err)
		defer ds.Close()
		r, err = ds.Scan(ctx, so)
		require.NoError(t, err)
	}
	res, err := collect(r)
	require.NoError(t, err)
	return res
}
