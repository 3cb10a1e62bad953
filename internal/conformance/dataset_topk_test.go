package conformance

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/tablescan"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"github.com/pqscan/pqscan/wazerohost"
)

// wasmHost is a wazero host for the test (closed at its end): every file's scan in the module.
func wasmHost(t *testing.T) *wazerohost.Host {
	t.Helper()
	h, err := wazerohost.New(context.Background(), wazerohost.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// writeSortFile writes part k of the top-k dataset: n rows of id (unique across files), g
// (few values: ties; int32 in part 3, which the table widens to int64), v (a double with
// nulls, NaN in part 2, ranges that overlap across files) and s (a string with nulls), in
// row groups of 40 rows.
func writeSortFile(t *testing.T, root string, k, n int) {
	t.Helper()
	gType := arrow.DataType(arrow.PrimitiveTypes.Int64)
	if k == 3 {
		gType = arrow.PrimitiveTypes.Int32
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "g", Type: gType},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(k*10000 + i))
		if g := int64((i*7 + k) % 5); k == 3 {
			b.Field(1).(*array.Int32Builder).Append(int32(g))
		} else {
			b.Field(1).(*array.Int64Builder).Append(g)
		}
		switch v := b.Field(2).(*array.Float64Builder); {
		case i%9 == 4:
			v.AppendNull()
		case k == 2 && i == 17:
			v.Append(math.NaN())
		default:
			v.Append(float64((i*37+k*11)%200) + float64(k*50))
		}
		if i%6 == 5 {
			b.Field(3).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("s%03d", (i*13+k)%97))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(40), parquet.WithStats(true)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	dir := filepath.Join(root, fmt.Sprintf("part=%d", k))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.parquet"), buf.Bytes(), 0o644))
}

// writeSortDataset writes parts 1 to 4 of the top-k dataset (100+30k rows each) and returns
// its root.
func writeSortDataset(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for k := 1; k <= 4; k++ {
		writeSortFile(t, root, k, 100+30*k)
	}
	return root
}

// openSortDataset opens a fresh top-k dataset (closed at the test's end).
func openSortDataset(t *testing.T) *pqscan.Dataset {
	t.Helper()
	ds, err := pqscan.OpenDataset(context.Background(), []string{writeSortDataset(t) + "/"}, pqscan.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { ds.Close() })
	return ds
}

type topkCase struct {
	orderBy, where string
	limit, offset  int64
}

// duckTopK returns DuckDB's ids for each case over the files glob matches, read with Hive
// partitioning (ties broken by file, then position, as pqscan breaks them).
func duckTopK(t *testing.T, glob string, cases []topkCase) [][]string {
	t.Helper()
	return duckSorted(t, fmt.Sprintf("read_parquet('%s', hive_partitioning = true, union_by_name = true, filename = true, file_row_number = true)", glob), "id", cases)
}

// duckTopKCol is duckTopK for column col of files read without Hive partitioning.
func duckTopKCol(t *testing.T, glob, col string, cases []topkCase) [][]string {
	t.Helper()
	return duckSorted(t, fmt.Sprintf("read_parquet('%s', hive_partitioning = false, filename = true, file_row_number = true)", glob), col, cases)
}

// duckSorted runs each case's ORDER BY over from (which has filename and file_row_number)
// and returns column col of its rows.
func duckSorted(t *testing.T, from, col string, cases []topkCase) [][]string {
	t.Helper()
	var sqls []string
	for _, c := range cases {
		sql := fmt.Sprintf("SELECT CAST(%s AS VARCHAR) FROM %s", col, from)
		if c.where != "" {
			sql += " WHERE " + c.where
		}
		sql += " ORDER BY " + c.orderBy + ", filename, file_row_number"
		if c.limit > 0 {
			sql += fmt.Sprintf(" LIMIT %d", c.limit)
		}
		sqls = append(sqls, sql+fmt.Sprintf(" OFFSET %d", c.offset))
	}
	lines := duckLines(t, sqls)
	var res [][]string
	for i := range cases {
		var rows [][]string
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &rows))
		vals := []string{}
		for _, r := range rows {
			vals = append(vals, r[0])
		}
		res = append(res, vals)
	}
	return res
}

