package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Schema resolution across files, on three files written by arrow-go:
//
//	f0: id int64, n int64, x double, ts timestamp[us], d decimal(10,3), name, gone
//	f1: id int64, n int32, x float,  ts timestamp[ms], d decimal(5,2),  name, added int64
//	f2: id int32, n int32,                                            name
//
// By name with the first file's schema, f1 and f2 widen n, x, ts, d and id, read gone (and
// what f2 lacks) as nulls and ignore added; with the union, added is a column too, null in
// f0 and f2. The oracle is the rows the test wrote, typed as the table's (and DuckDB's
// read_parquet(..., union_by_name = true) for the union).

// srow is one row in the table's types; nil is null.
type srow map[string]any

var tsBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const schemaRows = 200

// writeArrow writes one record as a Parquet file of row groups of 50 rows with statistics.
func writeArrow(t *testing.T, p string, schema *arrow.Schema, fill func(b *array.RecordBuilder, i int)) {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < schemaRows; i++ {
		fill(b, i)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(50), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
}

func nullable(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

// writeSchemaFiles writes f0, f1, f2 into dir and returns their paths and rows (table types:
// id, n int64; x double; ts µs; d unscaled at scale 3; added int64).
func writeSchemaFiles(t *testing.T, dir string) ([]string, [][]srow) {
	ms, us := &arrow.TimestampType{Unit: arrow.Millisecond}, &arrow.TimestampType{Unit: arrow.Microsecond}
	i64, i32, str := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String
	paths := []string{filepath.Join(dir, "f0.parquet"), filepath.Join(dir, "f1.parquet"), filepath.Join(dir, "f2.parquet")}
	rows := make([][]srow, 3)
	base := tsBase.UnixMicro()
	writeArrow(t, paths[0], arrow.NewSchema([]arrow.Field{nullable("id", i64), nullable("n", i64), nullable("x", arrow.PrimitiveTypes.Float64),
		nullable("ts", us), nullable("d", &arrow.Decimal128Type{Precision: 10, Scale: 3}), nullable("name", str), nullable("gone", str)}, nil),
		func(b *array.RecordBuilder, i int) {
			r := srow{"id": int64(i), "n": 3_000_000_000 + int64(i), "x": float64(i) + 0.1, "ts": base + int64(i)*1500, "d": int64(i) * 70,
				"name": fmt.Sprintf("n%d", i%5), "gone": fmt.Sprintf("g%d", i), "added": nil}
			rows[0] = append(rows[0], r)
			b.Field(0).(*array.Int64Builder).Append(r["id"].(int64))
			b.Field(1).(*array.Int64Builder).Append(r["n"].(int64))
			b.Field(2).(*array.Float64Builder).Append(r["x"].(float64))
			b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(r["ts"].(int64)))
			b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(r["d"].(int64)))
			b.Field(5).(*array.StringBuilder).Append(r["name"].(string))
			b.Field(6).(*array.StringBuilder).Append(r["gone"].(string))
		})
	writeArrow(t, paths[1], arrow.NewSchema([]arrow.Field{nullable("id", i64), nullable("n", i32), nullable("x", arrow.PrimitiveTypes.Float32),
		nullable("ts", ms), nullable("d", &arrow.Decimal128Type{Precision: 5, Scale: 2}), nullable("name", str), nullable("added", i64)}, nil),
		func(b *array.RecordBuilder, i int) {
			x := float32(i) + float32(0.1)
			r := srow{"id": 1000 + int64(i), "n": int64(i) * 10, "x": float64(x), "ts": base + int64(i)*1000, "d": int64(i) * 3 * 10,
				"name": fmt.Sprintf("n%d", i%5), "gone": nil, "added": int64(i) * 100}
			rows[1] = append(rows[1], r)
			b.Field(0).(*array.Int64Builder).Append(r["id"].(int64))
			b.Field(1).(*array.Int32Builder).Append(int32(i * 10))
			b.Field(2).(*array.Float32Builder).Append(x)
			b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(tsBase.UnixMilli() + int64(i)))
			b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 3))
			b.Field(5).(*array.StringBuilder).Append(r["name"].(string))
			b.Field(6).(*array.Int64Builder).Append(r["added"].(int64))
		})
	writeArrow(t, paths[2], arrow.NewSchema([]arrow.Field{nullable("id", i32), nullable("n", i32), nullable("name", str)}, nil),
		func(b *array.RecordBuilder, i int) {
			r := srow{"id": 2000 + int64(i), "n": -int64(i), "x": nil, "ts": nil, "d": nil, "name": fmt.Sprintf("n%d", i%5), "gone": nil, "added": nil}
			rows[2] = append(rows[2], r)
			b.Field(0).(*array.Int32Builder).Append(int32(2000 + i))
			b.Field(1).(*array.Int32Builder).Append(int32(-i))
			b.Field(2).(*array.StringBuilder).Append(r["name"].(string))
		})
	return paths, rows
}

