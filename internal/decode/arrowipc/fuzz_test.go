package arrowipc

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/require"
)

// FuzzWriteStream is differential: it derives a random schema and valid arrays from the fuzz
// bytes, encodes them, reads the stream back with arrow-go, and compares with a record that
// arrow-go builders assemble value by value from the same model arrays.
func FuzzWriteStream(f *testing.F) {
	for _, seed := range [][]byte{
		{}, {3, 5, 1, 2, 3, 4, 5, 6, 7, 8},
		{2, 9, 12, 2, 1, 13, 3, 4, 15, 1, 0xff, 0x0f},
		{4, 20, 14, 4, 12, 7, 15, 13, 2, 3, 7, 0xaa, 0x55, 1, 2, 3},
		{1, 17, 12, 12, 13, 12, 4, 1, 1, 1, 1, 1, 9, 9, 9},
		{3, 0, 15, 14, 1, 13, 6},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{b: data}
		nf := 1 + g.n(4)
		nrows := g.n(21)
		s := &Schema{}
		if g.n(2) == 1 {
			s.Metadata = [][2]string{{"k", fmt.Sprint(g.n(100))}}
		}
		cols := make([]*Array, nf)
		for i := 0; i < nf; i++ {
			s.Fields = append(s.Fields, g.field(fmt.Sprintf("c%d", i), 0, true))
		}
		for i := range s.Fields {
			cols[i] = g.array(&s.Fields[i], nrows, nil)
		}
		compareWithArrow(t, s, nrows, cols)
	})
}

// compareWithArrow encodes and decodes s/cols and compares with the builder-made record.
func compareWithArrow(t *testing.T, s *Schema, nrows int, cols []*Array) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	stream, err := WriteStream(nil, s, nrows, cols)
	require.NoError(t, err)

	fields := make([]arrow.Field, len(s.Fields))
	arrs := make([]arrow.Array, len(s.Fields))
	for i := range s.Fields {
		fields[i] = arrowField(&s.Fields[i])
		b := array.NewBuilder(mem, fields[i].Type)
		loadDicts(b, &s.Fields[i].Type, cols[i])
		for r := 0; r < nrows; r++ {
			appendValue(b, &s.Fields[i].Type, cols[i], r)
		}
		arrs[i] = b.NewArray()
		b.Release()
	}
	var meta *arrow.Metadata
	if s.Metadata != nil {
		m := arrowMeta(s.Metadata)
		meta = &m
	}
	want := wantRecord(fields, meta, arrs, nrows)
	defer want.Release()

	gotSchema, got := readStream(t, mem, stream)
	require.True(t, got != nil, "no record batch")
	defer got.Release()
	require.True(t, gotSchema.Equal(want.Schema()), "schema", gotSchema, want.Schema())
	require.True(t, array.RecordEqual(want, got), "record", want, got)
}

// arrowField maps a model field to arrow-go, independently of the encoder's flatbuffer code.
func arrowField(f *Field) arrow.Field {
	return arrow.Field{Name: f.Name, Type: arrowType(&f.Type), Nullable: f.Nullable, Metadata: arrowMeta(f.Metadata)}
}