// sortedIDs runs a sorted scan of the dataset and returns its ids in order, with the report.
func sortedIDs(t *testing.T, ds *pqscan.Dataset, c topkCase) ([]string, pqscan.Report) {
	t.Helper()
	return sortedColReport(t, ds, "id", c)
}

var topkDatasetCases = []topkCase{
	{"v DESC", "", 10, 0},
	{"v", "", 10, 0},
	{"v DESC NULLS FIRST", "", 12, 0},
	{"v", "s IS NOT NULL AND part >= 2", 15, 4},
	{"g DESC, v", "", 25, 0},
	{"g, id DESC", "v > 100", 30, 7},
	{"s DESC", "", 9, 0},
	{"s NULLS FIRST", "", 20, 0},
	{"id DESC", "", 5, 0},
	{"id", "part = 3", 5, 0},
	{"v DESC", "", 0, 0},       // a sort of every row
	{"s, g DESC", "", 0, 100},  // a sort with an offset
	{"v DESC", "id < 0", 5, 0}, // no row
	{"part DESC", "", 7, 0},    // a partition column: each file's first rows
	{"part DESC, v", "g < 3", 12, 2},
	{"g, part DESC, s NULLS FIRST", "", 20, 0},
	{"part", "", 0, 0},
}

// Test_datasetTopKDuckDB: ORDER BY over a Hive dataset (overlapping value ranges, ties, nulls,
// a NaN, an int32 column widened to int64) returns DuckDB's rows, with and without a limit,
// through the native engine and the wasm module; the bound skips whole files with a limit.
func Test_datasetTopKDuckDB(t *testing.T) {
	root := writeSortDataset(t)
	want := duckTopK(t, filepath.Join(root, "*", "*.parquet"), topkDatasetCases)
	for _, engine := range []string{"native", "wasm"} {
		o := pqscan.Options{}
		if engine == "wasm" {
			o.Engine = wasmHost(t)
		}
		ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, o)
		require.NoError(t, err)
		for i, c := range topkDatasetCases {
			got, _ := sortedIDs(t, ds, c)
			require.Equal(t, want[i], got, engine, c.orderBy, c.where, c.limit, c.offset)
		}
		// id DESC LIMIT 5: part 4 holds the five best; the footers bound every other part
		// below them, so those are skipped whole.
		_, rep := sortedIDs(t, ds, topkCase{"id DESC", "", 5, 0})
		require.Equal(t, 1, rep.FilesRead, engine)
		require.Equal(t, 3, skippedFiles(rep), engine)
		ds.Close()
	}
}

