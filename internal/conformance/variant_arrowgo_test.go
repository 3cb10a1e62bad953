package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/google/uuid"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	pqvariant "github.com/pqscan/pqscan/internal/variant"
)

// Variant columns against arrow-go's own Variant implementation: random values (every
// primitive, nested objects and arrays, nulls of both kinds) built with its Builder, shredded
// by its VariantBuilder into the shapes below and written by pqarrow with the VARIANT
// annotation; pqscan must give each row's variant back unshredded, equal to what was built
// (compared through arrow-go's decoding of both, so an object's field order and the
// metadata dictionary may differ, the values may not).

// variantShapes are the typed_value types the files are shredded into (nil: unshredded).
var variantShapes = []struct {
	name  string
	typed arrow.DataType
}{
	{"unshredded", nil},
	{"int64", arrow.PrimitiveTypes.Int64},
	{"string", arrow.BinaryTypes.String},
	// (No list shape: pqarrow v18.8.0 cannot write a shredded list whose null rows have
	// elements, "lists with non-zero length null components"; the DuckDB differential in
	// internal/variant shreds arrays.)
	{"object", arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "c", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "d", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
			arrow.Field{Name: "y", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true}), Nullable: true},
		arrow.Field{Name: "e", Type: &arrow.Decimal128Type{Precision: 20, Scale: 3}, Nullable: true},
		arrow.Field{Name: "f", Type: arrow.FixedWidthTypes.Boolean, Nullable: true})},
}

// randVariant is a random value for Builder.Append. Objects draw their keys from a few names,
// most of them those of the "object" shape, so that shredding finds both matches and misses.
func randVariant(r *rand.Rand, depth int) any {
	k := r.IntN(22)
	if depth > 2 && k >= 18 {
		k = r.IntN(18)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return int8(r.IntN(256) - 128)
	case 3:
		return int16(r.IntN(65536) - 32768)
	case 4:
		return int32(r.Uint32())
	case 5:
		return int64(r.Uint64())
	case 6:
		return float32(r.NormFloat64() * 1e3)
	case 7:
		switch r.IntN(6) {
		case 0:
			return math.Inf(1 - 2*r.IntN(2))
		case 1:
			return -0.0
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	case 8:
		return strings.Repeat("é\"\\\n\x01z", r.IntN(20))
	case 9:
		return fmt.Sprintf("s%d", r.IntN(100))
	case 10:
		b := make([]byte, r.IntN(80))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	case 11:
		return arrow.Date32(r.IntN(200000) - 100000)
	case 12:
		return arrow.Time64(r.Int64N(86400 * 1e6))
	case 13:
		return time.Unix(r.Int64N(4e9)-2e9, r.Int64N(1e9)).UTC()
	case 14:
		return variant.DecimalValue[decimal.Decimal32]{Scale: uint8(r.IntN(10)), Value: decimal.Decimal32(int32(r.Uint32()) % 999999999)}
	case 15:
		return variant.DecimalValue[decimal.Decimal64]{Scale: uint8(r.IntN(19)), Value: decimal.Decimal64(r.Int64N(1e18) - 5e17)}
	case 16:
		return variant.DecimalValue[decimal.Decimal128]{Scale: uint8(r.IntN(38)), Value: decimal128.New(r.Int64N(1e15), r.Uint64())}
	case 17:
		var u uuid.UUID
		for i := range u {
			u[i] = byte(r.Uint32())
		}
		return u
	case 18, 19:
		n := r.IntN(6)
		if r.IntN(8) == 0 {
			// An object past one-byte offsets in its metadata. (No more keys: arrow-go
			// v18.8.0's metadata reader fails on dictionaries of some hundreds of keys;
			// internal/variant's own tests cover wider ids and offsets.)
			n = 80
		}
		m := map[string]any{}
		for range n {
			key := string("abcdefgxyz"[r.IntN(10)])
			if n > 10 {
				key = fmt.Sprintf("k%02d", r.IntN(100))
			}
			m[key] = randVariant(r, depth+1)
		}
		return m
	default:
		n := r.IntN(5)
		if r.IntN(10) == 0 {
			n = 270
		}
		a := make([]any, n)
		for i := range a {
			a[i] = randVariant(r, depth+1)
		}
		return a
	}
}

// variantFile writes rows variants (nil: a null row) shredded as typed says, and returns the
// file and arrow-go's reading of each row (the expected value, unshredded by arrow-go).
func variantFile(t *testing.T, typed arrow.DataType, rows []any, opts []variant.AppendOpt) ([]byte, []*variant.Value) {
	t.Helper()
	vt := extensions.NewShreddedVariantType(typed)
	b := vt.NewBuilder(memory.DefaultAllocator).(*extensions.VariantBuilder)
	defer b.Release()
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	defer ids.Release()
	for i, v := range rows {
		ids.Append(int64(i))
		if v == nil {
			b.AppendNull()
			continue
		}
		var vb variant.Builder
		require.NoError(t, vb.Append(v, opts[i]))
		val, err := vb.Build()
		require.NoError(t, err)
		b.Append(val)
	}
	arr := b.NewArray().(*extensions.VariantArray)
	defer arr.Release()
	idArr := ids.NewArray()
	defer idArr.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: vt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{idArr, arr}, int64(len(rows)))
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithStats(true), parquet.WithMaxRowGroupLength(int64(len(rows)/3+1)),
		parquet.WithDataPageSize(512))
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	want := make([]*variant.Value, len(rows))
	for i := range rows {
		if arr.IsNull(i) {
			continue
		}
		v, err := arr.Value(i)
		require.NoError(t, err)
		want[i] = &v
	}
	return buf.Bytes(), want
}

