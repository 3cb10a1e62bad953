package arrowipc

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mdn mirrors Arrow's 16-byte month_day_nano interval layout.
type mdn struct {
	Months, Days int32
	Nanos        int64
}

// dec128 is the 16-byte little-endian two's complement form of v, as the decoder writes it.
func dec128(v int64) [2]int64 { return [2]int64{v, v >> 63} }

func dec256(v int64) [4]int64 { s := v >> 63; return [4]int64{v, s, s, s} }

func TestWriteStream_scalarTypes(t *testing.T) {
	valid := []bool{true, false, true}
	cases := []roundTripCase{
		{
			name:  "int16 and uint64 via int8",
			field: fld("i8", DataType{ID: Int, BitWidth: 8, Signed: true}, true),
			col:   fixed([]int8{-128, 0, 127}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewInt8Builder(mem)
				defer b.Release()
				b.AppendValues([]int8{-128, 0, 127}, valid)
				return arrow.PrimitiveTypes.Int8, b.NewArray()
			},
		},
		{
			name:  "int16",
			field: fld("i16", DataType{ID: Int, BitWidth: 16, Signed: true}, true),
			col:   fixed([]int16{-300, 0, 300}, nil),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewInt16Builder(mem)
				defer b.Release()
				b.AppendValues([]int16{-300, 0, 300}, nil)
				return arrow.PrimitiveTypes.Int16, b.NewArray()
			},
		},
		{
			name:  "uint16",
			field: fld("u16", DataType{ID: Int, BitWidth: 16}, true),
			col:   fixed([]uint16{65535, 0, 1}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewUint16Builder(mem)
				defer b.Release()
				b.AppendValues([]uint16{65535, 0, 1}, valid)
				return arrow.PrimitiveTypes.Uint16, b.NewArray()
			},
		},
		{
			name:  "uint32",
			field: fld("u32", DataType{ID: Int, BitWidth: 32}, true),
			col:   fixed([]uint32{1 << 31, 0, 1}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewUint32Builder(mem)
				defer b.Release()
				b.AppendValues([]uint32{1 << 31, 0, 1}, valid)
				return arrow.PrimitiveTypes.Uint32, b.NewArray()
			},
		},
		{
			name:  "uint64",
			field: fld("u64", DataType{ID: Int, BitWidth: 64}, false),
			col:   fixed([]uint64{1 << 63, 0, 1}, nil),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewUint64Builder(mem)
				defer b.Release()
				b.AppendValues([]uint64{1 << 63, 0, 1}, nil)
				return arrow.PrimitiveTypes.Uint64, b.NewArray()
			},
		},
		{
			name:  "float16",
			field: fld("f16", DataType{ID: Float, BitWidth: 16}, true),
			col:   fixed([]uint16{float16.New(1.5).Uint16(), 0, float16.New(-2).Uint16()}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewFloat16Builder(mem)
				defer b.Release()
				b.AppendValues([]float16.Num{float16.New(1.5), {}, float16.New(-2)}, valid)
				return arrow.FixedWidthTypes.Float16, b.NewArray()
			},
		},
		{
			name:  "binary",
			field: fld("bin", DataType{ID: Binary}, true),
			col:   strs([]string{"\x00\xff", "", "abc"}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
				defer b.Release()
				b.AppendValues([][]byte{{0, 0xff}, nil, []byte("abc")}, valid)
				return arrow.BinaryTypes.Binary, b.NewArray()
			},
		},
		{
			name:  "fixed size binary",
			field: fld("fsb", DataType{ID: FixedSizeBinary, ByteWidth: 3}, true),
			col:   &Array{Len: 3, NullCount: 1, Validity: []byte{0b101}, Data: []byte("abc\x00\x00\x00xyz")},
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.FixedSizeBinaryType{ByteWidth: 3}
				b := array.NewFixedSizeBinaryBuilder(mem, dt)
				defer b.Release()
				b.AppendValues([][]byte{[]byte("abc"), nil, []byte("xyz")}, valid)
				return dt, b.NewArray()
			},
		},
		{
			name:  "decimal128",
			field: fld("d128", DataType{ID: Decimal, BitWidth: 128, Precision: 20, Scale: 3}, true),
			col:   fixed([][2]int64{dec128(12345), dec128(0), dec128(-987654321)}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.Decimal128Type{Precision: 20, Scale: 3}
				b := array.NewDecimal128Builder(mem, dt)
				defer b.Release()
				b.AppendValues([]decimal128.Num{decimal128.FromI64(12345), {}, decimal128.FromI64(-987654321)}, valid)
				return dt, b.NewArray()
			},
		},
		{
			name:  "decimal256",
			field: fld("d256", DataType{ID: Decimal, BitWidth: 256, Precision: 60, Scale: -2}, true),
			col:   fixed([][4]int64{dec256(-1), dec256(0), dec256(1 << 62)}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.Decimal256Type{Precision: 60, Scale: -2}
				b := array.NewDecimal256Builder(mem, dt)
				defer b.Release()
				b.AppendValues([]decimal256.Num{decimal256.FromI64(-1), {}, decimal256.FromI64(1 << 62)}, valid)
				return dt, b.NewArray()
			},
		},
		{
			name:  "date32",
			field: fld("date", DataType{ID: Date32}, true),
			col:   fixed([]int32{0, 0, 19000}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewDate32Builder(mem)
				defer b.Release()
				b.AppendValues([]arrow.Date32{0, 0, 19000}, valid)
				return arrow.FixedWidthTypes.Date32, b.NewArray()
			},
		},
		{
			name:  "time32 millis",
			field: fld("t32", DataType{ID: Time, BitWidth: 32, Unit: Millisecond}, true),
			col:   fixed([]int32{1, 0, 86399999}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.Time32Type{Unit: arrow.Millisecond}
				b := array.NewTime32Builder(mem, dt)
				defer b.Release()
				b.AppendValues([]arrow.Time32{1, 0, 86399999}, valid)
				return dt, b.NewArray()
			},
		},
		{
			name:  "time32 seconds",
			field: fld("t32s", DataType{ID: Time, BitWidth: 32, Unit: Second}, true),
			col:   fixed([]int32{1, 2, 3}, nil),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.Time32Type{Unit: arrow.Second}
				b := array.NewTime32Builder(mem, dt)
				defer b.Release()
				b.AppendValues([]arrow.Time32{1, 2, 3}, nil)
				return dt, b.NewArray()
			},
		},
		{
			name:  "time64 nanos",
			field: fld("t64", DataType{ID: Time, BitWidth: 64, Unit: Nanosecond}, true),
			col:   fixed([]int64{1, 0, 86399999999999}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.Time64Type{Unit: arrow.Nanosecond}
				b := array.NewTime64Builder(mem, dt)
				defer b.Release()
				b.AppendValues([]arrow.Time64{1, 0, 86399999999999}, valid)
				return dt, b.NewArray()
			},
		},
		{
			name:  "time64 micros",
			field: fld("t64us", DataType{ID: Time, BitWidth: 64, Unit: Microsecond}, false),
			col:   fixed([]int64{1, 2, 3}, nil),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.Time64Type{Unit: arrow.Microsecond}
				b := array.NewTime64Builder(mem, dt)
				defer b.Release()
				b.AppendValues([]arrow.Time64{1, 2, 3}, nil)
				return dt, b.NewArray()
			},
		},
		{
			name:  "timestamp utc micros",
			field: fld("ts", DataType{ID: Timestamp, Unit: Microsecond, TZ: "UTC"}, true),
			col:   fixed([]int64{-1, 0, 1700000000000000}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
				b := array.NewTimestampBuilder(mem, dt)
				defer b.Release()
				b.AppendValues([]arrow.Timestamp{-1, 0, 1700000000000000}, valid)
				return dt, b.NewArray()
			},
		},
		{
			name:  "timestamp naive seconds",
			field: fld("ts0", DataType{ID: Timestamp, Unit: Second}, true),
			col:   fixed([]int64{1, 2, 3}, nil),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.TimestampType{Unit: arrow.Second}
				b := array.NewTimestampBuilder(mem, dt)
				defer b.Release()
				b.AppendValues([]arrow.Timestamp{1, 2, 3}, nil)
				return dt, b.NewArray()
			},
		},
		{
			name:  "timestamp nanos with zone",
			field: fld("tsn", DataType{ID: Timestamp, Unit: Nanosecond, TZ: "Europe/Paris"}, true),
			col:   fixed([]int64{1, 2, 3}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Paris"}
				b := array.NewTimestampBuilder(mem, dt)
				defer b.Release()
				b.AppendValues([]arrow.Timestamp{1, 2, 3}, valid)
				return dt, b.NewArray()
			},
		},
		{
			name:  "interval month day nano",
			field: fld("iv", DataType{ID: IntervalMonthDayNano}, true),
			col:   fixed([]mdn{{1, 2, 3}, {}, {-1, -2, -3000000000}}, valid),
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				b := array.NewMonthDayNanoIntervalBuilder(mem)
				defer b.Release()
				b.AppendValues([]arrow.MonthDayNanoInterval{{Months: 1, Days: 2, Nanoseconds: 3}, {}, {Months: -1, Days: -2, Nanoseconds: -3000000000}}, valid)
				return arrow.FixedWidthTypes.MonthDayNanoInterval, b.NewArray()
			},
		},
		{
			name: "field metadata",
			field: Field{Name: "uuid", Type: DataType{ID: FixedSizeBinary, ByteWidth: 2}, Nullable: true,
				Metadata: [][2]string{{"ARROW:extension:name", "x.test"}, {"empty", ""}}},
			col: &Array{Len: 3, Data: []byte("aabbcc")},
			want: func(mem memory.Allocator) (arrow.DataType, arrow.Array) {
				dt := &arrow.FixedSizeBinaryType{ByteWidth: 2}
				b := array.NewFixedSizeBinaryBuilder(mem, dt)
				defer b.Release()
				b.AppendValues([][]byte{[]byte("aa"), []byte("bb"), []byte("cc")}, nil)
				return dt, b.NewArray()
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkRoundTrip(t, []roundTripCase{c}, 3, nil)
		})
	}
	t.Run("all columns together", func(t *testing.T) {
		checkRoundTrip(t, cases, 3, [][2]string{{"pandas", "{}"}})
	})
}