// schemaQuery is a predicate in SQL (pqscan's and DuckDB's) with the same predicate in Go.
type schemaQuery struct {
	where string
	keep  func(r srow) bool
	// noResidual is how many files' scans get no filter (the report's FilesNoResidual).
	noResidual int
}

func isNull(r srow, c string) bool { return r[c] == nil }

var schemaQueries = []schemaQuery{
	{"", func(srow) bool { return true }, 0},
	// An int64 literal beyond int32: f1 and f2 (int32 n) match nothing, by their statistics.
	{"n > 2999999999", func(r srow) bool { return r["n"].(int64) > 2999999999 }, 0},
	// A float32 value widened to double is not the double 0.1, and 1.1f is above 1.1.
	{"x = 0.1", func(r srow) bool { return !isNull(r, "x") && r["x"].(float64) == 0.1 }, 0},
	{"x < 1.1", func(r srow) bool { return !isNull(r, "x") && r["x"].(float64) < 1.1 }, 0},
	{"x != 2.1", func(r srow) bool { return !isNull(r, "x") && r["x"].(float64) != 2.1 }, 0},
	{"x IN (3.1, 4.5)", func(r srow) bool { return !isNull(r, "x") && (r["x"].(float64) == 3.1 || r["x"].(float64) == 4.5) }, 0},
	// A column two files lack: IS NULL holds on every row of theirs (no filter there), any
	// comparison is unknown (no row; NOT of unknown is unknown too).
	{"gone IS NULL", func(r srow) bool { return isNull(r, "gone") }, 2},
	{"gone = 'g3' OR id >= 2195", func(r srow) bool { return r["gone"] == "g3" || r["id"].(int64) >= 2195 }, 0},
	{"NOT (gone = 'g3')", func(r srow) bool { return !isNull(r, "gone") && r["gone"] != "g3" }, 0},
	// Timestamps in ms read as µs, decimals rescaled: the literal means the table's value.
	{"ts >= '2024-01-01 00:00:00.150'", func(r srow) bool { return !isNull(r, "ts") && r["ts"].(int64) >= tsBase.UnixMicro()+150_000 }, 0},
	{"d > 1.5 AND name = 'n1'", func(r srow) bool { return !isNull(r, "d") && r["d"].(int64) > 1500 && r["name"] == "n1" }, 0},
	{"id BETWEEN 1190 AND 2003", func(r srow) bool { return r["id"].(int64) >= 1190 && r["id"].(int64) <= 2003 }, 0},
}