func TestVariantArrowGo(t *testing.T) {
	for _, shape := range variantShapes {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", shape.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 77))
				n := 400
				rows := make([]any, n)
				opts := make([]variant.AppendOpt, n)
				for i := range rows {
					switch {
					case r.IntN(12) == 0:
						rows[i] = nil // a SQL null row
					case shape.name == "object" && r.IntN(3) > 0:
						m := map[string]any{"a": int64(r.IntN(100)), "b": "x", "c": r.Float64(),
							"d": map[string]any{"x": arrow.Date32(r.IntN(1000)), "y": time.UnixMicro(r.Int64N(1e15)).UTC()},
							"e": variant.DecimalValue[decimal.Decimal128]{Scale: 3, Value: decimal128.FromI64(r.Int64N(1e9))}, "f": true}
						for k := range m {
							switch r.IntN(4) {
							case 0:
								delete(m, k)
							case 1:
								m[k] = randVariant(r, 1) // often a type the shape does not shred
							}
						}
						rows[i] = m
					default:
						rows[i] = randVariant(r, 0)
					}
					opts[i] = variant.AppendOpt(r.IntN(4)) // timestamps: µs or ns, with or without zone
				}
				data, want := variantFile(t, shape.typed, rows, opts)
				res, err := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
				require.NoError(t, err)
				require.Equal(t, "arrow.parquet.variant", extName(res.schema.Field(1)))
				require.Equal(t, int64(n), res.rows)
				for i := range n {
					rec, j := res.rowAt(int64(i))
					got, ok := variantAt(t, rec.Column(1), j)
					if want[i] == nil {
						require.True(t, !ok, "row", i, "is null in the file, pqscan gives", got)
						continue
					}
					require.True(t, ok, "row", i, "is null in pqscan")
					require.Equal(t, variantString(*want[i]), variantString(got), "row", i)
				}
				// With VariantJSON the column is each variant's JSON text.
				js, err := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{VariantJSON: true, BatchRows: 77}, corpusTimeout)
				require.NoError(t, err)
				checkVariantJSON(t, res, js, 1)
			})
		}
	}
}

