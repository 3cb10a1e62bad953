package arrowipc

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func TestValidate_errors(t *testing.T) {
	dictType := tUtf8
	dictType.Dictionary = true
	deep := DataType{ID: Int, BitWidth: 32}
	for i := 0; i < maxDepth; i++ {
		deep = listOf(fld("item", deep, true))
	}
	one := func(f Field, a *Array) (*Schema, []*Array) { return &Schema{Fields: []Field{f}}, []*Array{a} }

	tests := []struct {
		name    string
		field   Field
		col     *Array
		nrows   int
		wantErr error
	}{
		{name: "unknown type id", field: fld("x", DataType{ID: 99}, true), col: &Array{}, wantErr: ErrType},
		{name: "int bit width", field: fld("x", DataType{ID: Int, BitWidth: 12}, true), col: &Array{}, wantErr: ErrType},
		{name: "float bit width", field: fld("x", DataType{ID: Float, BitWidth: 8}, true), col: &Array{}, wantErr: ErrType},
		{name: "fsb width 0", field: fld("x", DataType{ID: FixedSizeBinary}, true), col: &Array{}, wantErr: ErrType},
		{name: "decimal precision", field: fld("x", DataType{ID: Decimal, BitWidth: 128, Precision: 39}, true), col: &Array{}, wantErr: ErrType},
		{name: "decimal width", field: fld("x", DataType{ID: Decimal, BitWidth: 64, Precision: 9}, true), col: &Array{}, wantErr: ErrType},
		{name: "time32 micros", field: fld("x", DataType{ID: Time, BitWidth: 32, Unit: Microsecond}, true), col: &Array{}, wantErr: ErrType},
		{name: "time64 millis", field: fld("x", DataType{ID: Time, BitWidth: 64, Unit: Millisecond}, true), col: &Array{}, wantErr: ErrType},
		{name: "timestamp unit", field: fld("x", DataType{ID: Timestamp, Unit: 9}, true), col: &Array{}, wantErr: ErrType},
		{name: "list without elem", field: fld("x", DataType{ID: List}, true), col: &Array{}, wantErr: ErrType},
		{name: "map nullable key", field: fld("x", mapOf(fld("key", tUtf8, true), fld("value", tUtf8, true), false), true), col: &Array{}, wantErr: ErrType},
		{name: "map entries not struct", field: fld("x", DataType{ID: Map, Elem: &Field{Name: "entries", Type: tInt32}}, true), col: &Array{}, wantErr: ErrType},
		{name: "dictionary of list", field: fld("x", DataType{ID: List, Elem: &Field{Name: "item", Type: tInt32}, Dictionary: true}, true), col: &Array{}, wantErr: ErrType},
		{name: "too deep", field: fld("x", deep, true), col: &Array{}, wantErr: ErrTooDeep},
		{name: "nil array", field: fld("x", tInt32, true), col: nil, wantErr: ErrArray},
		{name: "wrong length", field: fld("x", tInt32, true), col: fixed([]int32{1, 2}, nil), nrows: 3, wantErr: ErrArray},
		{name: "short data", field: fld("x", tInt64, true), col: &Array{Len: 2, Data: make([]byte, 15)}, nrows: 2, wantErr: ErrArray},
		{name: "short bool data", field: fld("x", tBool, true), col: &Array{Len: 9, Data: make([]byte, 1)}, nrows: 9, wantErr: ErrArray},
		{name: "null count above length", field: fld("x", tInt32, true), col: &Array{Len: 1, NullCount: 2, Validity: []byte{0}, Data: make([]byte, 4)}, nrows: 1, wantErr: ErrArray},
		{name: "nulls without validity", field: fld("x", tInt32, true), col: &Array{Len: 1, NullCount: 1, Data: make([]byte, 4)}, nrows: 1, wantErr: ErrArray},
		{name: "null count disagrees with bitmap", field: fld("x", tInt32, true), col: &Array{Len: 3, NullCount: 1, Validity: []byte{0b001}, Data: make([]byte, 12)}, nrows: 3, wantErr: ErrArray},
		{name: "bitmap has nulls but null count 0", field: fld("x", tInt32, true), col: &Array{Len: 3, Validity: []byte{0b011}, Data: make([]byte, 12)}, nrows: 3, wantErr: ErrArray},
		{name: "short validity", field: fld("x", tInt32, true), col: &Array{Len: 9, NullCount: 1, Validity: []byte{0xfe}, Data: make([]byte, 36)}, nrows: 9, wantErr: ErrArray},
		{name: "nulls in non-nullable field", field: fld("x", tInt32, false), col: fixed([]int32{1, 2}, []bool{true, false}), nrows: 2, wantErr: ErrArray},
		{name: "too few offsets", field: fld("x", tUtf8, true), col: &Array{Len: 2, Offsets: []int32{0, 1}, Data: []byte("ab")}, nrows: 2, wantErr: ErrArray},
		{name: "offsets decreasing", field: fld("x", tUtf8, true), col: &Array{Len: 2, Offsets: []int32{0, 2, 1}, Data: []byte("ab")}, nrows: 2, wantErr: ErrArray},
		{name: "negative first offset", field: fld("x", tUtf8, true), col: &Array{Len: 1, Offsets: []int32{-1, 1}, Data: []byte("ab")}, nrows: 1, wantErr: ErrArray},
		{name: "offset beyond data", field: fld("x", tBinary(), true), col: &Array{Len: 1, Offsets: []int32{0, 3}, Data: []byte("ab")}, nrows: 1, wantErr: ErrArray},
		{name: "list offset beyond child", field: fld("x", listOf(fld("item", tInt32, true)), true), col: list([]int32{0, 3}, nil, fixed([]int32{1, 2}, nil)), nrows: 1, wantErr: ErrArray},
		{name: "list without child", field: fld("x", listOf(fld("item", tInt32, true)), true), col: &Array{Len: 1, Offsets: []int32{0, 0}}, nrows: 1, wantErr: ErrArray},
		{name: "bad list child", field: fld("x", listOf(fld("item", tInt32, true)), true), col: list([]int32{0, 1}, nil, &Array{Len: 1}), nrows: 1, wantErr: ErrArray},
		{name: "struct child count", field: fld("x", structOf(fld("a", tInt32, true)), true), col: strct(1, nil), nrows: 1, wantErr: ErrArray},
		{name: "struct child length", field: fld("x", structOf(fld("a", tInt32, true)), true), col: strct(2, nil, fixed([]int32{1}, nil)), nrows: 2, wantErr: ErrArray},
		{name: "map with null entry", field: fld("x", mapOf(fld("key", tInt32, false), fld("value", tInt32, true), false), true),
			col: list([]int32{0, 1}, nil, strct(1, []bool{false}, fixed([]int32{1}, nil), fixed([]int32{1}, nil))), nrows: 1, wantErr: ErrArray},
		{name: "dictionary missing", field: fld("x", dictType, true), col: fixed([]int32{0}, nil), nrows: 1, wantErr: ErrDictionary},
		{name: "dictionary index out of range", field: fld("x", dictType, true), col: dict([]int32{0, 2}, nil, strs([]string{"a", "b"}, nil)), nrows: 2, wantErr: ErrDictionary},
		{name: "dictionary index negative", field: fld("x", dictType, true), col: dict([]int32{-1}, nil, strs([]string{"a"}, nil)), nrows: 1, wantErr: ErrDictionary},
		{name: "dictionary short indices", field: fld("x", dictType, true), col: &Array{Len: 2, Data: make([]byte, 7), Dict: strs([]string{"a"}, nil)}, nrows: 2, wantErr: ErrDictionary},
		{name: "dictionary values invalid", field: fld("x", dictType, true), col: dict([]int32{0}, nil, &Array{Len: 1, Offsets: []int32{0, 5}}), nrows: 1, wantErr: ErrDictionary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, cols := one(tc.field, tc.col)
			err := Validate(s, tc.nrows, cols)
			require.ErrorIs(t, err, tc.wantErr)
			out, werr := WriteStream([]byte("x"), s, tc.nrows, cols)
			require.ErrorIs(t, werr, tc.wantErr)
			require.Equal(t, "x", string(out), "WriteStream appended on error")
		})
	}
}