func arrowType(t *DataType) arrow.DataType {
	if t.Dictionary {
		vt := *t
		vt.Dictionary = false
		return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrowType(&vt)}
	}
	units := []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond}
	switch t.ID {
	case Null:
		return arrow.Null
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	case Int:
		k := map[[2]int]arrow.DataType{
			{8, 1}: arrow.PrimitiveTypes.Int8, {16, 1}: arrow.PrimitiveTypes.Int16,
			{32, 1}: arrow.PrimitiveTypes.Int32, {64, 1}: arrow.PrimitiveTypes.Int64,
			{8, 0}: arrow.PrimitiveTypes.Uint8, {16, 0}: arrow.PrimitiveTypes.Uint16,
			{32, 0}: arrow.PrimitiveTypes.Uint32, {64, 0}: arrow.PrimitiveTypes.Uint64,
		}
		signed := 0
		if t.Signed {
			signed = 1
		}
		return k[[2]int{t.BitWidth, signed}]
	case Float:
		return map[int]arrow.DataType{16: arrow.FixedWidthTypes.Float16, 32: arrow.PrimitiveTypes.Float32, 64: arrow.PrimitiveTypes.Float64}[t.BitWidth]
	case Utf8:
		return arrow.BinaryTypes.String
	case Binary:
		return arrow.BinaryTypes.Binary
	case FixedSizeBinary:
		return &arrow.FixedSizeBinaryType{ByteWidth: t.ByteWidth}
	case Decimal:
		if t.BitWidth == 128 {
			return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
		}
		return &arrow.Decimal256Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case Date32:
		return arrow.FixedWidthTypes.Date32
	case Time:
		if t.BitWidth == 32 {
			return &arrow.Time32Type{Unit: units[t.Unit]}
		}
		return &arrow.Time64Type{Unit: units[t.Unit]}
	case Timestamp:
		return &arrow.TimestampType{Unit: units[t.Unit], TimeZone: t.TZ}
	case IntervalMonthDayNano:
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	case List:
		return arrow.ListOfField(arrowField(t.Elem))
	case Struct:
		fs := make([]arrow.Field, len(t.Fields))
		for i := range t.Fields {
			fs[i] = arrowField(&t.Fields[i])
		}
		return arrow.StructOf(fs...)
	case Map:
		m := arrow.MapOfFields(arrowField(&t.Elem.Type.Fields[0]), arrowField(&t.Elem.Type.Fields[1]))
		m.KeysSorted = t.KeysSorted
		return m
	}
	panic(fmt.Sprint("unknown type ", t.ID))
}

// appendValue appends element i of a (of type t) to b, reading the model's buffers value by
// value: this is the oracle's own reading of the model's layout.
func appendValue(b array.Builder, t *DataType, a *Array, i int) {
	if t.ID == Null || (a.NullCount > 0 && a.Validity[i/8]&(1<<(i%8)) == 0) {
		b.AppendNull()
		return
	}
	d := a.Data
	u16 := func() uint16 { return binary.LittleEndian.Uint16(d[2*i:]) }
	u32 := func() uint32 { return binary.LittleEndian.Uint32(d[4*i:]) }
	u64 := func(k int) uint64 { return binary.LittleEndian.Uint64(d[8*k:]) }
	span := func() []byte { return d[a.Offsets[i]:a.Offsets[i+1]] }
	switch b := b.(type) {
	case *array.BinaryDictionaryBuilder:
		b.AppendIndices([]int{int(int32(u32()))}, nil)
	case *array.BooleanBuilder:
		b.Append(d[i/8]&(1<<(i%8)) != 0)
	case *array.Int8Builder:
		b.Append(int8(d[i]))
	case *array.Uint8Builder:
		b.Append(d[i])
	case *array.Int16Builder:
		b.Append(int16(u16()))
	case *array.Uint16Builder:
		b.Append(u16())
	case *array.Int32Builder:
		b.Append(int32(u32()))
	case *array.Uint32Builder:
		b.Append(u32())
	case *array.Int64Builder:
		b.Append(int64(u64(i)))
	case *array.Uint64Builder:
		b.Append(u64(i))
	case *array.Float16Builder:
		b.Append(float16.FromBits(u16()))
	case *array.Float32Builder:
		b.Append(float32FromBits(u32()))
	case *array.Float64Builder:
		b.Append(float64FromBits(u64(i)))
	case *array.StringBuilder:
		b.Append(string(span()))
	case *array.BinaryBuilder:
		b.Append(span())
	case *array.FixedSizeBinaryBuilder:
		w := t.ByteWidth
		b.Append(d[i*w : (i+1)*w])
	case *array.Decimal128Builder:
		b.Append(decimal128.New(int64(u64(2*i+1)), u64(2*i)))
	case *array.Decimal256Builder:
		b.Append(decimal256.New(u64(4*i+3), u64(4*i+2), u64(4*i+1), u64(4*i)))
	case *array.Date32Builder:
		b.Append(arrow.Date32(int32(u32())))
	case *array.Time32Builder:
		b.Append(arrow.Time32(int32(u32())))
	case *array.Time64Builder:
		b.Append(arrow.Time64(int64(u64(i))))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(int64(u64(i))))
	case *array.MonthDayNanoIntervalBuilder:
		b.Append(arrow.MonthDayNanoInterval{Months: int32(u32s(d, 4*i)), Days: int32(u32s(d, 4*i+1)), Nanoseconds: int64(u64(2*i + 1))})
	case *array.MapBuilder:
		b.Append(true)
		for j := a.Offsets[i]; j < a.Offsets[i+1]; j++ {
			appendValue(b.ValueBuilder(), &t.Elem.Type, a.Children[0], int(j))
		}
	case *array.ListBuilder:
		b.Append(true)
		for j := a.Offsets[i]; j < a.Offsets[i+1]; j++ {
			appendValue(b.ValueBuilder(), &t.Elem.Type, a.Children[0], int(j))
		}
	case *array.StructBuilder:
		b.Append(true)
		for k := range t.Fields {
			appendValue(b.FieldBuilder(k), &t.Fields[k].Type, a.Children[k], i)
		}
	default:
		panic(fmt.Sprintf("no oracle for builder %T", b))
	}
}