// renderRow renders the named columns of a table-typed row.
func renderRow(r srow, cols []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		switch v := r[c].(type) {
		case nil:
			out[i] = "null"
		case float64:
			out[i] = strconv.FormatFloat(v, 'g', -1, 64)
		default:
			out[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(out, "|")
}

// recordRows renders pqscan's batches in the same form: timestamps as their count, decimals
// unscaled.
func recordRows(t *testing.T, rec arrow.RecordBatch) []string {
	var out []string
	for i := 0; i < int(rec.NumRows()); i++ {
		cells := make([]string, rec.NumCols())
		for j, col := range rec.Columns() {
			if col.IsNull(i) {
				cells[j] = "null"
				continue
			}
			switch a := col.(type) {
			case *array.Int64:
				cells[j] = strconv.FormatInt(a.Value(i), 10)
			case *array.Float64:
				cells[j] = strconv.FormatFloat(a.Value(i), 'g', -1, 64)
			case *array.Timestamp:
				cells[j] = strconv.FormatInt(int64(a.Value(i)), 10)
			case *array.Decimal128:
				cells[j] = a.Value(i).BigInt().String()
			case *array.String:
				cells[j] = a.Value(i)
			default:
				t.Fatalf("column %s: unexpected type %s", rec.ColumnName(j), col.DataType())
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

func scanRows(t *testing.T, ds *pqscan.Dataset, where string) ([]string, pqscan.Report) {
	t.Helper()
	r, err := ds.Scan(context.Background(), pqscan.ScanOptions{Where: where})
	require.NoError(t, err)
	defer r.Close()
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Report()
		}
		require.NoError(t, err, where)
		out = append(out, recordRows(t, rec)...)
		rec.Release()
	}
}

func expectRows(rows [][]srow, cols []string, keep func(srow) bool) []string {
	var out []string
	for _, f := range rows {
		for _, r := range f {
			if keep(r) {
				out = append(out, renderRow(r, cols))
			}
		}
	}
	return out
}

func fieldNames(s *arrow.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// Test_datasetSchemaResolution: by name (the first file's schema) and with the union, locally
// and over HTTP, every query's rows are the written rows in the table's types; the report
// says which files' scans ran without a filter.
func Test_datasetSchemaResolution(t *testing.T) {
	dir := t.TempDir()
	paths, rows := writeSchemaFiles(t, dir)
	srv := faultserver.New(faultserver.Options{Dir: dir})
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	var urls []string
	for _, p := range paths {
		urls = append(urls, base+"/"+filepath.Base(p))
	}
	first := []string{"id", "n", "x", "ts", "d", "name", "gone"}
	union := append(append([]string{}, first...), "added")
	for _, tc := range []struct {
		name  string
		srcs  []string
		union bool
		cols  []string
	}{
		{"local by name", paths, false, first},
		{"http by name", urls, false, first},
		{"local union", paths, true, union},
		{"http union", urls, true, union},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := pqscan.OpenDataset(context.Background(), tc.srcs, pqscan.Options{UnionSchema: tc.union})
			require.NoError(t, err)
			defer ds.Close()
			require.Equal(t, tc.cols, fieldNames(ds.Schema()))
			for _, q := range schemaQueries {
				got, rep := scanRows(t, ds, q.where)
				require.Equal(t, expectRows(rows, tc.cols, q.keep), got, q.where)
				if q.where != "" {
					require.Equal(t, q.noResidual, rep.FilesNoResidual, q.where)
				}
			}
			// The files without gone are not scanned for gone = 'g3' (no row can match).
			_, rep := scanRows(t, ds, "gone = 'g3'")
			require.Equal(t, []string{"", "schema", "schema"}, []string{rep.Files[0].SkippedBy, rep.Files[1].SkippedBy, rep.Files[2].SkippedBy})
			require.Equal(t, 1, rep.FilesRead)
			if tc.union {
				got, _ := scanRows(t, ds, "added > 19000")
				require.Equal(t, expectRows(rows, tc.cols, func(r srow) bool { return r["added"] != nil && r["added"].(int64) > 19000 }), got)
			}
		})
	}
}

// Test_datasetSchemaDuckDB: the union's rows equal DuckDB's read_parquet(..., union_by_name
// = true) for every query.
func Test_datasetSchemaDuckDB(t *testing.T) {
	testcorpus.DuckNode(t) // skips (fails under CI) before anything is built when the oracle is missing
	dir := t.TempDir()
	paths, _ := writeSchemaFiles(t, dir)
	ds, err := pqscan.OpenDataset(context.Background(), paths, pqscan.Options{UnionSchema: true})
	require.NoError(t, err)
	defer ds.Close()
	list := make([]string, len(paths))
	for i, p := range paths {
		list[i] = "'" + p + "'"
	}
	var sqls []string
	for _, q := range schemaQueries {
		// The LIMIT keeps DuckDB from pushing the filter into its Parquet reader, which
		// compares a widened float column in the file's type (x = 0.1 then matches the
		// float 0.1f, whose double is 0.10000000149011612): the filter sees table values.
		sql := "SELECT id::VARCHAR, n::VARCHAR, x::VARCHAR, epoch_us(ts)::VARCHAR, (d * 1000)::BIGINT::VARCHAR, name, gone, added::VARCHAR FROM (SELECT * FROM read_parquet([" +
			strings.Join(list, ", ") + "], union_by_name = true) LIMIT 1000000)"
		if q.where != "" {
			sql += " WHERE " + q.where
		}
		sqls = append(sqls, sql+" ORDER BY id")
	}
	lines := testcorpus.DuckLines(t, sqls...)
	for k, q := range schemaQueries {
		var duck [][]*string
		require.NoError(t, json.Unmarshal([]byte(lines[k]), &duck))
		var want []string
		for _, r := range duck {
			cells := make([]string, len(r))
			for i, c := range r {
				switch {
				case c == nil:
					cells[i] = "null"
				case i == 2:
					f, err := strconv.ParseFloat(*c, 64)
					require.NoError(t, err)
					cells[i] = strconv.FormatFloat(f, 'g', -1, 64)
				default:
					cells[i] = *c
				}
			}
			want = append(want, strings.Join(cells, "|"))
		}
		got, _ := scanRows(t, ds, q.where)
		require.Equal(t, want, got, q.where)
	}
}

// Test_datasetSchemaByPosition: files whose writer renamed the columns read by position (a
// shorter file's last columns are null); by name the renamed columns are null instead; a
// column whose type does not widen is an error naming the file and the column, by position
// and by name, and so is a union of incompatible types.
func Test_datasetSchemaByPosition(t *testing.T) {
	dir := t.TempDir()
	i64, i32, str := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String
	write := func(name string, fields []arrow.Field, fill func(b *array.RecordBuilder, i int)) string {
		p := filepath.Join(dir, name)
		writeArrow(t, p, arrow.NewSchema(fields, nil), fill)
		return p
	}
	p0 := write("p0.parquet", []arrow.Field{nullable("id", i64), nullable("v", str)}, func(b *array.RecordBuilder, i int) {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("a%d", i%3))
	})
	p1 := write("p1.parquet", []arrow.Field{nullable("key", i32), nullable("value", str)}, func(b *array.RecordBuilder, i int) {
		b.Field(0).(*array.Int32Builder).Append(int32(1000 + i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("b%d", i%3))
	})
	p2 := write("p2.parquet", []arrow.Field{nullable("ID", i64)}, func(b *array.RecordBuilder, i int) {
		b.Field(0).(*array.Int64Builder).Append(int64(2000 + i))
	})
	bad := write("p3.parquet", []arrow.Field{nullable("v", str), nullable("id", str)}, func(b *array.RecordBuilder, i int) {
		b.Field(0).(*array.StringBuilder).Append("x")
		b.Field(1).(*array.StringBuilder).Append("y")
	})
	var byPos, byName []string
	for i := 0; i < schemaRows; i++ {
		byPos = append(byPos, fmt.Sprintf("%d|a%d", i, i%3))
		byName = append(byName, fmt.Sprintf("%d|a%d", i, i%3))
	}
	for i := 0; i < schemaRows; i++ {
		byPos = append(byPos, fmt.Sprintf("%d|b%d", 1000+i, i%3))
		byName = append(byName, "null|null")
	}
	for i := 0; i < schemaRows; i++ {
		byPos = append(byPos, fmt.Sprintf("%d|null", 2000+i))
		byName = append(byName, "null|null")
	}
	filter := func(rows []string, keep func(id, v string) bool) []string {
		var out []string
		for _, r := range rows {
			id, v, _ := strings.Cut(r, "|")
			if keep(id, v) {
				out = append(out, r)
			}
		}
		return out
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts pqscan.Options
		want []string
	}{
		{"by position", pqscan.Options{SchemaByPosition: true}, byPos},
		{"by name", pqscan.Options{}, byName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := pqscan.OpenDataset(ctx, []string{p0, p1, p2}, tc.opts)
			require.NoError(t, err)
			defer ds.Close()
			require.Equal(t, []string{"id", "v"}, fieldNames(ds.Schema()))
			got, _ := scanRows(t, ds, "")
			require.Equal(t, tc.want, got)
			got, _ = scanRows(t, ds, "v = 'b1' OR id >= 2198")
			require.Equal(t, filter(tc.want, func(id, v string) bool { n, _ := strconv.Atoi(id); return v == "b1" || (id != "null" && n >= 2198) }), got)
			got, _ = scanRows(t, ds, "v IS NULL")
			require.Equal(t, filter(tc.want, func(_, v string) bool { return v == "null" }), got)

			ds2, err := pqscan.OpenDataset(ctx, []string{p0, bad}, tc.opts)
			require.NoError(t, err)
			defer ds2.Close()
			_, err = scanErr(ctx, ds2, pqscan.ScanOptions{})
			require.ErrorIs(t, err, pqscan.ErrSchemaMismatch)
			require.True(t, strings.Contains(err.Error(), bad) && strings.Contains(err.Error(), `"id"`), err)
		})
	}
	// By position a union adds the longer files' trailing columns; incompatible types fail.
	ds, err := pqscan.OpenDataset(ctx, []string{p2, p0}, pqscan.Options{SchemaByPosition: true, UnionSchema: true})
	require.NoError(t, err)
	require.Equal(t, []string{"ID", "v"}, fieldNames(ds.Schema()))
	ds.Close()
	_, err = pqscan.OpenDataset(ctx, []string{p0, bad}, pqscan.Options{UnionSchema: true})
	require.ErrorIs(t, err, pqscan.ErrSchemaMismatch)
	require.True(t, strings.Contains(err.Error(), bad) && strings.Contains(err.Error(), `"id"`), err)
}

// Test_datasetDeferSchema: with Options.DeferSchema opening a list of URLs sends no request,
// a scan of one partition requests only that partition's file (no footer of another), and the
// schema it formed is the table's from then on (the same as an eager open's).
func Test_datasetDeferSchema(t *testing.T) {
	days := []dayFile{
		{dir: "event_date=2024-01-01", first: 0, rows: 50},
		{dir: "event_date=2024-01-02", first: 1000, rows: 60},
		{dir: "event_date=2024-01-03", first: 2000, rows: 70, noName: true},
	}
	root, paths, want := buildDataset(t, days)
	srv := faultserver.New(faultserver.Options{Dir: root})
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	var urls []string
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		urls = append(urls, base+"/"+filepath.ToSlash(rel))
	}
	touched := func() []string {
		var out []string
		for p, st := range srv.Stats() {
			if st.Requests > 0 {
				out = append(out, p)
			}
		}
		srv.Reset()
		return out
	}
	ctx := context.Background()
	eager, err := pqscan.OpenDataset(ctx, urls, pqscan.Options{})
	require.NoError(t, err)
	defer eager.Close()
	touched()

	ds, err := pqscan.OpenDataset(ctx, urls, pqscan.Options{DeferSchema: true})
	require.NoError(t, err)
	defer ds.Close()
	require.Equal(t, []string(nil), touched())
	require.True(t, ds.Schema() == nil)
	r, err := ds.Scan(ctx, pqscan.ScanOptions{Where: "event_date = DATE '2024-01-02'"})
	require.NoError(t, err)
	require.Equal(t, want[1], readAll(t, r))
	got := touched()
	require.Equal(t, 1, len(got), got)
	require.True(t, strings.Contains(got[0], "event_date=2024-01-02"), got)
	require.True(t, ds.Schema() != nil && ds.Schema().Equal(eager.Schema()), ds.Schema())
	// Later scans keep that schema: the third day's missing name reads as null.
	r, err = ds.Scan(ctx, pqscan.ScanOptions{})
	require.NoError(t, err)
	require.Equal(t, append(append(append([]string{}, want[0]...), want[1]...), want[2]...), readAll(t, r))
}
