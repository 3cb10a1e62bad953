package arrowipc

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/require"
)

// roundTripCase is one column: the model field and array, and the expected arrow-go field and
// array built with arrow-go builders.
type roundTripCase struct {
	name  string
	field Field
	col   *Array
	want  func(mem memory.Allocator) (arrow.DataType, arrow.Array)
}

// checkRoundTrip writes the columns with WriteStream, reads them back with arrow-go and
// compares them with the expected record, checking that every buffer is released.
func checkRoundTrip(t *testing.T, cases []roundTripCase, nrows int, schemaMeta [][2]string) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	s := &Schema{Metadata: schemaMeta}
	var cols []*Array
	var wantFields []arrow.Field
	var wantCols []arrow.Array
	for _, c := range cases {
		s.Fields = append(s.Fields, c.field)
		cols = append(cols, c.col)
		dt, arr := c.want(mem)
		wantFields = append(wantFields, arrow.Field{Name: c.field.Name, Type: dt, Nullable: c.field.Nullable, Metadata: arrowMeta(c.field.Metadata)})
		wantCols = append(wantCols, arr)
	}
	var meta *arrow.Metadata
	if schemaMeta != nil {
		m := arrowMeta(schemaMeta)
		meta = &m
	}
	want := wantRecord(wantFields, meta, wantCols, nrows)
	defer want.Release()

	stream, err := WriteStream([]byte("prefix"), s, nrows, cols)
	require.NoError(t, err)
	require.Equal(t, "prefix", string(stream[:6]))
	gotSchema, got := readStream(t, mem, stream[6:])
	require.True(t, got != nil, "no record batch")
	defer got.Release()
	require.True(t, gotSchema.Equal(want.Schema()), "schema", gotSchema, want.Schema())
	require.Equal(t, want.Schema().Metadata().String(), gotSchema.Metadata().String())
	require.True(t, array.RecordEqual(want, got), "record", want, got)

	// The schema-only stream must carry the same schema and no batch.
	schemaOnly, err := WriteSchema(nil, s)
	require.NoError(t, err)
	sc, none := readStream(t, mem, schemaOnly)
	require.True(t, none == nil, "schema-only stream has a batch")
	require.True(t, sc.Equal(want.Schema()), "schema-only schema", sc)
}

func arrowMeta(kv [][2]string) arrow.Metadata {
	if kv == nil {
		return arrow.Metadata{}
	}
	var k, v []string
	for _, p := range kv {
		k = append(k, p[0])
		v = append(v, p[1])
	}
	return arrow.NewMetadata(k, v)
}

func TestWriteStream_flat(t *testing.T) {
	valid := []bool{true, false, true, true}
	cases := []roundTripCase{
		{
			name:  "int32 with nulls",
			field: fld("i32", tInt32, true),
			col:   fixed([]int32{1, 0, -3, 1 << 30}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewInt32Builder(mem)
				defer b.Release()
				b.AppendValues([]int32{1, 0, -3, 1 << 30}, valid)
				return arrow.PrimitiveTypes.Int32, b.NewArray()
			},
		},
		{
			name:  "int64 no nulls",
			field: fld("i64", tInt64, false),
			col:   fixed([]int64{1, -2, 3, 1 << 60}, nil),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewInt64Builder(mem)
				defer b.Release()
				b.AppendValues([]int64{1, -2, 3, 1 << 60}, nil)
				return arrow.PrimitiveTypes.Int64, b.NewArray()
			},
		},
		{
			name:  "uint8",
			field: fld("u8", DataType{ID: Int, BitWidth: 8}, true),
			col:   fixed([]uint8{1, 2, 255, 0}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewUint8Builder(mem)
				defer b.Release()
				b.AppendValues([]uint8{1, 2, 255, 0}, valid)
				return arrow.PrimitiveTypes.Uint8, b.NewArray()
			},
		},
		{
			name:  "double",
			field: fld("f64", tDouble, true),
			col:   fixed([]float64{1.5, 0, -2.25, 1e300}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewFloat64Builder(mem)
				defer b.Release()
				b.AppendValues([]float64{1.5, 0, -2.25, 1e300}, valid)
				return arrow.PrimitiveTypes.Float64, b.NewArray()
			},
		},
		{
			name:  "float32",
			field: fld("f32", DataType{ID: Float, BitWidth: 32}, true),
			col:   fixed([]float32{1.5, 0, -2.25, 3}, nil),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewFloat32Builder(mem)
				defer b.Release()
				b.AppendValues([]float32{1.5, 0, -2.25, 3}, nil)
				return arrow.PrimitiveTypes.Float32, b.NewArray()
			},
		},
		{
			name:  "utf8 with nulls",
			field: fld("s", tUtf8, true),
			col:   strs([]string{"a", "", "héllo", "world"}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewStringBuilder(mem)
				defer b.Release()
				b.AppendValues([]string{"a", "", "héllo", "world"}, valid)
				return arrow.BinaryTypes.String, b.NewArray()
			},
		},
		{
			name:  "bool",
			field: fld("b", tBool, true),
			col:   bools([]bool{true, false, false, true}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewBooleanBuilder(mem)
				defer b.Release()
				b.AppendValues([]bool{true, false, false, true}, valid)
				return arrow.FixedWidthTypes.Boolean, b.NewArray()
			},
		},
		{
			name:  "all null int32",
			field: fld("n", tInt32, true),
			col:   fixed([]int32{0, 0, 0, 0}, []bool{false, false, false, false}),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewInt32Builder(mem)
				defer b.Release()
				b.AppendNulls(4)
				return arrow.PrimitiveTypes.Int32, b.NewArray()
			},
		},
		{
			name:  "null type",
			field: fld("null", DataType{ID: Null}, true),
			col:   &Array{Len: 4, NullCount: 4},
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				return arrow.Null, array.NewNull(4)
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkRoundTrip(t, []roundTripCase{c}, 4, nil)
		})
	}
	t.Run("all columns together", func(t *testing.T) {
		checkRoundTrip(t, cases, 4, [][2]string{{"k", "v"}, {"writer", "pqscan"}})
	})
}
