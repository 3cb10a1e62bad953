package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// A Delta table with the typeWidening feature, generated: its files hold the types the
// columns had when they were written, its log the widened schema with delta.typeChanges.
// Every expectation is computed from the rows (in the table's types), not read back.

// wideRow is one row of the widened table, in the table's types.
type wideRow struct {
	id    int64
	b     float64   // double; byte in old files
	cents int64     // i: decimal(12,2); integer (whole units) in old files
	d     time.Time // timestamp_ntz; date (midnight) in old files
	f     float64   // double; float in old files (a float32 value)
	sa    int64     // s.a: long; integer in old files
	st    string    // s.t
	l     []int64   // array<long>; array<integer> in old files
	mv    int64     // m["k"]: map<string,long>; map<string,integer> in old files
	pd    time.Time // partition column timestamp_ntz; date in old files
}

type wideFile struct {
	name string
	old  bool // written with the types before widening
	pd   string
	rows []wideRow
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func wallTime(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return t
}

var wideFiles = []wideFile{
	{name: "a", old: true, pd: "2024-01-01", rows: []wideRow{
		{id: 1, b: 1, cents: 100, d: day("2024-01-03"), f: float64(float32(0.1)), sa: 1, st: "x", l: []int64{1, 2}, mv: 10, pd: day("2024-01-01")},
		{id: 2, b: 10, cents: 400, d: day("2024-01-05"), f: float64(float32(-2.5)), sa: 4, st: "y", l: nil, mv: 20, pd: day("2024-01-01")},
		{id: 3, b: -128, cents: -300, d: day("2024-01-06"), f: float64(float32(0.05)), sa: -5, st: "z", l: []int64{}, mv: -1, pd: day("2024-01-01")},
	}},
	{name: "b", old: true, pd: "2024-01-02", rows: []wideRow{
		{id: 4, b: 100, cents: 10000, d: day("2024-02-10"), f: 1, sa: 2147483647, st: "x", l: []int64{2147483647}, mv: 7, pd: day("2024-01-02")},
		{id: 5, b: 127, cents: 10300, d: day("2024-02-13"), f: float64(float32(3.3)), sa: 9, st: "w", l: []int64{-3}, mv: 8, pd: day("2024-01-02")},
	}},
	{name: "c", old: false, pd: "2024-03-01 10:00:00", rows: []wideRow{
		{id: 6, b: 2.5, cents: 1234, d: wallTime("2024-03-01 12:30:00"), f: 0.1, sa: 5000000000, st: "v", l: []int64{1 << 40}, mv: 1 << 33, pd: wallTime("2024-03-01 10:00:00")},
		{id: 7, b: 3.5, cents: 200050, d: wallTime("2024-03-02 00:00:00"), f: 0.2, sa: 6, st: "u", l: []int64{0}, mv: 0, pd: wallTime("2024-03-01 10:00:00")},
		{id: 8, b: 3, cents: -725, d: wallTime("2024-03-03 23:59:59"), f: 100.25, sa: -6, st: "t", l: nil, mv: 3, pd: wallTime("2024-03-01 10:00:00")},
	}},
}

// wideSchemaString is the table's schema after the widenings, with their history.
const wideSchemaString = `{"type":"struct","fields":[
{"name":"id","type":"long","nullable":true,"metadata":{}},
{"name":"b","type":"double","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"byte","toType":"double"}]}},
{"name":"i","type":"decimal(12,2)","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"integer","toType":"decimal(12,2)"}]}},
{"name":"d","type":"timestamp_ntz","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"date","toType":"timestamp_ntz"}]}},
{"name":"f","type":"double","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"float","toType":"double"}]}},
{"name":"s","type":{"type":"struct","fields":[
  {"name":"a","type":"long","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"integer","toType":"long"}]}},
  {"name":"t","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},
{"name":"l","type":{"type":"array","elementType":"long","containsNull":true},"nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"integer","toType":"long","fieldPath":"element"}]}},
{"name":"m","type":{"type":"map","keyType":"string","valueType":"long","valueContainsNull":true},"nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"integer","toType":"long","fieldPath":"value"}]}},
{"name":"pd","type":"timestamp_ntz","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"date","toType":"timestamp_ntz"}]}}]}`

// wideArrowSchema is the Arrow schema of a data file (old types) or of the table (new).
func wideArrowSchema(old, withPartition bool) *arrow.Schema {
	pick := func(o, n arrow.DataType) arrow.DataType {
		if old {
			return o
		}
		return n
	}
	fs := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: pick(arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "i", Type: pick(arrow.PrimitiveTypes.Int32, &arrow.Decimal128Type{Precision: 12, Scale: 2}), Nullable: true},
		{Name: "d", Type: pick(arrow.FixedWidthTypes.Date32, &arrow.TimestampType{Unit: arrow.Microsecond}), Nullable: true},
		{Name: "f", Type: pick(arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: pick(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64), Nullable: true},
			arrow.Field{Name: "t", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(pick(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64)), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, pick(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64)), Nullable: true},
	}
	if withPartition {
		fs = append(fs, arrow.Field{Name: "pd", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

// decimalText is cents as a decimal with two places.
func decimalText(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// json is the row as arrow-go's JSON reader takes it, in the old types or the table's.
func (r wideRow) json(old, withPartition bool) map[string]any {
	m := map[string]any{"id": r.id, "b": r.b, "f": r.f, "s": map[string]any{"a": r.sa, "t": r.st}}
	if r.l != nil {
		m["l"] = r.l
	} else {
		m["l"] = nil
	}
	m["m"] = []map[string]any{{"key": "k", "value": r.mv}}
	if old {
		m["i"] = r.cents / 100
		m["d"] = r.d.Format("2006-01-02")
		m["f"] = float32(r.f)
	} else {
		m["i"] = decimalText(r.cents)
		m["d"] = r.d.Format("2006-01-02 15:04:05")
	}
	if withPartition {
		m["pd"] = r.pd.Format("2006-01-02 15:04:05")
	}
	return m
}

func wideRecord(t *testing.T, sc *arrow.Schema, rows []map[string]any) arrow.RecordBatch {
	t.Helper()
	js, err := json.Marshal(rows)
	require.NoError(t, err)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, bytes.NewReader(js))
	require.NoError(t, err)
	return rec
}

// writeParquetRows writes rows (arrow-go's JSON form) of schema sc as a Parquet file with
// statistics at p and returns its size.
func writeParquetRows(t *testing.T, p string, sc *arrow.Schema, rows []map[string]any) int {
	t.Helper()
	rec := wideRecord(t, sc, rows)
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(parquet.WithStats(true)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return buf.Len()
}

// wideStats is the add's statistics in the types the file was written with, as Spark
// writes them (floats in their shortest form, dates as dates, timestamps to milliseconds).
func wideStats(f wideFile) string {
	lo, hi := f.rows[0], f.rows[0]
	for _, r := range f.rows {
		lo.id, hi.id = min(lo.id, r.id), max(hi.id, r.id)
		lo.b, hi.b = min(lo.b, r.b), max(hi.b, r.b)
		lo.cents, hi.cents = min(lo.cents, r.cents), max(hi.cents, r.cents)
		if r.d.Before(lo.d) {
			lo.d = r.d
		}
		if r.d.After(hi.d) {
			hi.d = r.d
		}
		lo.f, hi.f = min(lo.f, r.f), max(hi.f, r.f)
		lo.sa, hi.sa = min(lo.sa, r.sa), max(hi.sa, r.sa)
	}
	vals := func(r wideRow) string {
		if f.old {
			return fmt.Sprintf(`{"id":%d,"b":%d,"i":%d,"d":"%s","f":%s,"s":{"a":%d}}`, r.id, int64(r.b), r.cents/100,
				r.d.Format("2006-01-02"), strconv.FormatFloat(r.f, 'g', -1, 32), r.sa)
		}
		return fmt.Sprintf(`{"id":%d,"b":%s,"i":%s,"d":"%s","f":%s,"s":{"a":%d}}`, r.id, strconv.FormatFloat(r.b, 'g', -1, 64),
			decimalText(r.cents), r.d.Format("2006-01-02T15:04:05.000"), strconv.FormatFloat(r.f, 'g', -1, 64), r.sa)
	}
	return fmt.Sprintf(`{"numRecords":%d,"minValues":%s,"maxValues":%s,"nullCount":{"id":0,"b":0,"i":0,"d":0,"f":0,"s":{"a":0,"t":0}}}`,
		len(f.rows), vals(lo), vals(hi))
}

// writeWideTable writes the table and returns its folder.
func writeWideTable(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "_delta_log"), 0o755))
	var log strings.Builder
	log.WriteString(`{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["typeWidening","timestampNtz"],"writerFeatures":["typeWidening","timestampNtz"]}}` + "\n")
	meta, err := json.Marshal(map[string]any{"metaData": map[string]any{"id": "widened", "format": map[string]any{"provider": "parquet", "options": map[string]any{}},
		"schemaString": wideSchemaString, "partitionColumns": []string{"pd"}, "configuration": map[string]any{"delta.enableTypeWidening": "true"}, "createdTime": 0}})
	require.NoError(t, err)
	log.Write(append(meta, '\n'))
	for _, f := range wideFiles {
		var rows []map[string]any
		for _, r := range f.rows {
			rows = append(rows, r.json(f.old, false))
		}
		rel := "part-" + f.name + ".parquet"
		size := writeParquetRows(t, filepath.Join(root, rel), wideArrowSchema(f.old, false), rows)
		add, err := json.Marshal(map[string]any{"add": map[string]any{"path": rel, "partitionValues": map[string]any{"pd": f.pd},
			"size": size, "modificationTime": 0, "dataChange": true, "stats": wideStats(f)}})
		require.NoError(t, err)
		log.Write(append(add, '\n'))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "_delta_log", "00000000000000000000.json"), []byte(log.String()), 0o644))
	return root
}

