package conformance

// Random Delta tables, written the way Spark writes them: partition columns of several types
// (null values, values a path must escape), column mapping by name (physical names in the
// files, the statistics and the partition values), statistics that are exact, missing, or
// truncated as Spark truncates timestamps (to milliseconds), deletion vectors inline, and a
// second commit that removes a file and adds more. The rows are known by construction
// (checked first, for the latest version and the first); then the WHERE differential.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/delta/dvtest"
)

// drCol is a column of the random Delta table: its logical name, Delta type, and whether it
// is a partition column.
type drCol struct {
	name, typ string
	part      bool
}

var drData = []drCol{{"id", "long", false}, {"a", "integer", false}, {"s", "string", false}, {"d", "date", false},
	{"ts", "timestamp", false}, {"dec", "decimal(10,2)", false}, {"f", "double", false}, {"b", "boolean", false}}

var drParts = []drCol{{"pi", "integer", true}, {"ps", "string", true}, {"pd", "date", true}, {"pt", "timestamp", true},
	{"pdec", "decimal(10,2)", true}, {"pb", "boolean", true}, {"pf", "double", true}, {"pl", "long", true}}

// drValue draws a value of Delta type typ (nil: null), in the terms unionCell reads: int64
// for integers, dates (days), timestamps (µs) and decimals (hundredths).
func drValue(r *rand.Rand, typ string, nulls bool) any {
	if nulls && r.IntN(7) == 0 {
		return nil
	}
	switch typ {
	case "integer", "long":
		return int64(r.IntN(61) - 30)
	case "string":
		return []string{"a", "ab", "b c", "x/y", "%25", "é", "z=1", "Ω"}[r.IntN(8)]
	case "date":
		return int64(19700 + r.IntN(9))
	case "timestamp":
		return int64(1_700_000_000_000_000 + r.IntN(5)*1_000_000 + r.IntN(3)*1000 + r.IntN(2)*7)
	case "decimal(10,2)":
		return int64(r.IntN(4001) - 2000)
	case "double":
		return []float64{-1.5, 0, 0.1, 2.5, 1e6, -0.25}[r.IntN(6)]
	case "boolean":
		return r.IntN(2) == 0
	}
	panic(typ)
}

func drArrow(typ string) arrow.DataType {
	switch typ {
	case "integer":
		return arrow.PrimitiveTypes.Int32
	case "long":
		return arrow.PrimitiveTypes.Int64
	case "string":
		return arrow.BinaryTypes.String
	case "date":
		return arrow.FixedWidthTypes.Date32
	case "timestamp":
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case "decimal(10,2)":
		return &arrow.Decimal128Type{Precision: 10, Scale: 2}
	case "double":
		return arrow.PrimitiveTypes.Float64
	case "boolean":
		return arrow.FixedWidthTypes.Boolean
	}
	panic(typ)
}

func drAppend(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.Int32Builder:
		b.Append(int32(v.(int64)))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.(int64)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.(int64)))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(v.(int64)))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	}
}

// drJSON is a value as the log writes it: in statistics (JSON values) or, with part, as a
// partition value (a string).
func drJSON(typ string, v any, part bool) any {
	if v == nil {
		return nil
	}
	var s string
	switch typ {
	case "date":
		s = time.Unix(v.(int64)*86400, 0).UTC().Format("2006-01-02")
	case "timestamp":
		tm := time.UnixMicro(v.(int64)).UTC()
		if part {
			// Both forms the protocol allows: "2024-01-01 00:00:00[.ffffff]" (UTC) and ISO 8601 in UTC.
			s = tm.Format("2006-01-02 15:04:05.999999")
			if v.(int64)%2 == 1 {
				s = tm.Format("2006-01-02T15:04:05.000000Z")
			}
		} else {
			s = tm.Format("2006-01-02T15:04:05.000Z") // Spark: milliseconds, truncated
		}
	case "decimal(10,2)":
		s = new(big.Rat).SetFrac64(v.(int64), 100).FloatString(2)
		if !part {
			f, _ := strconv.ParseFloat(s, 64)
			return f
		}
	default:
		if !part {
			return v
		}
		s = fmt.Sprint(v)
	}
	return s
}

// drCell is a random Delta column's value as the evaluator's cell, by unionCell's conventions.
func drCell(typ string, v any) cell {
	switch typ {
	case "timestamp":
		return unionCell("ts", v)
	case "decimal(10,2)":
		return unionCell("dec", v)
	}
	return unionCell("", v)
}

type drFile struct {
	path  string // as the log names it (escaped)
	rows  []map[string]any
	parts map[string]any
	dv    []uint64
	dvRef string // the add's ,"deletionVector":{…}, which a remove of it repeats
	add   string // the add action's JSON line
}

