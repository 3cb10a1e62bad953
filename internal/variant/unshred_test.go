package variant

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/require"
)

func validity(valid []bool) ([]byte, int) {
	nulls := 0
	b := make([]byte, (len(valid)+7)/8)
	for i, v := range valid {
		if v {
			b[i/8] |= 1 << (i % 8)
		} else {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	return b, nulls
}

// binArr is a Binary (or Utf8) array; nil entries are null.
func binArr(vals ...[]byte) *arrowipc.Array {
	a := &arrowipc.Array{Len: len(vals), Offsets: []int32{0}}
	valid := make([]bool, len(vals))
	for i, v := range vals {
		valid[i] = v != nil
		a.Data = append(a.Data, v...)
		a.Offsets = append(a.Offsets, int32(len(a.Data)))
	}
	a.Validity, a.NullCount = validity(valid)
	return a
}

// fixedArr is a fixed-width array of w-byte values; nil entries are null.
func fixedArr(w int, vals ...[]byte) *arrowipc.Array {
	a := &arrowipc.Array{Len: len(vals)}
	valid := make([]bool, len(vals))
	for i, v := range vals {
		valid[i] = v != nil
		if v == nil {
			v = make([]byte, w)
		}
		a.Data = append(a.Data, v...)
	}
	a.Validity, a.NullCount = validity(valid)
	return a
}

func i64s(vs ...any) *arrowipc.Array {
	var b [][]byte
	for _, v := range vs {
		if v == nil {
			b = append(b, nil)
		} else {
			b = append(b, binary.LittleEndian.AppendUint64(nil, uint64(v.(int))))
		}
	}
	return fixedArr(8, b...)
}

func structArr(valid []bool, children ...*arrowipc.Array) *arrowipc.Array {
	a := &arrowipc.Array{Len: children[0].Len, Children: children}
	if valid != nil {
		a.Validity, a.NullCount = validity(valid)
	}
	return a
}

func nullArr(n int) *arrowipc.Array {
	return &arrowipc.Array{Len: n, NullCount: n, Validity: make([]byte, (n+7)/8), Offsets: make([]int32, n+1), Data: make([]byte, 16*n)}
}

func fld(name string, t arrowipc.DataType) arrowipc.Field {
	return arrowipc.Field{Name: name, Type: t, Nullable: true}
}

var (
	tBinary = arrowipc.DataType{ID: arrowipc.Binary}
	tUtf8   = arrowipc.DataType{ID: arrowipc.Utf8}
	tInt64  = arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}
	tInt32  = arrowipc.DataType{ID: arrowipc.Int, BitWidth: 32, Signed: true}
)

func grp(fields ...arrowipc.Field) arrowipc.DataType {
	return arrowipc.DataType{ID: arrowipc.Struct, Fields: fields}
}

// variantType is {metadata, value, typed_value: tv}; tv.ID == Null leaves typed_value out.
func variantType(tv arrowipc.DataType) arrowipc.DataType {
	fs := []arrowipc.Field{{Name: "metadata", Type: tBinary}, fld("value", tBinary)}
	if tv.ID != arrowipc.Null {
		fs = append(fs, fld("typed_value", tv))
	}
	return grp(fs...)
}

// render unshreds and renders each row ("NULL" for null rows).
func render(t *testing.T, typ arrowipc.DataType, g *arrowipc.Array) ([]string, *arrowipc.Array, *arrowipc.Array) {
	t.Helper()
	m, v, err := Unshred(typ, g)
	require.NoError(t, err)
	var out []string
	for i := 0; i < g.Len; i++ {
		if !valid(m, i) || !valid(v, i) {
			require.Equal(t, valid(m, i), valid(v, i))
			out = append(out, "NULL")
			continue
		}
		js, err := AppendJSON(nil, m.Data[m.Offsets[i]:m.Offsets[i+1]], v.Data[v.Offsets[i]:v.Offsets[i+1]])
		require.NoError(t, err)
		out = append(out, string(js))
	}
	return out, m, v
}

func Test_Unshred_unshredded(t *testing.T) {
	meta := binArr(mdKeys(), mdKeys(), mdKeys())
	val := binArr(vI8(1), vShort("x"), vNull())
	g := structArr([]bool{true, false, true}, meta, val)
	got, m, v := render(t, variantType(arrowipc.DataType{}), g)
	require.Equal(t, []string{"1", "NULL", "null"}, got)
	require.True(t, &v.Data[0] == &val.Data[0], "value buffers shared")
	require.True(t, &m.Data[0] == &meta.Data[0], "metadata buffers shared")

	// A valid row without value is missing: Variant null.
	val2 := binArr(vI8(1), nil, nil)
	got, _, _ = render(t, variantType(arrowipc.DataType{}), structArr([]bool{true, true, false}, meta, val2))
	require.Equal(t, []string{"1", "null", "NULL"}, got)
}

func Test_Unshred_primitive(t *testing.T) {
	// VariantShredding.md's example: 34, null, "n/a", 100, and a missing row.
	meta := binArr(mdKeys(), mdKeys(), mdKeys(), mdKeys(), mdKeys())
	val := binArr(nil, vNull(), vShort("n/a"), nil, nil)
	tv := i64s(34, nil, nil, 100, nil)
	got, _, _ := render(t, variantType(tInt64), structArr(nil, meta, val, tv))
	require.Equal(t, []string{"34", "null", `"n/a"`, "100", "null"}, got)
}

func le32b(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
func le64b(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
func dec128(lo int64) []byte {
	return append(le64b(lo), le64b(lo>>63)...)
}

func Test_Unshred_types(t *testing.T) {
	uuid := []byte{0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78, 0xab, 0xcd, 0xef, 0}
	long := make([]byte, 70)
	for i := range long {
		long[i] = 'a'
	}
	tests := []struct {
		name string
		typ  arrowipc.DataType
		md   [][2]string
		vals *arrowipc.Array
		want string
	}{
		{"bool true", arrowipc.DataType{ID: arrowipc.Bool}, nil, &arrowipc.Array{Len: 1, Data: []byte{1}}, "true"},
		{"bool false", arrowipc.DataType{ID: arrowipc.Bool}, nil, &arrowipc.Array{Len: 1, Data: []byte{0}}, "false"},
		{"int8", arrowipc.DataType{ID: arrowipc.Int, BitWidth: 8, Signed: true}, nil, fixedArr(1, []byte{0x80}), "-128"},
		{"int16", arrowipc.DataType{ID: arrowipc.Int, BitWidth: 16, Signed: true}, nil, fixedArr(2, []byte{0xd4, 0xfe}), "-300"},
		{"int32", tInt32, nil, fixedArr(4, le32b(12345)), "12345"},
		{"int64", tInt64, nil, i64s(-5), "-5"},
		{"float", arrowipc.DataType{ID: arrowipc.Float, BitWidth: 32}, nil, fixedArr(4, binary.LittleEndian.AppendUint32(nil, math.Float32bits(1.5))), "1.5"},
		{"double", arrowipc.DataType{ID: arrowipc.Float, BitWidth: 64}, nil, fixedArr(8, binary.LittleEndian.AppendUint64(nil, math.Float64bits(-0.25))), "-0.25"},
		{"decimal4", arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: 5, Scale: 2}, nil, fixedArr(16, dec128(-12345)), "-123.45"},
		{"decimal4 overflowing", arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: 5, Scale: 0}, nil, fixedArr(16, dec128(1<<40)), "1099511627776"},
		{"decimal8", arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: 15, Scale: 3}, nil, fixedArr(16, dec128(123456789012345)), "123456789012.345"},
		{"decimal16", arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 128, Precision: 38, Scale: 1}, nil, fixedArr(16, append(le64b(0), le64b(1)...)), "1844674407370955161.6"},
		{"date", arrowipc.DataType{ID: arrowipc.Date32}, nil, fixedArr(4, le32b(19724)), `"2024-01-02"`},
		{"time", arrowipc.DataType{ID: arrowipc.Time, BitWidth: 64, Unit: arrowipc.Microsecond}, nil, i64s(11045250000), `"03:04:05.25"`},
		{"timestamptz", arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Microsecond, TZ: "UTC"}, nil, i64s(1704164645500000), `"2024-01-02 03:04:05.5+00"`},
		{"timestamp", arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Microsecond}, nil, i64s(1704164645500000), `"2024-01-02 03:04:05.5"`},
		{"timestamptz nanos", arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Nanosecond, TZ: "UTC"}, nil, i64s(1704164645000000001), `"2024-01-02 03:04:05.000000001+00"`},
		{"timestamp nanos", arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Nanosecond}, nil, i64s(1704164645000000001), `"2024-01-02 03:04:05.000000001"`},
		{"binary", tBinary, nil, binArr([]byte{0, 'a'}), `"\\x00a"`},
		{"string", tUtf8, nil, binArr([]byte("hé")), `"hé"`},
		{"long string", tUtf8, nil, binArr(long), `"` + string(long) + `"`},
		{"uuid", arrowipc.DataType{ID: arrowipc.FixedSizeBinary, ByteWidth: 16}, [][2]string{{"ARROW:extension:name", "arrow.uuid"}}, fixedArr(16, uuid), `"12345678-1234-5678-1234-5678abcdef00"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ := variantType(tc.typ)
			typ.Fields[2].Metadata = tc.md
			g := structArr(nil, binArr(mdKeys()), binArr(nil), tc.vals)
			got, _, _ := render(t, typ, g)
			require.Equal(t, []string{tc.want}, got)
		})
	}
}

func Test_Unshred_object(t *testing.T) {
	// typed_value {a: {value, typed_value int64}, b: {value}}; rows:
	//  0 fully shredded {"a":1,"b":"x"}
	//  1 partially shredded {"a":2,"c":true} with c in value
	//  2 a present and null, b missing: {"a":null}
	//  3 not an object: "s"
	//  4 field groups null: {}
	//  5 metadata without "a" and "b": rewritten
	//  6 null group
	tObj := grp(
		arrowipc.Field{Name: "a", Type: grp(fld("value", tBinary), fld("typed_value", tInt64))},
		fld("b", grp(fld("value", tBinary))),
	)
	typ := variantType(tObj)
	mdAB := mdKeys("a", "b", "c")
	meta := binArr(mdAB, md(2, true, "a", "b", "c"), mdAB, mdAB, mdAB, mdKeys("z"), mdAB)
	val := binArr(nil, obj([]int{2}, vBool(true)), nil, vShort("s"), nil, nil, nil)
	aGrp := structArr(nil, binArr(nil, nil, vNull(), nil, nil, nil, nil), i64s(1, 2, nil, nil, nil, 7, nil))
	bGrp := structArr([]bool{true, true, true, true, false, true, true}, binArr(vShort("x"), nil, nil, nil, nil, vI8(3), nil))
	tvArr := structArr([]bool{true, true, true, false, true, true, false}, aGrp, bGrp)
	g := structArr([]bool{true, true, true, true, true, true, false}, meta, val, tvArr)
	got, m, _ := render(t, typ, g)
	require.Equal(t, []string{`{"a":1,"b":"x"}`, `{"a":2,"c":true}`, `{"a":null}`, `"s"`, `{}`, `{"a":7,"b":3}`, "NULL"}, got)
	// Row 5's metadata gained "a" and "b" after "z", unsorted.
	require.Equal(t, md(1, false, "z", "a", "b"), m.Data[m.Offsets[5]:m.Offsets[6]])
	require.Equal(t, mdAB, m.Data[m.Offsets[0]:m.Offsets[1]])
}

// Test_Unshred_conflict follows parquet-testing's shredded_variant cases 43
// (testPartiallyShreddedObjectMissingFieldConflict) and 125
// (testPartiallyShreddedObjectFieldConflict): a field of value that is also a shredded field
// is ignored, whether the shredded column holds the field or marks it missing.
func Test_Unshred_conflict(t *testing.T) {
	tObj := grp(
		fld("a", grp(fld("value", tBinary), fld("typed_value", tInt32))),
		fld("b", grp(fld("value", tBinary), fld("typed_value", tUtf8))),
	)
	keys := mdKeys("a", "b", "c", "d", "e")
	dateB := obj([]int{1}, vDate(12345))
	aGrp := structArr(nil, binArr(vNull(), vNull(), vNull()), fixedArr(4, nil, nil, nil))
	bGrp := structArr(nil, binArr(nil, nil, nil), binArr(nil, []byte("iceberg"), nil))
	// Row 2: value holds b (shredded, missing) and d (not shredded): d is kept.
	val := binArr(dateB, dateB, obj([]int{1, 3}, vDate(1), vShort("x")))
	g := structArr(nil, binArr(keys, keys, keys), val, structArr(nil, aGrp, bGrp))
	got, _, _ := render(t, variantType(tObj), g)
	require.Equal(t, []string{`{"a":null}`, `{"a":null,"b":"iceberg"}`, `{"a":null,"d":"x"}`}, got)
}

func Test_Unshred_array(t *testing.T) {
	// typed_value list<{value, typed_value utf8}>: ["comedy","drama"], ["horror",null],
	// a missing element, [], not an array (value 5), null group.
	elemT := grp(fld("value", tBinary), fld("typed_value", tUtf8))
	tList := arrowipc.DataType{ID: arrowipc.List, Elem: &arrowipc.Field{Name: "element", Type: elemT, Nullable: true}}
	typ := variantType(tList)
	elems := structArr([]bool{true, true, true, true, false},
		binArr(nil, nil, nil, vNull(), nil),
		binArr([]byte("comedy"), []byte("drama"), []byte("horror"), nil, nil))
	list := &arrowipc.Array{Len: 5, Offsets: []int32{0, 2, 4, 5, 5, 5}, Children: []*arrowipc.Array{elems}}
	list.Validity, list.NullCount = validity([]bool{true, true, true, true, false})
	meta := binArr(mdKeys(), mdKeys(), mdKeys(), mdKeys(), mdKeys())
	val := binArr(nil, nil, nil, nil, vI8(5))
	got, _, _ := render(t, typ, structArr(nil, meta, val, list))
	require.Equal(t, []string{`["comedy","drama"]`, `["horror",null]`, `[null]`, `[]`, `5`}, got)
}

func Test_Unshred_dictionary(t *testing.T) {
	tv := tUtf8
	tv.Dictionary = true
	dict := binArr([]byte("x"), []byte("y"))
	vals := &arrowipc.Array{Len: 3, Data: append(append(le32b(1), le32b(0)...), le32b(1)...), Dict: dict}
	g := structArr(nil, binArr(mdKeys(), mdKeys(), mdKeys()), binArr(nil, nil, nil), vals)
	got, _, _ := render(t, variantType(tv), g)
	require.Equal(t, []string{`"y"`, `"x"`, `"y"`}, got)
}

func Test_Unshred_large_object(t *testing.T) {
	// 300 shredded fields: is_large, 2-byte field ids.
	var fields []arrowipc.Field
	var kids []*arrowipc.Array
	var keys []string
	for i := 0; i < 300; i++ {
		name := string(rune('a'+i/26%26)) + string(rune('a'+i%26)) + string(rune('0'+i/676))
		keys = append(keys, name)
		fields = append(fields, arrowipc.Field{Name: name, Type: grp(fld("typed_value", tInt64))})
		kids = append(kids, structArr(nil, i64s(i)))
	}
	typ := variantType(grp(fields...))
	g := structArr(nil, binArr(mdKeys(keys...)), binArr(nil), structArr(nil, kids...))
	m, v, err := Unshred(typ, g)
	require.NoError(t, err)
	require.Equal(t, byte(basicObject|1<<2|1<<4|1<<6), v.Data[0]) // 2-byte offsets and ids, is_large
	js, err := AppendJSON(nil, m.Data, v.Data)
	require.NoError(t, err)
	require.Equal(t, byte('{'), js[0])
}

func Test_Unshred_errors(t *testing.T) {
	meta1 := binArr(mdKeys("a"))
	tObj := grp(fld("a", grp(fld("value", tBinary), fld("typed_value", tInt64))))
	objArr := func(a *arrowipc.Array) *arrowipc.Array { return structArr(nil, structArr(nil, binArr(nil), a)) }
	tests := []struct {
		name string
		typ  arrowipc.DataType
		g    *arrowipc.Array
		want error
	}{
		{"not a struct", tBinary, binArr(nil), ErrShredding},
		{"no metadata", grp(fld("value", tBinary)), structArr(nil, binArr(vNull())), ErrShredding},
		{"metadata not binary", grp(fld("metadata", tUtf8), fld("value", tBinary)), structArr(nil, binArr(mdKeys()), binArr(vNull())), ErrShredding},
		{"no value nor typed_value", grp(fld("metadata", tBinary)), structArr(nil, binArr(mdKeys())), ErrShredding},
		{"extra field", grp(fld("metadata", tBinary), fld("value", tBinary), fld("x", tBinary)), structArr(nil, binArr(mdKeys()), binArr(vNull()), binArr(nil)), ErrShredding},
		{"array mismatch", variantType(tInt64), structArr(nil, binArr(mdKeys()), binArr(nil), binArr(nil)), arrowipc.ErrArray},
		{"metadata null", variantType(tInt64), structArr(nil, binArr(nil), binArr(nil), i64s(1)), arrowipc.ErrArray},
		{"nullable metadata null", grp(fld("metadata", tBinary), fld("value", tBinary)), structArr(nil, binArr(nil), binArr(vNull())), ErrShredding},
		{"both set", variantType(tInt64), structArr(nil, binArr(mdKeys()), binArr(vI8(1)), i64s(1)), ErrShredding},
		{"unsigned", variantType(arrowipc.DataType{ID: arrowipc.Int, BitWidth: 32}), structArr(nil, binArr(mdKeys()), binArr(nil), fixedArr(4, le32b(1))), ErrShredding},
		{"float16", variantType(arrowipc.DataType{ID: arrowipc.Float, BitWidth: 16}), structArr(nil, binArr(mdKeys()), binArr(nil), fixedArr(2, []byte{0, 0})), ErrShredding},
		{"timestamp millis", variantType(arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Millisecond}), structArr(nil, binArr(mdKeys()), binArr(nil), i64s(1)), ErrShredding},
		{"fixed without uuid", variantType(arrowipc.DataType{ID: arrowipc.FixedSizeBinary, ByteWidth: 16}), structArr(nil, binArr(mdKeys()), binArr(nil), fixedArr(16, make([]byte, 16))), ErrShredding},
		{"field not a group", variantType(grp(fld("a", tInt64))), structArr(nil, binArr(mdKeys()), binArr(nil), structArr(nil, i64s(1))), ErrShredding},
		{"partial value not an object", variantType(tObj), structArr(nil, meta1, binArr(vI8(1)), objArr(i64s(1))), ErrShredding},
		{"partial value repeats a key", variantType(tObj), structArr(nil, binArr(mdKeys("a", "b")), binArr(obj([]int{1, 1}, vNull(), vI8(2))), objArr(i64s(1))), ErrShredding},
		{"empty shredded object, value not an object", variantType(tObj), structArr(nil, meta1, binArr(vI8(1)), structArr(nil, structArr([]bool{false}, binArr(nil), i64s(nil)))), ErrShredding},
		{"partial value field id beyond metadata", variantType(tObj), structArr(nil, meta1, binArr(obj([]int{5}, vNull())), objArr(i64s(1))), ErrMetadata},
		{"partial value truncated", variantType(tObj), structArr(nil, meta1, binArr(obj([]int{0}, vNull())[:3]), objArr(i64s(1))), ErrValue},
		{"bad metadata", variantType(tObj), structArr(nil, binArr([]byte{2}), binArr(nil), objArr(i64s(1))), ErrMetadata},
		{"value truncated", variantType(tInt64), structArr(nil, binArr(mdKeys()), binArr(vI64(1)[:3]), i64s(nil)), ErrValue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Unshred(tc.typ, tc.g)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