// readDelta reads the Delta table at dir with engine e.
func readDelta(t *testing.T, dir string, e pqscan.Engine, where string) ([]string, pqscan.Report) {
	t.Helper()
	rows, r, err := deltaRowsWith(t, dir, pqscan.Options{Engine: e}, pqscan.ScanOptions{Where: where})
	require.NoError(t, err, where)
	return rows, r.Report()
}

// Test_deltaTypeWidening reads a type-widened table (byte→double, integer→decimal,
// date→timestamp_ntz, float→double, a struct field, an array element and a map value
// integer→long, a date partition column widened to timestamp_ntz) with filters that the
// files' statistics, written in the old types, must prune exactly where they are exact and
// never wrongly (a float max "0.1" is the float32 above the double 0.1), natively and in the
// wasm module.
func Test_deltaTypeWidening(t *testing.T) {
	root := writeWideTable(t)
	var all []wideRow
	for _, f := range wideFiles {
		all = append(all, f.rows...)
	}
	want := func(keep func(r wideRow) bool) []string {
		var rows []map[string]any
		for _, r := range all {
			if keep(r) {
				rows = append(rows, r.json(false, true))
			}
		}
		if len(rows) == 0 {
			return nil
		}
		rec := wideRecord(t, wideArrowSchema(false, true), rows)
		defer rec.Release()
		return canonRows(rec)
	}
	jan5 := day("2024-01-05")
	cases := []struct {
		name, where string
		keep        func(r wideRow) bool
		afterStats  int // files left after partition values and statistics (-1: not checked)
	}{
		{name: "all", keep: func(wideRow) bool { return true }, afterStats: 3},
		{name: "byte as double, pruned by int stats", where: "b > 50", keep: func(r wideRow) bool { return r.b > 50 }, afterStats: 1},
		{name: "byte against a fraction", where: "b >= 2.5", keep: func(r wideRow) bool { return r.b >= 2.5 }, afterStats: -1},
		{name: "byte equal to a fraction", where: "b = 2.5", keep: func(r wideRow) bool { return r.b == 2.5 }, afterStats: 2},
		{name: "byte IN", where: "b IN (1, 3, 127.0)", keep: func(r wideRow) bool { return r.b == 1 || r.b == 3 || r.b == 127 }, afterStats: 3},
		{name: "integer as decimal, pruned", where: "i > 1000", keep: func(r wideRow) bool { return r.cents > 100000 }, afterStats: 1},
		{name: "integer as decimal, equal", where: "i = 4", keep: func(r wideRow) bool { return r.cents == 400 }, afterStats: 2},
		{name: "integer as decimal, between", where: "i BETWEEN -7.25 AND 12.34", keep: func(r wideRow) bool { return r.cents >= -725 && r.cents <= 1234 }, afterStats: -1},
		{name: "date as timestamp, pruned by date stats", where: "d >= '2024-02-01'", keep: func(r wideRow) bool { return !r.d.Before(day("2024-02-01")) }, afterStats: 2},
		{name: "date below noon", where: "d < '2024-01-05T12:00:00'", keep: func(r wideRow) bool { return r.d.Before(jan5.Add(12 * time.Hour)) }, afterStats: 1},
		{name: "date at a zoned wall clock", where: "d = '2024-01-05T00:00:00+02:00'", keep: func(r wideRow) bool { return r.d.Equal(jan5) }, afterStats: 1},
		{name: "date after midnight", where: "d > '2024-01-05'", keep: func(r wideRow) bool { return r.d.After(jan5) }, afterStats: 3},
		{name: "float above its decimal", where: "f > 0.1", keep: func(r wideRow) bool { return r.f > 0.1 }, afterStats: 3},
		{name: "float equal to a double", where: "f = 0.1", keep: func(r wideRow) bool { return r.f == 0.1 }, afterStats: 2},
		{name: "float at most", where: "f <= 0.1", keep: func(r wideRow) bool { return r.f <= 0.1 }, afterStats: 2},
		{name: "struct field as long, pruned", where: "s.a >= 3000000000", keep: func(r wideRow) bool { return r.sa >= 3000000000 }, afterStats: 1},
		{name: "struct field", where: "s.a < 2", keep: func(r wideRow) bool { return r.sa < 2 }, afterStats: 2},
		{name: "partition date as timestamp", where: "pd = '2024-01-02'", keep: func(r wideRow) bool { return r.pd.Equal(day("2024-01-02")) }, afterStats: 1},
		{name: "partition after midnight", where: "pd > '2024-01-01T00:00:00'", keep: func(r wideRow) bool { return r.pd.After(day("2024-01-01")) }, afterStats: 2},
		{name: "or across widenings", where: "b > 100 OR i < -5 OR s.a > 4294967296", keep: func(r wideRow) bool { return r.b > 100 || r.cents < -500 || r.sa > 4294967296 }, afterStats: 2},
	}
	h := wasmHost(t)
	for _, c := range cases {
		w := want(c.keep)
		for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
			got, rep := readDelta(t, root, e, c.where)
			sameRows(t, fmt.Sprintf("%s (%T)", c.name, e), got, w)
			if c.afterStats >= 0 {
				require.Equal(t, c.afterStats, rep.FilesAfterStats, "%s (%T): files after statistics", c.name, e)
			}
		}
	}
}