// deltaRandomTable writes a random table; it returns its folder and the files of each version.
func deltaRandomTable(t *testing.T, seed uint64) (dir string, cols []drCol, files [2][]*drFile, mapping bool) {
	r := rand.New(rand.NewPCG(seed, 11))
	dir = t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755))
	cols = slices.Clone(drData)
	for _, p := range drParts {
		if r.IntN(4) == 0 {
			cols = append(cols, p)
		}
	}
	mapping = r.IntN(2) == 0
	phys := func(i int) string {
		if mapping {
			return fmt.Sprintf("col-%d-%s", i, cols[i].name)
		}
		return cols[i].name
	}
	var fields []string
	for i, c := range cols {
		meta := "{}"
		if mapping {
			meta = fmt.Sprintf(`{"delta.columnMapping.id":%d,"delta.columnMapping.physicalName":%q}`, i+1, phys(i))
		}
		fields = append(fields, fmt.Sprintf(`{"name":%q,"type":%q,"nullable":true,"metadata":%s}`, c.name, c.typ, meta))
	}
	schema, _ := json.Marshal(`{"type":"struct","fields":[` + strings.Join(fields, ",") + `]}`)
	var partNames []string
	for _, c := range cols {
		if c.part {
			partNames = append(partNames, strconv.Quote(c.name))
		}
	}
	conf := `{}`
	protocol := `{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"]}}`
	if mapping {
		conf = fmt.Sprintf(`{"delta.columnMapping.mode":"name","delta.columnMapping.maxColumnId":"%d"}`, len(cols))
		protocol = `{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["columnMapping","deletionVectors"],"writerFeatures":["columnMapping","deletionVectors"]}}`
	}
	commit0 := []string{protocol, fmt.Sprintf(`{"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":%s,"partitionColumns":[%s],"configuration":%s,"createdTime":1}}`,
		schema, strings.Join(partNames, ","), conf)}
	var commit1 []string
	id := int64(0)
	addFile := func(k int) *drFile {
		f := &drFile{parts: map[string]any{}}
		var dirs []string
		pv := map[string]any{}
		for i, c := range cols {
			if c.part {
				v := drValue(r, c.typ, true)
				f.parts[c.name] = v
				pv[phys(i)] = drJSON(c.typ, v, true)
				s := "__HIVE_DEFAULT_PARTITION__"
				if v != nil {
					s = url.PathEscape(drJSON(c.typ, v, true).(string)) // Spark escapes like Hive; any escape reads back through the log
				}
				dirs = append(dirs, phys(i)+"="+s)
			}
		}
		var afs []arrow.Field
		var data []int
		for i, c := range cols {
			if !c.part {
				md := arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(i + 1)})
				afs = append(afs, arrow.Field{Name: phys(i), Type: drArrow(c.typ), Nullable: true, Metadata: md})
				data = append(data, i)
			}
		}
		as := arrow.NewSchema(afs, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, as)
		n := 5 + r.IntN(60)
		for range n {
			row := map[string]any{}
			for j, i := range data {
				v := drValue(r, cols[i].typ, cols[i].name != "id")
				if cols[i].name == "id" {
					v = id
					id++
				}
				drAppend(b.Field(j), v)
				row[cols[i].name] = v
			}
			f.rows = append(f.rows, row)
		}
		rec := b.NewRecordBatch()
		b.Release()
		file := parquetOf(t, rec, parquet.WithMaxRowGroupLength(int64(5+r.IntN(30))), parquet.WithStats(true), parquet.WithPageIndexEnabled(true))
		rec.Release()
		rel := filepath.Join(append(dirs, fmt.Sprintf("part-%05d.snappy.parquet", k))...)
		must(os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
		must(os.WriteFile(filepath.Join(dir, rel), file, 0o644))
		// The log names the path URI-escaped (a '%' in a folder name is %25 there).
		u := &url.URL{Path: filepath.ToSlash(rel)}
		f.path = u.EscapedPath()
		// Statistics: exact, on some columns only, or none.
		stats := ""
		if r.IntN(5) > 0 {
			mins, maxs, nulls := map[string]any{}, map[string]any{}, map[string]any{}
			for _, i := range data {
				if r.IntN(6) == 0 {
					continue
				}
				c := cols[i]
				var lo, hi any
				nn := 0
				for _, row := range f.rows {
					v := row[c.name]
					if v == nil {
						nn++
						continue
					}
					if lo == nil || drCell(c.typ, v).less(drCell(c.typ, lo)) {
						lo = v
					}
					if hi == nil || drCell(c.typ, hi).less(drCell(c.typ, v)) {
						hi = v
					}
				}
				nulls[phys(i)] = nn
				if lo != nil && c.typ != "boolean" {
					mins[phys(i)], maxs[phys(i)] = drJSON(c.typ, lo, false), drJSON(c.typ, hi, false)
				}
			}
			js, _ := json.Marshal(map[string]any{"numRecords": n, "minValues": mins, "maxValues": maxs, "nullCount": nulls})
			stats = `,"stats":` + strconv.Quote(string(js))
		}
		pvj, _ := json.Marshal(pv)
		add := fmt.Sprintf(`{"add":{"path":%q,"partitionValues":%s,"size":%d,"modificationTime":1,"dataChange":true%s`, f.path, pvj, len(file), stats)
		if r.IntN(3) == 0 && n > 2 {
			for _, i := range r.Perm(n)[:1+r.IntN(n/2)] {
				f.dv = append(f.dv, uint64(i))
			}
			bm := dvtest.Bitmap(f.dv)
			dv, _ := json.Marshal(&delta.DeletionVector{StorageType: "i", PathOrInlineDv: dvtest.Z85(bm), SizeInBytes: int32(len(bm)), Cardinality: int64(len(f.dv))})
			f.dvRef = `,"deletionVector":` + string(dv)
			add += f.dvRef
		}
		add += "}}"
		f.add = add
		if k < 3 {
			commit0 = append(commit0, add)
		} else {
			commit1 = append(commit1, add)
		}
		return f
	}
	var all []*drFile
	nf := 4 + r.IntN(4)
	for k := range nf {
		all = append(all, addFile(k))
	}
	files[0] = all[:3]
	gone := all[r.IntN(3)]
	// The remove names the logical file: its path and its deletion vector.
	commit1 = append(commit1, fmt.Sprintf(`{"remove":{"path":%q,"deletionTimestamp":2,"dataChange":true%s}}`, gone.path, gone.dvRef))
	for _, f := range all {
		if f != gone {
			files[1] = append(files[1], f)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", 0)), []byte(strings.Join(commit0, "\n")+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", 1)), []byte(strings.Join(commit1, "\n")+"\n"), 0o644))
	// Half the tables also get a checkpoint of version 1 (a Parquet file of the protocol,
	// metadata and live adds, as Spark writes one) and then lose their commits 0 and 1, as a
	// log cleanup leaves them: version 1 can only be read from the checkpoint.
	if r.IntN(2) == 0 {
		lines := []string{commit0[0], commit0[1]}
		for _, f := range files[1] {
			lines = append(lines, f.add)
		}
		writeCheckpoint(t, dir, 1, lines)
		must(os.Remove(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", 0))))
		must(os.Remove(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", 1))))
		files[0] = nil // no longer readable
	}
	return dir, cols, files, mapping
}

// writeCheckpoint writes the classic single-file checkpoint of version v holding the given
// actions (JSON lines: protocol, metaData, adds) and its _last_checkpoint.
func writeCheckpoint(t *testing.T, dir string, v int64, lines []string) {
	t.Helper()
	str, i32, i64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64
	smap := arrow.MapOf(str, str)
	slist := arrow.ListOf(str)
	f := func(name string, dt arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: dt, Nullable: true}
	}
	dvT := arrow.StructOf(f("storageType", str), f("pathOrInlineDv", str), f("offset", i32), f("sizeInBytes", i32), f("cardinality", i64))
	addT := arrow.StructOf(f("path", str), f("partitionValues", smap), f("size", i64), f("modificationTime", i64),
		f("dataChange", arrow.FixedWidthTypes.Boolean), f("stats", str), f("deletionVector", dvT))
	metaT := arrow.StructOf(f("id", str), f("format", arrow.StructOf(f("provider", str), f("options", smap))), f("schemaString", str),
		f("partitionColumns", slist), f("configuration", smap), f("createdTime", i64))
	protoT := arrow.StructOf(f("minReaderVersion", i32), f("minWriterVersion", i32), f("readerFeatures", slist), f("writerFeatures", slist))
	schema := arrow.NewSchema([]arrow.Field{f("protocol", protoT), f("metaData", metaT), f("add", addT)}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	// put appends JSON value x to builder bd of type dt (nil: null).
	var put func(bd array.Builder, x any)
	put = func(bd array.Builder, x any) {
		if x == nil {
			bd.AppendNull()
			return
		}
		switch bd := bd.(type) {
		case *array.StringBuilder:
			bd.Append(x.(string))
		case *array.Int32Builder:
			bd.Append(int32(x.(float64)))
		case *array.Int64Builder:
			bd.Append(int64(x.(float64)))
		case *array.BooleanBuilder:
			bd.Append(x.(bool))
		case *array.MapBuilder:
			bd.Append(true)
			m := x.(map[string]any)
			keys := slices.Sorted(maps.Keys(m))
			for _, k := range keys {
				bd.KeyBuilder().(*array.StringBuilder).Append(k)
				put(bd.ItemBuilder(), m[k])
			}
		case *array.ListBuilder:
			bd.Append(true)
			for _, e := range x.([]any) {
				put(bd.ValueBuilder(), e)
			}
		case *array.StructBuilder:
			bd.Append(true)
			m := x.(map[string]any)
			st := bd.Type().(*arrow.StructType)
			for i, fl := range st.Fields() {
				put(bd.FieldBuilder(i), m[fl.Name])
			}
		default:
			t.Fatalf("checkpoint builder %T", bd)
		}
	}
	for _, line := range lines {
		var act map[string]any
		if err := json.Unmarshal([]byte(line), &act); err != nil {
			t.Fatal(err)
		}
		for i, fl := range schema.Fields() {
			put(b.Field(i), act[fl.Name])
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	data := parquetOf(t, rec, parquet.WithStats(true))
	logDir := filepath.Join(dir, "_delta_log")
	if err := os.WriteFile(filepath.Join(logDir, fmt.Sprintf("%020d.checkpoint.parquet", v)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	last := fmt.Sprintf(`{"version":%d,"size":%d}`, v, len(lines))
	if err := os.WriteFile(filepath.Join(logDir, "_last_checkpoint"), []byte(last), 0o644); err != nil {
		t.Fatal(err)
	}
}

// less orders two cells of one kind (drCell's).
func (x cell) less(y cell) bool { return cmpExact(x, y) < 0 }

func Test_whereDeltaRandom(t *testing.T) { whereDeltaRandom(t, pqscan.Options{}, 6*whereDraws, 400) }

// Test_whereDeltaRandomWasm: the same tables, the log replayed and each file scanned in the
// wasm module (wazero).
func Test_whereDeltaRandomWasm(t *testing.T) {
	if testing.Short() {
		t.Skip("the wasm module's differential: -short")
	}
	whereDeltaRandom(t, pqscan.Options{Engine: wasmHost(t)}, whereDraws, 60)
}

func whereDeltaRandom(t *testing.T, opts pqscan.Options, draws, least int) {
	ctx := context.Background()
	preds, ckpts := 0, 0
	for seed := range uint64(8) {
		dir, cols, files, mapping := deltaRandomTable(t, seed+whereSalt)
		if files[0] == nil {
			ckpts++
		}
		for v, fs := range files {
			if fs == nil {
				continue // version 0 of a table whose commits a checkpoint replaced
			}
			name := fmt.Sprintf("random Delta table %d (column mapping %v) version %d", seed, mapping, v)
			version := int64(v)
			o := opts
			o.DeltaVersion = &version
			ds, err := pqscan.OpenDataset(ctx, []string{dir + "/"}, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// By construction: the files in log order, each less its deleted rows.
			var want []map[string]any
			for _, f := range fs {
				for i, row := range f.rows {
					if slices.Contains(f.dv, uint64(i)) {
						continue
					}
					m := map[string]any{}
					for k, x := range row {
						m[k] = x
					}
					for k, x := range f.parts {
						m[k] = x
					}
					want = append(want, m)
				}
			}
			all := readWhole(t, name, ds, len(want))
			// Rows by id (a table's file order is the log's, not asserted here).
			idCol := all.schema.FieldIndices("id")[0]
			byID := map[int64]map[string]any{}
			for _, w := range want {
				byID[w["id"].(int64)] = w
			}
			for i := range all.rows {
				idc, _ := cellAt(all, idCol, i, nil)
				w := byID[idc.rat.Num().Int64()]
				if w == nil {
					t.Fatalf("%s: row %d has id %v, not a live row", name, i, idc.rat)
				}
				for c, fl := range all.schema.Fields() {
					k := slices.IndexFunc(cols, func(d drCol) bool { return d.name == fl.Name })
					if k < 0 {
						t.Fatalf("%s: column %q", name, fl.Name)
					}
					got, ok := cellAt(all, c, i, nil)
					x := w[fl.Name]
					if ok != (x != nil) || ok && cmpExact(got, drCell(cols[k].typ, x)) != 0 {
						t.Fatalf("%s: id %v column %s: %+v (null %v), want %v", name, idc.rat, fl.Name, got, !ok, x)
					}
				}
			}
			n, _ := checkWhere(t, name, ds, draws)
			preds += n
			ds.Close()
		}
	}
	t.Logf("%d predicates over 8 random Delta tables, %d of them read from a checkpoint", preds, ckpts)
	if preds < least {
		t.Fatalf("only %d predicates", preds)
	}
}
