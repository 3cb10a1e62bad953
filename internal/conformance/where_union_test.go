package conformance

// Random WHERE over tables whose files disagree on their columns: each file holds a random
// subset of the columns, in a random order, each in a random width of its type (int32 or
// int64, float or double, timestamps in ms or µs, decimals of 7 or 15 digits), so that the
// table widens some files' columns and lacks others in some files. Every predicate is then
// rewritten per file in the file's own types (internal/tablescan/filewhere.go): a literal
// compared with a float column the table widens to double, a missing column, a decimal bound in
// fewer digits. The rows are known by construction (checked first), the predicates' answers
// against the evaluator of where_tables_test.go.

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan"
)

// unionCol is a column of the generated table: its name and the two widths a file may write it in.
type unionCol struct {
	name          string
	narrow, wide  arrow.DataType
	value         func(r *rand.Rand) any // a value in the wide type's terms (see unionAppend)
	nullsPossible bool
}

// unionFloats mixes values float32 holds exactly with ones it does not (0.1, 1/3): a file
// of float32 rounds them, and its column then holds values a double literal may sit between.
var unionFloats = []float64{0, -0.5, 0.1, 1.0 / 3, 2.25, 1e10, -7, 16777217, 0.2}

func unionCols() []unionCol {
	return []unionCol{
		{name: "a", narrow: arrow.PrimitiveTypes.Int32, wide: arrow.PrimitiveTypes.Int64, nullsPossible: true,
			value: func(r *rand.Rand) any { return int64(r.IntN(41) - 20) }},
		{name: "f", narrow: arrow.PrimitiveTypes.Float32, wide: arrow.PrimitiveTypes.Float64, nullsPossible: true,
			value: func(r *rand.Rand) any { return unionFloats[r.IntN(len(unionFloats))] }},
		{name: "ts", narrow: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, wide: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
			nullsPossible: true, value: func(r *rand.Rand) any { return int64(1_700_000_000_000+r.IntN(20)*1000+r.IntN(3)) * 1000 }},
		{name: "dec", narrow: &arrow.Decimal128Type{Precision: 7, Scale: 2}, wide: &arrow.Decimal128Type{Precision: 15, Scale: 2},
			nullsPossible: true, value: func(r *rand.Rand) any { return int64(r.IntN(2001) - 1000) }},
		{name: "s", narrow: arrow.BinaryTypes.String, wide: arrow.BinaryTypes.String, nullsPossible: true,
			value: func(r *rand.Rand) any { return []string{"", "a", "ab", "b", "ba", "bb", "é"}[r.IntN(7)] }},
		{name: "b", narrow: arrow.FixedWidthTypes.Boolean, wide: arrow.FixedWidthTypes.Boolean, nullsPossible: true,
			value: func(r *rand.Rand) any { return r.IntN(2) == 0 }},
	}
}

// unionAppend appends v (in the wide type's terms) to a builder of type dt: a float32 file
// rounds the double, a millisecond file's timestamps are whole milliseconds by construction.
func unionAppend(b array.Builder, dt arrow.DataType, v any) {
	switch b := b.(type) {
	case *array.Int32Builder:
		b.Append(int32(v.(int64)))
	case *array.Int64Builder:
		b.Append(v.(int64))
	case *array.Float32Builder:
		b.Append(float32(v.(float64)))
	case *array.Float64Builder:
		b.Append(v.(float64))
	case *array.TimestampBuilder:
		us := v.(int64)
		if dt.(*arrow.TimestampType).Unit == arrow.Millisecond {
			b.Append(arrow.Timestamp(us / 1000))
		} else {
			b.Append(arrow.Timestamp(us))
		}
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(v.(int64)))
	case *array.StringBuilder:
		b.Append(v.(string))
	case *array.BooleanBuilder:
		b.Append(v.(bool))
	default:
		panic(fmt.Sprintf("%T", b))
	}
}

// unionTable writes files of random column subsets and widths; it returns their paths and, per
// file, the value of each column by row (nil: null or absent), the ids in order.
func unionTable(t *testing.T, seed uint64) (paths []string, want []map[string]any) {
	return genUnionTable(t, seed, false)
}