// Test_deltaDecimal38Partition filters a table partitioned by a decimal(38,18) column, whose
// values need 16 bytes (not an int64).
func Test_deltaDecimal38Partition(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "_delta_log"), 0o755))
	amounts := []string{"1.500000000000000000", "-2.250000000000000000", "12345678901234567890.123456789012345678", ""}
	var log strings.Builder
	log.WriteString(`{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}` + "\n")
	log.WriteString(`{"metaData":{"id":"dec","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"amount\",\"type\":\"decimal(38,18)\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":["amount"],"configuration":{},"createdTime":0}}` + "\n")
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	for k, a := range amounts {
		rel := fmt.Sprintf("part-%d.parquet", k)
		size := writeParquetRows(t, filepath.Join(root, rel), sc, []map[string]any{{"id": k}})
		pv := any(a)
		if a == "" {
			pv = nil
		}
		add, err := json.Marshal(map[string]any{"add": map[string]any{"path": rel, "partitionValues": map[string]any{"amount": pv},
			"size": size, "modificationTime": 0, "dataChange": true}})
		require.NoError(t, err)
		log.Write(append(add, '\n'))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "_delta_log", "00000000000000000000.json"), []byte(log.String()), 0o644))
	ids := func(ks ...int) []string {
		var out []string
		for _, k := range ks {
			amount := "null"
			if amounts[k] != "" {
				amount = strconv.Quote(strings.TrimRight(strings.TrimRight(amounts[k], "0"), "."))
			}
			out = append(out, fmt.Sprintf("amount=%s|id=%d", amount, k))
		}
		return out
	}
	h := wasmHost(t)
	for _, c := range []struct {
		where string
		want  []string
	}{
		{"", ids(0, 1, 2, 3)}, {"amount > 0", ids(0, 2)},
		{"amount = 1.5", ids(0)},
		{"amount < -1", ids(1)},
		{"amount >= 12345678901234567890.123456789012345678", ids(2)},
		{"amount > 12345678901234567890.123456789012345678", nil},
		{"amount IS NULL", ids(3)},
		{"amount IN (-2.25, 7)", ids(1)},
	} {
		for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
			got, rep := readDelta(t, root, e, c.where)
			sameRows(t, fmt.Sprintf("%s (%T)", c.where, e), got, c.want)
			require.Equal(t, len(c.want), rep.FilesAfterPartitions, "%s (%T)", c.where, e)
		}
	}
}

