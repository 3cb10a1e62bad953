package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_rowGroupAllMatch: a row group whose statistics prove every row matches is returned
// without evaluating the exact filter (no row of it is scanned), with the same rows as a scan
// that filters every row (NoPrune). f0 has 4 row groups of 50 rows, ids 0..199 in order.
func Test_rowGroupAllMatch(t *testing.T) {
	dir := t.TempDir()
	paths, _ := writeSchemaFiles(t, dir)
	ctx := context.Background()
	f, err := pqscan.Open(ctx, paths[0], pqscan.Options{})
	require.NoError(t, err)
	defer f.Close()
	for _, c := range []struct {
		where             string
		allMatch, scanned int64
		rows              int
	}{
		{"id >= 50", 3, 0, 150},
		{"id >= 25", 3, 50, 175},
		{"id >= 25 AND name IS NOT NULL", 3, 50, 175},
		{"id >= 25 AND name = 'n1'", 0, 200, 35},
		{"gone IS NULL", 0, 0, 0},
		{"NOT (id < 100)", 2, 0, 100},
		{"id < 60 OR id > 170", 1, 100, 89},
	} {
		rows, rep := scanFile(t, f, pqscan.ScanOptions{Where: c.where})
		want, _ := scanFile(t, f, pqscan.ScanOptions{Where: c.where, NoPrune: true})
		require.Equal(t, want, rows, c.where)
		require.Equal(t, c.rows, len(rows), c.where)
		require.Equal(t, int(c.allMatch), rep.RowGroupsAllMatch, c.where)
		require.Equal(t, c.scanned, rep.RowsScanned, c.where)
	}
	// Over a dataset the row groups' counters add up.
	ds, err := pqscan.OpenDataset(ctx, []string{paths[0], filepath.Join(dir, "f1.parquet")}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	_, rep := scanRows(t, ds, "id >= 25")
	require.Equal(t, 3+4, rep.RowGroupsAllMatch, fmt.Sprint(rep.RowsScanned))
	require.Equal(t, int64(50), rep.RowsScanned)
}

// Test_rowGroupAllMatchFetch: a row group that needs no filter does not fetch its
// predicate-only columns: projecting name alone costs fewer bytes than projecting name and
// id (which a filtered row group fetches either way), with the same rows of name.
func Test_rowGroupAllMatchFetch(t *testing.T) {
	dir := t.TempDir()
	paths, _ := writeSchemaFiles(t, dir)
	ctx := context.Background()
	// A small tail, so that the data pages are fetched by the scan (not all in the tail).
	f, err := pqscan.Open(ctx, paths[0], pqscan.Options{TailSize: 1024})
	require.NoError(t, err)
	defer f.Close()
	run := func(where string, cols ...string) ([]string, pqscan.Report) {
		lines, rep := scanFile(t, f, pqscan.ScanOptions{Where: where, Columns: cols})
		for i, line := range lines {
			lines[i] = line[strings.LastIndexByte(line, '|')+1:] // name
		}
		return lines, rep
	}
	names, rep := run("id >= 50", "name")
	both, rep2 := run("id >= 50", "id", "name")
	require.Equal(t, both, names)
	require.Equal(t, 150, len(names))
	require.Equal(t, 3, rep.RowGroupsAllMatch)
	require.True(t, rep.BytesRequested < rep2.BytesRequested, fmt.Sprint(rep.BytesRequested, " vs ", rep2.BytesRequested))
	// A row group that is filtered fetches id although it is not projected.
	_, rep3 := run("id >= 49", "name")
	require.True(t, rep3.BytesRequested > rep.BytesRequested, fmt.Sprint(rep3.BytesRequested, " vs ", rep.BytesRequested))
}

// Test_pageAllMatch: inside a row group that needs the filter, the pages whose column index
// proves every row matches skip it (RowsAllMatch), the page that straddles the bound is
// filtered (RowsScanned), and the rows are those of a scan that filters every row.
func Test_pageAllMatch(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pages.parquet")
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := 0; i < 1000; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Int64Builder).Append(int64(i % 7))
	}
	rec := b.NewRecordBatch()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithPageIndexEnabled(true), parquet.WithDataPageSize(512),
		parquet.WithBatchSize(50), parquet.WithDictionaryDefault(false), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	rec.Release()
	b.Release()
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	ctx := context.Background()
	f, err := pqscan.Open(ctx, p, pqscan.Options{})
	require.NoError(t, err)
	defer f.Close()
	// Pages of 100 rows: the page holding the bound is filtered, the pages beyond it are not.
	for _, c := range []struct {
		where           string
		scanned, proved int64
	}{
		{"id >= 475", 100, 500},
		{"id < 333 AND v IS NOT NULL", 100, 300},
		{"id >= 475 AND v = 3", 600, 0}, // v's pages hold every residue: nothing proved
	} {
		got, rep := scanFile(t, f, pqscan.ScanOptions{Where: c.where})
		want, _ := scanFile(t, f, pqscan.ScanOptions{Where: c.where, NoPrune: true})
		require.Equal(t, want, got, c.where)
		require.Equal(t, 1, rep.RowGroupsTotal)
		require.Equal(t, 0, rep.RowGroupsAllMatch)
		require.Equal(t, c.proved, rep.RowsAllMatch, c.where)
		require.Equal(t, c.scanned, rep.RowsScanned, c.where)
		require.Equal(t, int64(len(got)), rep.RowsMatched, c.where)
	}
}

// scanFile reads a scan of f to the end as recordRows, with its report.
func scanFile(t *testing.T, f *pqscan.File, so pqscan.ScanOptions) ([]string, pqscan.Report) {
	t.Helper()
	r, err := f.Scan(context.Background(), so)
	require.NoError(t, err, so.Where)
	defer r.Close()
	var out []string
	for {
		rec, err := r.Next()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			return out, r.Report()
		}
		out = append(out, recordRows(t, rec)...)
		rec.Release()
	}
}