// genUnionTable is unionTable; with byPos every file keeps the first file's column order, may
// lack its trailing columns, and names each column its own way (a_1, f_1, … in file 1), to be
// read with SchemaByPosition.
func genUnionTable(t *testing.T, seed uint64, byPos bool) (paths []string, want []map[string]any) {
	r := rand.New(rand.NewPCG(seed, 7))
	dir := t.TempDir()
	cols := unionCols()
	id := int64(0)
	nfiles := 3 + r.IntN(3)
	for k := 0; k < nfiles; k++ {
		fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
		var used []unionCol
		var types []arrow.DataType
		keep := len(cols)
		if byPos && k > 0 {
			keep = r.IntN(len(cols) + 1)
		}
		for i, c := range cols {
			// The first file holds every column, so that the table's order is fixed; the
			// others a random subset in a random order (by position: a prefix, in order).
			if k > 0 && (!byPos && r.IntN(4) == 0 || i >= keep) {
				continue
			}
			dt := c.wide
			if r.IntN(2) == 0 && !(byPos && k == 0) { // the first file's types are the table's
				dt = c.narrow
			}
			used, types = append(used, c), append(types, dt)
		}
		if k > 0 && !byPos {
			p := r.Perm(len(used))
			u2, t2 := make([]unionCol, len(used)), make([]arrow.DataType, len(used))
			for i, j := range p {
				u2[i], t2[i] = used[j], types[j]
			}
			used, types = u2, t2
		}
		for i, c := range used {
			name := c.name
			if byPos && k > 0 {
				name = fmt.Sprintf("%s_%d", c.name, k)
			}
			fields = append(fields, arrow.Field{Name: name, Type: types[i], Nullable: true})
		}
		schema := arrow.NewSchema(fields, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		rows := 40 + r.IntN(200)
		for range rows {
			row := map[string]any{"id": id}
			b.Field(0).(*array.Int64Builder).Append(id)
			id++
			for i, c := range used {
				if c.nullsPossible && r.IntN(6) == 0 {
					b.Field(i + 1).AppendNull()
					continue
				}
				v := c.value(r)
				unionAppend(b.Field(i+1), types[i], v)
				if f, ok := v.(float64); ok && types[i].ID() == arrow.FLOAT32 {
					v = float64(float32(f))
				}
				row[c.name] = v
			}
			want = append(want, row)
		}
		rec := b.NewRecordBatch()
		b.Release()
		data := parquetOf(t, rec, parquet.WithMaxRowGroupLength(int64(10+r.IntN(60))), parquet.WithStats(true),
			parquet.WithDictionaryDefault(r.IntN(2) == 0), parquet.WithDataPageSize(int64(64+r.IntN(512))), parquet.WithPageIndexEnabled(true))
		rec.Release()
		p := filepath.Join(dir, fmt.Sprintf("part-%02d.parquet", k))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths, want
}

// unionCell is want's value of a column as the evaluator's cell.
func unionCell(name string, v any) cell {
	switch x := v.(type) {
	case float64:
		return cell{f: x, k: 'f'}
	case string:
		return cell{s: x, k: 's'}
	case bool:
		return cell{b: x, k: 'b'}
	case int64:
		switch name {
		case "dec":
			return cell{rat: big.NewRat(x, 100), k: 'r'}
		case "ts":
			return cell{rat: big.NewRat(x, 1_000_000), k: 'r'}
		}
		return cell{rat: new(big.Rat).SetInt64(x), k: 'r'}
	}
	panic(fmt.Sprintf("%T", v))
}

func Test_whereUnion(t *testing.T) { whereUnion(t, pqscan.Options{}, 8*whereDraws, 300) }

// Test_whereByPosition: files whose columns are named differently, matched by position.
func Test_whereByPosition(t *testing.T) {
	whereUnion(t, pqscan.Options{SchemaByPosition: true}, 4*whereDraws, 150)
}

// Test_whereUnionWasm: the same tables, each file's scan in the wasm module (wazero).
func Test_whereUnionWasm(t *testing.T) {
	if testing.Short() {
		t.Skip("the wasm module's differential: -short")
	}
	whereUnion(t, pqscan.Options{Engine: wasmHost(t)}, 2*whereDraws, 80)
}

func whereUnion(t *testing.T, opts pqscan.Options, draws, least int) {
	ctx := context.Background()
	preds := 0
	opts.UnionSchema = !opts.SchemaByPosition
	for seed := range uint64(6) {
		paths, want := genUnionTable(t, seed+uint64(whereSalt), opts.SchemaByPosition)
		name := fmt.Sprintf("union table %d", seed)
		ds, err := pqscan.OpenDataset(ctx, paths, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The rows by construction: every value in the table's (widest) type.
		all := readWhole(t, name, ds, len(want))
		for c, f := range all.schema.Fields() {
			if f.Name == "id" {
				continue
			}
			if i := slices.IndexFunc(unionCols(), func(u unionCol) bool { return u.name == f.Name }); i < 0 {
				t.Fatalf("%s: column %q", name, f.Name)
			}
			for i := range all.rows {
				got, ok := cellAt(all, c, i, nil)
				w, has := want[i][f.Name]
				switch {
				case ok != has:
					t.Fatalf("%s: row %d column %s: null %v, want null %v", name, i, f.Name, !ok, !has)
				case ok && cmpExact(got, unionCell(f.Name, w)) != 0:
					t.Fatalf("%s: row %d column %s: %+v, want %v", name, i, f.Name, got, w)
				}
			}
		}
		n, _ := checkWhere(t, name, ds, draws)
		preds += n
		ds.Close()
	}
	t.Logf("%d predicates over 6 union tables", preds)
	if preds < least {
		t.Fatalf("only %d predicates", preds)
	}
}

// cmpExact orders two cells of one kind without cmpCells' float32 rounding of the second.
func cmpExact(x, y cell) int {
	if x.k == 'f' {
		switch {
		case x.f < y.f:
			return -1
		case x.f > y.f:
			return 1
		case x.f == y.f || math.IsNaN(x.f) && math.IsNaN(y.f):
			return 0
		}
		return 1
	}
	return cmpCells(x, y)
}

// readWhole reads src whole, a table of want rows.
func readWhole(t *testing.T, name string, src whereSource, want int) *scanResult {
	t.Helper()
	r, err := src.Scan(context.Background(), pqscan.ScanOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	all, err := collect(r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if all.rows != int64(want) {
		t.Fatalf("%s: %d rows, want %d", name, all.rows, want)
	}
	return all
}

// parquetOf is rec written by arrow-go with the given writer properties.
func parquetOf(t *testing.T, rec arrow.RecordBatch, props ...parquet.WriterProperty) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, parquet.NewWriterProperties(props...), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