// variantAt decodes row j of a pqscan variant column (its unshredded storage struct) with
// arrow-go; ok is false for a null row.
func variantAt(t *testing.T, col arrow.Array, j int) (variant.Value, bool) {
	t.Helper()
	if ext, ok := col.(array.ExtensionArray); ok {
		col = ext.Storage()
	}
	st, ok := col.(*array.Struct)
	require.True(t, ok, "variant column is", col.DataType())
	if st.IsNull(j) {
		return variant.Value{}, false
	}
	typ := st.DataType().(*arrow.StructType)
	require.Equal(t, 2, typ.NumFields())
	meta, val := st.Field(0).(*array.Binary), st.Field(1).(*array.Binary)
	require.Equal(t, "metadata", typ.Field(0).Name)
	require.Equal(t, "value", typ.Field(1).Name)
	v, err := variant.New(meta.Value(j), val.Value(j))
	require.NoError(t, err)
	return v, true
}

// variantString is v with its types: each primitive as its type and value (floats by their
// bits, so NaN, ±Inf and -0 compare), objects by field in stored order (sorted by name, as the
// spec requires), arrays in order. Integers of every width are one type, as are decimals of
// every width (VariantEncoding.md's "exact numeric" class, whose members a writer may pick
// among: arrow-go's builder stores the narrowest that holds the value, a shredded int64 column
// gives an int64).
func variantString(v variant.Value) string {
	switch v.Type() {
	case variant.Object:
		o := v.Value().(variant.ObjectValue)
		var b strings.Builder
		b.WriteString("{")
		for k, fv := range o.Values() {
			fmt.Fprintf(&b, "%q:%s,", k, variantString(fv))
		}
		return b.String() + "}"
	case variant.Array:
		a := v.Value().(variant.ArrayValue)
		var b strings.Builder
		b.WriteString("[")
		for ev := range a.Values() {
			b.WriteString(variantString(ev) + ",")
		}
		return b.String() + "]"
	}
	switch x := v.Value().(type) {
	case int8, int16, int32, int64:
		return fmt.Sprintf("int:%d", x)
	case variant.DecimalValue[decimal.Decimal32]:
		return fmt.Sprintf("dec:%d/%d", x.Scale, int64(x.Value.(decimal.Decimal32)))
	case variant.DecimalValue[decimal.Decimal64]:
		return fmt.Sprintf("dec:%d/%d", x.Scale, int64(x.Value.(decimal.Decimal64)))
	case variant.DecimalValue[decimal.Decimal128]:
		return fmt.Sprintf("dec:%d/%s", x.Scale, x.Value.(decimal.Decimal128).BigInt())
	case float64:
		return fmt.Sprintf("%v:%x", v.Type(), math.Float64bits(x))
	case float32:
		return fmt.Sprintf("%v:%x", v.Type(), math.Float32bits(x))
	}
	return fmt.Sprintf("%v:%v", v.Type(), v.Value())
}

// checkVariantJSON checks that column col of js (a scan with VariantJSON) is the JSON text
// (internal/variant's AppendJSON) of the same column of res (the canonical scan), row by row.
func checkVariantJSON(t *testing.T, res, js *scanResult, col int) {
	t.Helper()
	f := js.schema.Field(col)
	require.Equal(t, "arrow.json", extName(f))
	if et, ok := f.Type.(arrow.ExtensionType); ok {
		require.Equal(t, arrow.BinaryTypes.String, et.StorageType())
	} else {
		require.Equal(t, arrow.BinaryTypes.String, f.Type)
	}
	require.Equal(t, res.rows, js.rows)
	for i := int64(0); i < res.rows; i++ {
		rec, j := res.rowAt(i)
		jrec, jj := js.rowAt(i)
		jc := jrec.Column(col)
		if ea, ok := jc.(array.ExtensionArray); ok {
			jc = ea.Storage()
		}
		s := jc.(*array.String)
		v, ok := variantAt(t, rec.Column(col), j)
		if !ok {
			require.True(t, s.IsNull(jj), "row", i, "should be null")
			continue
		}
		want, err := pqvariant.AppendJSON(nil, v.Metadata().Bytes(), v.Bytes())
		require.NoError(t, err)
		require.True(t, json.Valid(want), "row", i, string(want))
		require.Equal(t, string(want), s.Value(jj), "row", i)
	}
}