// Test_deltaTypeWideningAggregates: min/max, count and top-k over widened columns fold the
// files' answers in the table's types (an old file's int8 extremes as doubles, its dates as
// timestamps), natively and in the wasm module.
func Test_deltaTypeWideningAggregates(t *testing.T) {
	root := writeWideTable(t)
	var all []wideRow
	for _, f := range wideFiles {
		all = append(all, f.rows...)
	}
	table := wideArrowSchema(false, true)
	type key struct {
		col  string
		less func(a, b wideRow) bool
	}
	keys := []key{
		{"b", func(a, b wideRow) bool { return a.b < b.b }},
		{"i", func(a, b wideRow) bool { return a.cents < b.cents }},
		{"d", func(a, b wideRow) bool { return a.d.Before(b.d) }},
		{"f", func(a, b wideRow) bool { return a.f < b.f }},
	}
	h := wasmHost(t)
	for _, e := range []pqscan.Engine{pqscan.Native{}, h} {
		ds, err := pqscan.OpenDataset(context.Background(), []string{root + "/"}, pqscan.Options{Engine: e})
		require.NoError(t, err)
		defer ds.Close()
		for _, k := range keys {
			sorted := slices.Clone(all)
			slices.SortFunc(sorted, func(a, b wideRow) int {
				if k.less(a, b) {
					return -1
				}
				return 1
			})
			typ := table.Field(table.FieldIndices(k.col)[0]).Type
			lo, hi := sorted[0].json(false, true)[k.col], sorted[len(sorted)-1].json(false, true)[k.col]
			want := wideRecord(t, arrow.NewSchema([]arrow.Field{{Name: "min", Type: typ, Nullable: true}, {Name: "max", Type: typ, Nullable: true}}, nil),
				[]map[string]any{{"min": lo, "max": hi}})
			rec, _, err := ds.MinMax(context.Background(), k.col, pqscan.ScanOptions{})
			require.NoError(t, err, k.col)
			require.Equal(t, canonRows(want), canonRows(rec), "min/max %s (%T)", k.col, e)
			want.Release()
			rec.Release()

			rows, _, err := deltaRowsWith(t, root, pqscan.Options{Engine: e}, pqscan.ScanOptions{OrderBy: k.col + " DESC", Limit: 3, Columns: []string{"id"}})
			require.NoError(t, err, k.col)
			var wantIDs []string
			for _, r := range sorted[len(sorted)-3:] {
				wantIDs = append([]string{fmt.Sprintf("id=%d", r.id)}, wantIDs...)
			}
			require.Equal(t, wantIDs, rows, "top 3 by %s (%T)", k.col, e)
		}
		n, _, err := ds.Count(context.Background(), pqscan.ScanOptions{Where: "b > 2"})
		require.NoError(t, err)
		want := 0
		for _, r := range all {
			if r.b > 2 {
				want++
			}
		}
		require.Equal(t, int64(want), n, "count (%T)", e)
	}
}
