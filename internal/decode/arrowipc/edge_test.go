package arrowipc

import (
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/pqscan/pqscan/internal/require"
)

// emptyArray builds the zero-length Array a decoder would produce for t: no buffers at all.
func emptyArray(t *DataType) *Array {
	a := &Array{}
	if t.Dictionary {
		vt := *t
		vt.Dictionary = false
		a.Dict = emptyArray(&vt)
		return a
	}
	switch t.ID {
	case List, Map:
		a.Children = []*Array{emptyArray(&t.Elem.Type)}
	case Struct:
		for i := range t.Fields {
			a.Children = append(a.Children, emptyArray(&t.Fields[i].Type))
		}
	}
	return a
}

func TestWriteStream_zeroRows(t *testing.T) {
	dictType := tUtf8
	dictType.Dictionary = true
	abType := structOf(fld("a", tInt32, true), fld("b", listOf(fld("item", tUtf8, true)), true))
	tests := []struct {
		name  string
		field Field
		want  arrow.DataType
	}{
		{name: "null", field: fld("n", DataType{ID: Null}, true), want: arrow.Null},
		{name: "bool", field: fld("b", tBool, true), want: arrow.FixedWidthTypes.Boolean},
		{name: "int32", field: fld("i", tInt32, false), want: arrow.PrimitiveTypes.Int32},
		{name: "utf8", field: fld("s", tUtf8, true), want: arrow.BinaryTypes.String},
		{name: "binary", field: fld("bin", tBinary(), true), want: arrow.BinaryTypes.Binary},
		{name: "decimal256", field: fld("d", DataType{ID: Decimal, BitWidth: 256, Precision: 40, Scale: 2}, true), want: &arrow.Decimal256Type{Precision: 40, Scale: 2}},
		{name: "list<struct<a, b:list<utf8>>>", field: fld("l", listOf(fld("item", abType, true)), true),
			want: arrow.ListOf(arrow.StructOf(
				arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
				arrow.Field{Name: "b", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true}))},
		{name: "map", field: fld("m", mapOf(fld("key", tUtf8, false), fld("value", tInt64, true), false), true),
			want: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)},
		{name: "dictionary", field: fld("d", dictType, true), want: dictUtf8},
	}
	var cases []roundTripCase
	for _, tc := range tests {
		c := roundTripCase{
			name:  tc.name,
			field: tc.field,
			col:   emptyArray(&tc.field.Type),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewBuilder(mem, tc.want)
				defer b.Release()
				return tc.want, b.NewArray()
			},
		}
		cases = append(cases, c)
		t.Run(tc.name, func(t *testing.T) { checkRoundTrip(t, []roundTripCase{c}, 0, nil) })
	}
	t.Run("all columns together", func(t *testing.T) { checkRoundTrip(t, cases, 0, nil) })
	t.Run("no columns", func(t *testing.T) { checkRoundTrip(t, nil, 0, nil) })
}

// TestWriteStream_slicedOffsets covers producers that hand over a window of larger buffers:
// a first offset above zero, extra Data, longer bitmaps and children.
func TestWriteStream_slicedOffsets(t *testing.T) {
	cases := []roundTripCase{
		{
			name:  "utf8 window",
			field: fld("s", tUtf8, true),
			col:   &Array{Len: 2, NullCount: 1, Validity: []byte{0b1101}, Offsets: []int32{3, 5, 5, 9}, Data: []byte("xxxabYYYY")},
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewStringBuilder(mem)
				defer b.Release()
				b.AppendValues([]string{"ab", ""}, []bool{true, false})
				return arrow.BinaryTypes.String, b.NewArray()
			},
		},
		{
			name:  "list window",
			field: fld("l", listOf(fld("item", tInt32, true)), true),
			col:   list([]int32{1, 3, 4}, nil, fixed([]int32{9, 1, 2, 3, 9}, nil)),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
				defer b.Release()
				vb := b.ValueBuilder().(*array.Int32Builder)
				b.Append(true)
				vb.AppendValues([]int32{1, 2}, nil)
				b.Append(true)
				vb.Append(3)
				return arrow.ListOf(arrow.PrimitiveTypes.Int32), b.NewArray()
			},
		},
	}
	checkRoundTrip(t, cases, 2, nil)
}

// TestWriteStream_framing checks the byte layout that arrow-go's reader tolerates but other
// readers (arrow-js, Arrow C++) rely on: 8-byte aligned metadata and bodies, V5 messages, and
// the end-of-stream marker.
func TestWriteStream_framing(t *testing.T) {
	dictType := tUtf8
	dictType.Dictionary = true
	s := &Schema{Fields: []Field{fld("s", tUtf8, true), fld("d", dictType, true), fld("b", tBool, true)}}
	cols := []*Array{
		strs([]string{"a", "bcd", "ef"}, []bool{true, false, true}),
		dict([]int32{0, 0, 0}, nil, strs([]string{"zz"}, nil)),
		bools([]bool{true, true, false}, nil),
	}
	stream, err := WriteStream(nil, s, 3, cols)
	require.NoError(t, err)

	var headers []byte
	pos := 0
	for {
		require.True(t, pos%8 == 0 && pos+8 <= len(stream), "message start", pos)
		require.Equal(t, uint32(0xFFFFFFFF), binary.LittleEndian.Uint32(stream[pos:]))
		metaLen := int(binary.LittleEndian.Uint32(stream[pos+4:]))
		pos += 8
		if metaLen == 0 {
			break
		}
		require.True(t, metaLen%8 == 0, "metadata length not padded", metaLen)
		meta := stream[pos : pos+metaLen]
		var tab flatbuffers.Table
		tab.Bytes = meta
		tab.Pos = flatbuffers.GetUOffsetT(meta)
		version := tab.GetInt16Slot(4, 0)
		require.Equal(t, int16(4), version, "MetadataVersion V5")
		headers = append(headers, tab.GetByteSlot(6, 0))
		bodyLen := tab.GetInt64Slot(10, 0)
		require.True(t, bodyLen%8 == 0, "body length not padded", bodyLen)
		pos += metaLen + int(bodyLen)
	}
	require.Equal(t, len(stream), pos, "bytes after end-of-stream")
	require.Equal(t, []byte{fbHeaderSchema, fbHeaderDictionaryBatch, fbHeaderRecordBatch}, headers)
}