// reqLog serves dir with ListObjectsV2 (faultserver) and records each data request's path and
// Range header (listings apart).
type reqLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *reqLog) serve(t *testing.T, dir string) string {
	h := faultserver.New(faultserver.Options{Dir: dir, ListPageSize: 2})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("list-type") == "" && !strings.Contains(r.URL.Path, "/_delta_log/") {
			l.mu.Lock()
			l.reqs = append(l.reqs, r.URL.Path+" "+r.Header.Get("Range"))
			l.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (l *reqLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.reqs
	l.reqs = nil
	return out
}

// of is the requests for paths containing part.
func of(reqs []string, part string) []string {
	out := []string{}
	for _, r := range reqs {
		if strings.Contains(r, part) {
			out = append(out, r)
		}
	}
	return out
}

// Test_datasetTopKRequests: the files a top-k's bound excludes are never read past what
// their bound needs. Over a Delta table the log's statistics bound every file, so an excluded
// file gets no request at all (not its footer); over a Hive folder listed with
// ListObjectsV2 the footers bound the files, so an excluded file gets exactly its footer's
// requests (those an open of it alone makes) and no data request.
func Test_datasetTopKRequests(t *testing.T) {
	ctx := context.Background()
	var log reqLog
	corpus := filepath.Join(testcorpus.Dir(t), "delta")
	base := log.serve(t, corpus)
	rel := "dat/basic_append/delta"
	cases := []topkCase{{"number DESC", "", 2, 0}, {"number", "", 2, 1}, {"number DESC", "letter != 'e'", 1, 0}}
	want := duckTopKCol(t, filepath.Join(corpus, rel, "*.parquet"), "number", cases)
	ds, err := pqscan.OpenDataset(ctx, []string{base + "/" + rel + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	files := []string{"3c9f01c2", "4ae8c002"} // numbers 1..3, 4..5
	for i, c := range cases {
		log.take()
		got := sortedCol(t, ds, "number", c)
		require.Equal(t, want[i], got, c.orderBy, c.where)
		reqs := log.take()
		skipped := files[0]
		if !strings.Contains(c.orderBy, "DESC") {
			skipped = files[1]
		}
		require.Equal(t, []string{}, of(reqs, skipped), "no request for the file the log's bound excludes:", c.orderBy, c.where)
		if i == 0 {
			// (Later cases find the files' bytes in the footer cache: they fit in its tail.)
			require.True(t, len(reqs) > 0, "the other file is read")
		}
	}

	// Hive over HTTP: footers bound the parts; with a small tail the data is a request apart.
	root := writeSortDataset(t)
	hb := log.serve(t, root)
	const tail = 2048
	hds, err := pqscan.OpenDataset(ctx, []string{hb + "/"}, pqscan.Options{TailSize: tail})
	require.NoError(t, err)
	defer hds.Close()
	tailOf := func(k int) string { // the footer round's one request: the file's last bytes
		st, err := os.Stat(filepath.Join(root, fmt.Sprintf("part=%d", k), "data.parquet"))
		require.NoError(t, err)
		return fmt.Sprintf("/part=%d/data.parquet bytes=%d-%d", k, st.Size()-tail, st.Size()-1)
	}
	require.Equal(t, []string{tailOf(1)}, log.take(), "the open reads the first footer")
	ids, rep := sortedIDs(t, hds, topkCase{"id DESC", "", 5, 0})
	require.Equal(t, []string{"40219", "40218", "40217", "40216", "40215"}, ids)
	reqs := log.take()
	require.Equal(t, []string{}, of(reqs, "/part=1/"), "part 1: its footer is kept from the open")
	for k := 2; k <= 3; k++ {
		require.Equal(t, []string{tailOf(k)}, of(reqs, fmt.Sprintf("/part=%d/", k)), "part", k, "gets its footer's request only")
	}
	require.True(t, len(of(reqs, "/part=4/")) > 1, "part 4 is read")
	require.Equal(t, 3, skippedFiles(rep))

	// A partition column as the first key bounds every file exactly: the footers of the
	// files it excludes are not even read (a fresh server: nothing cached).
	var log2 reqLog
	pb := log2.serve(t, root)
	pds, err := pqscan.OpenDataset(ctx, []string{pb + "/"}, pqscan.Options{TailSize: tail})
	require.NoError(t, err)
	defer pds.Close()
	log2.take()
	ids, rep = sortedIDs(t, pds, topkCase{"part DESC, id", "", 5, 0})
	require.Equal(t, []string{"40000", "40001", "40002", "40003", "40004"}, ids)
	reqs = log2.take()
	for k := 1; k <= 3; k++ {
		require.Equal(t, []string{}, of(reqs, fmt.Sprintf("/part=%d/", k)), "part", k, "gets no request")
	}
	require.Equal(t, 3, skippedFiles(rep))
}

// skippedFiles counts the files a top-k's bound skipped whole.
func skippedFiles(rep pqscan.Report) int {
	n := 0
	for _, f := range rep.Files {
		if f.SkippedBy == "top-k" {
			n++
		}
	}
	return n
}

// sortedCol is the values of column col a sorted scan of the dataset returns, in order.
func sortedCol(t *testing.T, ds *pqscan.Dataset, col string, c topkCase) []string {
	t.Helper()
	vals, _ := sortedColReport(t, ds, col, c)
	return vals
}

// sortedColReport is sortedCol with the scan's report.
func sortedColReport(t *testing.T, ds *pqscan.Dataset, col string, c topkCase) ([]string, pqscan.Report) {
	t.Helper()
	r, err := ds.Scan(context.Background(), pqscan.ScanOptions{Columns: []string{col}, OrderBy: c.orderBy, Where: c.where, Limit: c.limit, Offset: c.offset})
	require.NoError(t, err, c.orderBy, c.where)
	defer r.Close()
	vals := []string{}
	for {
		rec, err := r.Next()
		if err != nil {
			require.ErrorIs(t, err, io.EOF, c.orderBy, c.where)
			return vals, r.Report()
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			vals = append(vals, rec.Column(0).ValueStr(i))
		}
		rec.Release()
	}
}

// writeXFile writes one int64 column x in row groups of 40 rows to root/dir/data.parquet.
func writeXFile(t *testing.T, root, dir string, xs []int64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(xs, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(40), parquet.WithStats(true)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, dir, "data.parquet"), buf.Bytes(), 0o644))
}

// Test_datasetTopKFloor: a file the bound cannot skip whole runs with the table's k-th row as
// its floor, so its row groups that cannot beat it are skipped even while its own heap is
// not full. a holds 0..99, b holds 10..49 then 200..279 (row groups of 40): ORDER BY x LIMIT
// 45 takes 0..44 from a first; b's bound (10) beats the k-th (44), but only its first row
// group can, so its other two are skipped (without the floor, its own heap of 45 would read
// the second).
func Test_datasetTopKFloor(t *testing.T) {
	root := t.TempDir()
	var a, b []int64
	for i := int64(0); i < 100; i++ {
		a = append(a, i)
	}
	for i := int64(10); i < 50; i++ {
		b = append(b, i)
	}
	for i := int64(200); i < 280; i++ {
		b = append(b, i)
	}
	writeXFile(t, root, "f=a", a)
	writeXFile(t, root, "f=b", b)
	ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	got := sortedCol(t, ds, "x", topkCase{"x", "", 45, 0})
	var want []string
	for _, v := range append(append([]int64{}, a...), b[:40]...) {
		want = append(want, fmt.Sprint(v))
	}
	slices.SortStableFunc(want, func(p, q string) int { return cmpNum(p, q) })
	require.Equal(t, want[:45], got)
	r, err := ds.Scan(context.Background(), pqscan.ScanOptions{Columns: []string{"x"}, OrderBy: "x", Limit: 45})
	require.NoError(t, err)
	readAllRecords(t, r)
	rep := r.Report()
	// a's third row group by its own heap, b's second and third by the floor (without it,
	// b's own heap would read its second).
	require.Equal(t, 3, rep.TopKSkipped)
}

func cmpNum(p, q string) int {
	var a, b int
	fmt.Sscan(p, &a)
	fmt.Sscan(q, &b)
	return a - b
}

func readAllRecords(t *testing.T, r *pqscan.Reader) {
	t.Helper()
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			return
		}
		rec.Release()
	}
}