func tBinary() DataType { return DataType{ID: Binary} }

func TestValidate_accepts(t *testing.T) {
	dictType := tUtf8
	dictType.Dictionary = true
	tests := []struct {
		name  string
		field Field
		col   *Array
		nrows int
	}{
		{name: "null index in null slot is ignored", field: fld("x", dictType, true), col: dict([]int32{0, 99}, []bool{true, false}, strs([]string{"a"}, nil)), nrows: 2},
		{name: "empty utf8 without offsets", field: fld("x", tUtf8, true), col: &Array{}, nrows: 0},
		{name: "all-valid bitmap with null count 0", field: fld("x", tInt32, false), col: &Array{Len: 3, Validity: []byte{0xff}, Data: make([]byte, 12)}, nrows: 3},
		{name: "null type ignores null count", field: fld("x", DataType{ID: Null}, true), col: &Array{Len: 5}, nrows: 5},
		{name: "list child longer than last offset", field: fld("x", listOf(fld("item", tInt32, true)), true), col: list([]int32{0, 1}, nil, fixed([]int32{1, 2}, nil)), nrows: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, Validate(&Schema{Fields: []Field{tc.field}}, tc.nrows, []*Array{tc.col}))
		})
	}
}

func TestValidate_schemaShape(t *testing.T) {
	s := &Schema{Fields: []Field{fld("a", tInt32, true)}}
	require.ErrorIs(t, Validate(nil, 0, nil), ErrType)
	require.ErrorIs(t, Validate(s, 0, nil), ErrArray)
	require.ErrorIs(t, Validate(s, -1, []*Array{{}}), ErrArray)
	_, err := WriteSchema(nil, &Schema{Fields: []Field{fld("x", DataType{ID: Int, BitWidth: 3}, true)}})
	require.ErrorIs(t, err, ErrType)
}
