package arrowipc

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var dictUtf8 = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// newDictArray builds the expected dictionary array from explicit indices and values, so that
// the comparison does not depend on a builder's memo order.
func newDictArray(mem memory.Allocator, idx []int32, valid []bool, values []string) arrow.Array {
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	ib.AppendValues(idx, valid)
	ia := ib.NewArray()
	defer ia.Release()
	vb := array.NewStringBuilder(mem)
	defer vb.Release()
	vb.AppendValues(values, nil)
	va := vb.NewArray()
	defer va.Release()
	return array.NewDictionaryArray(dictUtf8, ia, va)
}

func TestWriteStream_nested(t *testing.T) {
	abType := structOf(fld("a", tInt32, true), fld("b", listOf(fld("item", tUtf8, true)), true))
	arrowAB := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true})
	dictType := tUtf8
	dictType.Dictionary = true

	cases := []roundTripCase{
		{
			name:  "list<int32> with null and empty lists",
			field: fld("l", listOf(fld("item", tInt32, true)), true),
			// [[1, null], null, [], [4]]
			col: list([]int32{0, 2, 2, 2, 3}, []bool{true, false, true, true},
				fixed([]int32{1, 0, 4}, []bool{true, false, true})),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
				defer b.Release()
				vb := b.ValueBuilder().(*array.Int32Builder)
				b.Append(true)
				vb.Append(1)
				vb.AppendNull()
				b.AppendNull()
				b.Append(true)
				b.Append(true)
				vb.Append(4)
				return arrow.ListOf(arrow.PrimitiveTypes.Int32), b.NewArray()
			},
		},
		{
			name: "struct with nullable children",
			field: fld("s", structOf(fld("x", tInt64, true), fld("y", tUtf8, true),
				fld("z", tBool, false)), true),
			// [{1, "a", true}, null, {null, null, false}, {4, "dd", true}]
			col: strct(4, []bool{true, false, true, true},
				fixed([]int64{1, 0, 0, 4}, []bool{true, false, false, true}),
				strs([]string{"a", "", "", "dd"}, []bool{true, false, false, true}),
				bools([]bool{true, false, false, true}, nil)),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := arrow.StructOf(
					arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
					arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true},
					arrow.Field{Name: "z", Type: arrow.FixedWidthTypes.Boolean})
				b := array.NewStructBuilder(mem, dt)
				defer b.Release()
				xb := b.FieldBuilder(0).(*array.Int64Builder)
				yb := b.FieldBuilder(1).(*array.StringBuilder)
				zb := b.FieldBuilder(2).(*array.BooleanBuilder)
				b.AppendValues([]bool{true, false, true, true})
				xb.AppendValues([]int64{1, 0, 0, 4}, []bool{true, false, false, true})
				yb.AppendValues([]string{"a", "", "", "dd"}, []bool{true, false, false, true})
				zb.AppendValues([]bool{true, false, false, true}, nil)
				return dt, b.NewArray()
			},
		},
		{
			name:  "list<struct<a:int32, b:list<utf8>>>",
			field: fld("lab", listOf(fld("item", abType, true)), true),
			// [[{1, ["x", null]}, null], null, [], [{null, null}]]
			col: list([]int32{0, 2, 2, 2, 3}, []bool{true, false, true, true},
				strct(3, []bool{true, false, true},
					fixed([]int32{1, 0, 0}, []bool{true, false, false}),
					list([]int32{0, 2, 2, 2}, []bool{true, false, false},
						strs([]string{"x", ""}, []bool{true, false})))),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewListBuilder(mem, arrowAB)
				defer b.Release()
				sb := b.ValueBuilder().(*array.StructBuilder)
				ab := sb.FieldBuilder(0).(*array.Int32Builder)
				lb := sb.FieldBuilder(1).(*array.ListBuilder)
				lvb := lb.ValueBuilder().(*array.StringBuilder)
				b.Append(true)
				sb.Append(true)
				ab.Append(1)
				lb.Append(true)
				lvb.Append("x")
				lvb.AppendNull()
				sb.AppendNull()
				b.AppendNull()
				b.Append(true)
				b.Append(true)
				sb.Append(true)
				ab.AppendNull()
				lb.AppendNull()
				return arrow.ListOf(arrowAB), b.NewArray()
			},
		},
		{
			name: "map<utf8, list<int64>>",
			field: fld("m", mapOf(fld("key", tUtf8, false),
				fld("value", listOf(fld("item", tInt64, true)), true), false), true),
			// [{"a": [1, 2], "b": null}, null, {}, {"c": []}]
			col: list([]int32{0, 2, 2, 2, 3}, []bool{true, false, true, true},
				strct(3, nil,
					strs([]string{"a", "b", "c"}, nil),
					list([]int32{0, 2, 2, 2}, []bool{true, false, true},
						fixed([]int64{1, 2}, nil)))),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := arrow.MapOf(arrow.BinaryTypes.String, arrow.ListOf(arrow.PrimitiveTypes.Int64))
				b := array.NewMapBuilderWithType(mem, dt)
				defer b.Release()
				kb := b.KeyBuilder().(*array.StringBuilder)
				ib := b.ItemBuilder().(*array.ListBuilder)
				ivb := ib.ValueBuilder().(*array.Int64Builder)
				b.Append(true)
				kb.Append("a")
				ib.Append(true)
				ivb.AppendValues([]int64{1, 2}, nil)
				kb.Append("b")
				ib.AppendNull()
				b.AppendNull()
				b.Append(true)
				b.Append(true)
				kb.Append("c")
				ib.Append(true)
				return dt, b.NewArray()
			},
		},
		{
			name:  "map keys sorted",
			field: fld("ms", mapOf(fld("key", tInt32, false), fld("value", tInt32, true), true), false),
			col: list([]int32{0, 1, 1, 1, 2}, nil,
				strct(2, nil, fixed([]int32{7, 8}, nil), fixed([]int32{70, 0}, []bool{true, false}))),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32)
				dt.KeysSorted = true
				b := array.NewMapBuilderWithType(mem, dt)
				defer b.Release()
				kb := b.KeyBuilder().(*array.Int32Builder)
				ib := b.ItemBuilder().(*array.Int32Builder)
				b.Append(true)
				kb.Append(7)
				ib.Append(70)
				b.Append(true)
				b.Append(true)
				b.Append(true)
				kb.Append(8)
				ib.AppendNull()
				return dt, b.NewArray()
			},
		},
		{
			name:  "dictionary utf8",
			field: fld("d", dictType, true),
			col:   dict([]int32{1, 0, 1, 2}, []bool{true, false, true, true}, strs([]string{"x", "yy", "zzz"}, nil)),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				return dictUtf8, newDictArray(mem, []int32{1, 0, 1, 2}, []bool{true, false, true, true}, []string{"x", "yy", "zzz"})
			},
		},
		{
			name:  "list<dictionary utf8>",
			field: fld("ld", listOf(fld("item", dictType, true)), true),
			// [["b", "a"], [], null, ["b"]]
			col: list([]int32{0, 2, 2, 2, 3}, []bool{true, true, false, true},
				dict([]int32{1, 0, 1}, nil, strs([]string{"a", "b"}, nil))),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewListBuilder(mem, dictUtf8)
				defer b.Release()
				db := b.ValueBuilder().(*array.BinaryDictionaryBuilder)
				sb := array.NewStringBuilder(mem)
				defer sb.Release()
				sb.AppendValues([]string{"a", "b"}, nil)
				dv := sb.NewStringArray()
				defer dv.Release()
				if err := db.InsertStringDictValues(dv); err != nil {
					panic(err)
				}
				b.Append(true)
				db.AppendIndices([]int{1, 0}, nil)
				b.Append(true)
				b.AppendNull()
				b.Append(true)
				db.AppendIndices([]int{1}, nil)
				return arrow.ListOf(dictUtf8), b.NewArray()
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkRoundTrip(t, []roundTripCase{c}, 4, nil)
		})
	}
	t.Run("all columns together", func(t *testing.T) {
		checkRoundTrip(t, cases, 4, nil)
	})
	t.Run("two dictionaries in a struct", func(t *testing.T) {
		c := roundTripCase{
			name:  "struct<d1: dict, d2: dict>",
			field: fld("sd", structOf(fld("d1", dictType, true), fld("d2", dictType, true)), true),
			col: strct(4, nil,
				dict([]int32{0, 0, 1, 0}, nil, strs([]string{"p", "q"}, nil)),
				dict([]int32{2, 1, 0, 0}, []bool{true, true, false, true}, strs([]string{"r", "s", "t"}, nil))),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				d1 := newDictArray(mem, []int32{0, 0, 1, 0}, nil, []string{"p", "q"})
				defer d1.Release()
				d2 := newDictArray(mem, []int32{2, 1, 0, 0}, []bool{true, true, false, true}, []string{"r", "s", "t"})
				defer d2.Release()
				s, err := array.NewStructArrayWithFields([]arrow.Array{d1, d2}, []arrow.Field{
					{Name: "d1", Type: dictUtf8, Nullable: true}, {Name: "d2", Type: dictUtf8, Nullable: true}})
				if err != nil {
					panic(err)
				}
				return s.DataType(), s
			},
		}
		// A top-level dictionary before the struct takes id 0, the struct's get 1 and 2.
		checkRoundTrip(t, []roundTripCase{cases[5], c}, 4, nil)
	})
}