// TestVariantNested: variants inside a struct and as list elements (shredded as objects), as
// pqarrow writes them; each must come back as the value built, null where built null.
func TestVariantNested(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	vt := extensions.NewShreddedVariantType(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}))
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, arrow.Field{Name: "v", Type: vt, Nullable: true})
	lt := arrow.ListOf(vt)
	sb := array.NewStructBuilder(memory.DefaultAllocator, st)
	defer sb.Release()
	lb := array.NewListBuilder(memory.DefaultAllocator, vt)
	defer lb.Release()
	build := func(v any) variant.Value {
		var vb variant.Builder
		require.NoError(t, vb.Append(v))
		val, err := vb.Build()
		require.NoError(t, err)
		return val
	}
	val := func() any {
		if r.IntN(2) == 0 {
			return map[string]any{"a": int64(r.IntN(9)), "z": randVariant(r, 2)}
		}
		return randVariant(r, 1)
	}
	var wantS, wantL [][]*variant.Value // per row: the struct's variant; the list's elements
	n := 200
	for i := 0; i < n; i++ {
		switch r.IntN(5) {
		case 0:
			sb.AppendNull()
			wantS = append(wantS, nil)
		default:
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
			vbld := sb.FieldBuilder(1).(*extensions.VariantBuilder)
			if r.IntN(4) == 0 {
				vbld.AppendNull()
				wantS = append(wantS, []*variant.Value{nil})
			} else {
				v := build(val())
				vbld.Append(v)
				wantS = append(wantS, []*variant.Value{&v})
			}
		}
		if r.IntN(6) == 0 {
			lb.AppendNull()
			wantL = append(wantL, nil)
			continue
		}
		lb.Append(true)
		var els []*variant.Value
		for range r.IntN(4) {
			v := build(val())
			lb.ValueBuilder().(*extensions.VariantBuilder).Append(v)
			els = append(els, &v)
		}
		wantL = append(wantL, append(els, nil)[:len(els)])
	}
	sArr, lArr := sb.NewArray(), lb.NewArray()
	defer sArr.Release()
	defer lArr.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: st, Nullable: true}, {Name: "l", Type: lt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{sArr, lArr}, int64(n))
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(70)), pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())

	// arrow-go's reading of its own values is the expectation (it normalizes integer widths).
	expS := func(i int) (variant.Value, bool) {
		if wantS[i] == nil || wantS[i][0] == nil {
			return variant.Value{}, false
		}
		return *wantS[i][0], true
	}
	res, err := scanBytes(buf.Bytes(), pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
	require.NoError(t, err)
	require.Equal(t, int64(n), res.rows)
	for i := 0; i < n; i++ {
		rec, j := res.rowAt(int64(i))
		s := rec.Column(0).(*array.Struct)
		require.Equal(t, wantS[i] == nil, s.IsNull(j), "row", i)
		if wantS[i] != nil {
			got, ok := variantAt(t, s.Field(1), j)
			want, wok := expS(i)
			require.Equal(t, wok, ok, "row", i)
			if ok {
				require.Equal(t, variantString(want), variantString(got), "row", i)
			}
		}
		l := rec.Column(1).(*array.List)
		require.Equal(t, wantL[i] == nil, l.IsNull(j), "row", i)
		if wantL[i] == nil {
			continue
		}
		lo, hi := l.ValueOffsets(j)
		require.Equal(t, len(wantL[i]), int(hi-lo), "row", i)
		for k := lo; k < hi; k++ {
			got, ok := variantAt(t, l.ListValues(), int(k))
			require.True(t, ok, "row", i, "element", k-lo)
			require.Equal(t, variantString(*wantL[i][k-lo]), variantString(got), "row", i, "element", k-lo)
		}
	}
}