func u32s(d []byte, k int) uint32 { return binary.LittleEndian.Uint32(d[4*k:]) }

// loadDicts inserts every dictionary of a (as given, in order) into the dictionary builders
// under b, so that appended indices mean the same values in the oracle.
func loadDicts(b array.Builder, t *DataType, a *Array) {
	switch {
	case t.Dictionary:
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		defer sb.Release()
		for k := 0; k < a.Dict.Len; k++ {
			sb.Append(string(a.Dict.Data[a.Dict.Offsets[k]:a.Dict.Offsets[k+1]]))
		}
		dv := sb.NewStringArray()
		defer dv.Release()
		if err := b.(*array.BinaryDictionaryBuilder).InsertStringDictValues(dv); err != nil {
			panic(err)
		}
	case t.ID == List:
		loadDicts(b.(*array.ListBuilder).ValueBuilder(), &t.Elem.Type, a.Children[0])
	case t.ID == Map:
		loadDicts(b.(*array.MapBuilder).ValueBuilder(), &t.Elem.Type, a.Children[0])
	case t.ID == Struct:
		for k := range t.Fields {
			loadDicts(b.(*array.StructBuilder).FieldBuilder(k), &t.Fields[k].Type, a.Children[k])
		}
	}
}

// TestWriteStream_random runs the fuzz body over fixed pseudo-random inputs so that plain
// `go test` exercises deep nesting and dictionaries too, and checks that it did.
func TestWriteStream_random(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[TypeID]int{}
	dicts := 0
	var walk func(f *Field, depth int)
	walk = func(f *Field, depth int) {
		seen[f.Type.ID]++
		if f.Type.Dictionary {
			dicts++
		}
		if f.Type.Elem != nil {
			walk(f.Type.Elem, depth+1)
		}
		for i := range f.Type.Fields {
			walk(&f.Type.Fields[i], depth+1)
		}
	}
	for iter := 0; iter < 300; iter++ {
		data := make([]byte, 64+rng.IntN(400))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		g := &gen{b: data}
		nrows := g.n(21)
		s := &Schema{}
		for i := 0; i < 1+g.n(4); i++ {
			s.Fields = append(s.Fields, g.field(fmt.Sprintf("c%d", i), 0, true))
		}
		cols := make([]*Array, len(s.Fields))
		for i := range s.Fields {
			cols[i] = g.array(&s.Fields[i], nrows, nil)
			walk(&s.Fields[i], 0)
		}
		compareWithArrow(t, s, nrows, cols)
	}
	for id := Null; id <= Map; id++ {
		require.True(t, seen[id] > 0, "type never generated", id)
	}
	require.True(t, dicts > 0, "no dictionary generated")
}