// Test_datasetAggErrors: count, minMax and orderBy over a dataset fail clearly, never with a
// partial answer: a file whose column cannot be read as the table's (ErrSchemaMismatch
// naming the file and the column), a sort key that does not exist, options that do not
// combine.
func Test_datasetAggErrors(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeSortFile(t, root, 1, 50)
	writeSortFile(t, root, 2, 50)
	// part 9: id is a string, so it cannot be read as the table's int64.
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "v", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.StringBuilder).Append("x")
	b.Field(1).(*array.Float64Builder).Append(1)
	rec := b.NewRecordBatch()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	rec.Release()
	b.Release()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "part=9"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "part=9", "data.parquet"), buf.Bytes(), 0o644))

	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	check := func(err error, sentinel error, has ...string) {
		t.Helper()
		require.ErrorIs(t, err, sentinel)
		for _, h := range has {
			require.ErrorContains(t, err, h)
		}
	}
	_, _, err = ds.Count(ctx, pqscan.ScanOptions{Where: "id > 3"})
	check(err, pqscan.ErrSchemaMismatch, "part=9", `"id"`)
	_, _, err = ds.MinMax(ctx, "id", pqscan.ScanOptions{})
	check(err, pqscan.ErrSchemaMismatch, "part=9", `"id"`)
	scanErr := func(so pqscan.ScanOptions) error {
		r, err := ds.Scan(ctx, so)
		if err != nil {
			return err
		}
		defer r.Close()
		for {
			rec, err := r.Next()
			if err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			rec.Release()
		}
	}
	for _, limit := range []int64{0, 5} {
		check(scanErr(pqscan.ScanOptions{OrderBy: "id DESC", Limit: limit}), pqscan.ErrSchemaMismatch, "part=9", `"id"`)
	}
	// A sort key that a file lacks is null in its rows: they come last (nulls last), so
	// part=9's one row ends the sort and a top 5 never needs it.
	for _, limit := range []int64{0, 5} {
		r, err := ds.Scan(ctx, pqscan.ScanOptions{OrderBy: "g", Limit: limit, Where: "part >= 2", Columns: []string{"g", "v"}})
		require.NoError(t, err)
		res, err := collect(r)
		require.NoError(t, err)
		var rows []string
		for i := range res.rows {
			rec, j := res.rowAt(i)
			rows = append(rows, fmt.Sprintf("g=%v|v=%v", arrowCanon(rec.Column(0), j), arrowCanon(rec.Column(1), j)))
		}
		if limit == 0 {
			require.Equal(t, 51, len(rows))
			require.Equal(t, `g=<nil>|v=1`, rows[50])
		} else {
			require.Equal(t, 5, len(rows))
			require.True(t, !strings.Contains(strings.Join(rows, "\n"), "g=null"), rows)
		}
	}
	check(scanErr(pqscan.ScanOptions{OrderBy: "nope", Limit: 3, Where: "part <= 2"}), tablescan.ErrOptions, `"nope"`)
	check(scanErr(pqscan.ScanOptions{OrderBy: "id", Count: true}), tablescan.ErrOptions, "count")
}

// Test_datasetTopKRowIndex: a sorted dataset scan keeps each row's own row index (its
// position in its file) and partition value (in this dataset id = part×10000 + position),
// each row once.
func Test_datasetTopKRowIndex(t *testing.T) {
	ds := openSortDataset(t)
	for _, limit := range []int64{0, 17} {
		r, err := ds.Scan(context.Background(), pqscan.ScanOptions{OrderBy: "v DESC, id", Limit: limit, RowIndex: "ri", Columns: []string{"ri", "id", "part"}})
		require.NoError(t, err)
		n, seen := 0, map[int64]bool{}
		for {
			rec, err := r.Next()
			if err != nil {
				require.ErrorIs(t, err, io.EOF)
				break
			}
			ri, id, part := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64), rec.Column(2).(*array.Int64)
			for i := 0; i < int(rec.NumRows()); i++ {
				require.Equal(t, id.Value(i), part.Value(i)*10000+ri.Value(i), "row", n+i)
				require.True(t, !seen[id.Value(i)], "each row once:", id.Value(i))
				seen[id.Value(i)] = true
			}
			n += int(rec.NumRows())
			rec.Release()
		}
		r.Close()
		require.Equal(t, map[int64]int{0: 130 + 160 + 190 + 220, 17: 17}[limit], n)
	}
}

// Test_datasetSortMemoryCap: a sort without a limit keeps every row of every file; past the
// memory cap it is ErrMemoryCap, never a partial result.
func Test_datasetSortMemoryCap(t *testing.T) {
	ds := openSortDataset(t)
	run := func(memCap int64) (int, error) {
		r, err := ds.Scan(context.Background(), pqscan.ScanOptions{OrderBy: "s DESC", MemoryCap: memCap})
		if err != nil {
			return 0, err
		}
		defer r.Close()
		n := 0
		for {
			rec, err := r.Next()
			if err != nil {
				if err == io.EOF {
					return n, nil
				}
				return n, err
			}
			n += int(rec.NumRows())
			rec.Release()
		}
	}
	n, err := run(0)
	require.NoError(t, err)
	require.Equal(t, 700, n)
	n, err = run(20 << 10)
	require.ErrorIs(t, err, pqscan.ErrMemoryCap)
	require.ErrorContains(t, err, "over a dataset")
	require.Equal(t, 0, n, "no row before the error")
}

// Test_datasetTopKRandom: random ORDER BY terms, limits, offsets and predicates over the
// dataset against a brute-force sort of all its rows (read by a plain scan), in DuckDB's
// order: NULLS LAST unless NULLS FIRST, NaN above every number, ties by file (part) then
// position (id − part×10000).
func Test_datasetTopKRandom(t *testing.T) {
	ds := openSortDataset(t)
	type row struct {
		id, g, part int64
		v           float64
		s           string
		vNull, sNul bool
	}
	var all []row
	r, err := ds.Scan(context.Background(), pqscan.ScanOptions{Columns: []string{"id", "g", "v", "s", "part"}})
	require.NoError(t, err)
	for {
		rec, err := r.Next()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		id, g, v, s, p := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64), rec.Column(2).(*array.Float64), rec.Column(3).(*array.String), rec.Column(4).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			all = append(all, row{id.Value(i), g.Value(i), p.Value(i), v.Value(i), s.Value(i), v.IsNull(i), s.IsNull(i)})
		}
		rec.Release()
	}
	r.Close()
	require.Equal(t, 700, len(all))
	cmpF := func(a, b float64) int { // NaN above every number
		an, bn := math.IsNaN(a), math.IsNaN(b)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		return cmp.Compare(a, b)
	}
	type term struct {
		col              string
		desc, nullsFirst bool
	}
	key := func(tm term, a, b row) int {
		var c int
		an, bn := false, false
		switch tm.col {
		case "v":
			an, bn, c = a.vNull, b.vNull, cmpF(a.v, b.v)
		case "s":
			an, bn, c = a.sNul, b.sNul, strings.Compare(a.s, b.s)
		case "g":
			c = cmp.Compare(a.g, b.g)
		case "part":
			c = cmp.Compare(a.part, b.part)
		default:
			c = cmp.Compare(a.id, b.id)
		}
		switch {
		case an && bn:
			return 0
		case an != bn:
			if an == tm.nullsFirst {
				return -1
			}
			return 1
		case tm.desc:
			return -c
		}
		return c
	}
	rnd := rand.New(rand.NewPCG(13, 17))
	wheres := []string{"", "part >= 2", "g != 3", "v > 150 OR s IS NULL", "part = 4 AND g < 2"}
	keep := map[string]func(row) bool{
		"":                     func(row) bool { return true },
		"part >= 2":            func(x row) bool { return x.part >= 2 },
		"g != 3":               func(x row) bool { return x.g != 3 },
		"v > 150 OR s IS NULL": func(x row) bool { return (!x.vNull && !math.IsNaN(x.v) && x.v > 150) || x.sNul },
		"part = 4 AND g < 2":   func(x row) bool { return x.part == 4 && x.g < 2 },
	}
	for n := 0; n < 100; n++ {
		var terms []term
		var texts []string
		for _, col := range rnd.Perm(5)[:1+rnd.IntN(3)] {
			tm := term{col: []string{"v", "s", "g", "id", "part"}[col], desc: rnd.IntN(2) == 0, nullsFirst: rnd.IntN(3) == 0}
			terms = append(terms, tm)
			txt := tm.col
			if tm.desc {
				txt += " DESC"
			}
			if tm.nullsFirst {
				txt += " NULLS FIRST"
			}
			texts = append(texts, txt)
		}
		c := topkCase{orderBy: strings.Join(texts, ", "), where: wheres[rnd.IntN(len(wheres))], limit: []int64{0, 1, 7, 45, 300}[rnd.IntN(5)], offset: []int64{0, 0, 3, 50}[rnd.IntN(4)]}
		var want []string
		var rows []row
		for _, x := range all {
			if keep[c.where](x) {
				rows = append(rows, x)
			}
		}
		slices.SortStableFunc(rows, func(a, b row) int {
			for _, tm := range terms {
				if k := key(tm, a, b); k != 0 {
					return k
				}
			}
			if a.part != b.part {
				return cmp.Compare(a.part, b.part)
			}
			return cmp.Compare(a.id, b.id) // position within the file
		})
		end := int64(len(rows))
		if c.limit > 0 {
			end = min(end, c.offset+c.limit)
		}
		for _, x := range rows[min(c.offset, end):end] {
			want = append(want, fmt.Sprint(x.id))
		}
		if want == nil {
			want = []string{}
		}
		require.Equal(t, want, sortedCol(t, ds, "id", c), c.orderBy, c.where, c.limit, c.offset)
	}
}
