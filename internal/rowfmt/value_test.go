package rowfmt

import (
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/require"
)

var mem = memory.DefaultAllocator

// build makes a one-field array of type dt by appending vals with the generic builder hook.
func build(t *testing.T, dt arrow.DataType, fill func(b array.Builder)) arrow.Array {
	t.Helper()
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	fill(b)
	return b.NewArray()
}

func uuidField() arrow.Field {
	return arrow.Field{Name: "u", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16},
		Metadata: arrow.NewMetadata([]string{extKey}, []string{extUUID})}
}

func Test_AppendJSON(t *testing.T) {
	tsType := func(u arrow.TimeUnit) arrow.DataType { return &arrow.TimestampType{Unit: u, TimeZone: "UTC"} }
	mapType := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)
	structType := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	)
	tests := []struct {
		name  string
		field arrow.Field // Name/Metadata; Type is taken from the array when nil
		arr   func(t *testing.T) arrow.Array
		want  []string
	}{
		{name: "int64 exact at the edges", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.PrimitiveTypes.Int64, func(b array.Builder) {
				b.(*array.Int64Builder).AppendValues([]int64{math.MaxInt64, math.MinInt64, 9007199254740993}, nil)
				b.AppendNull()
			})
		}, want: []string{"9223372036854775807", "-9223372036854775808", "9007199254740993", "null"}},
		{name: "uint64 exact", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.PrimitiveTypes.Uint64, func(b array.Builder) {
				b.(*array.Uint64Builder).Append(math.MaxUint64)
			})
		}, want: []string{"18446744073709551615"}},
		{name: "uint8 unsigned", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.PrimitiveTypes.Uint8, func(b array.Builder) { b.(*array.Uint8Builder).Append(255) })
		}, want: []string{"255"}},
		{name: "float64 specials", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.PrimitiveTypes.Float64, func(b array.Builder) {
				b.(*array.Float64Builder).AppendValues([]float64{1.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e21, 1e-7, 0.1, 100}, nil)
			})
		}, want: []string{"1.5", "null", "null", "null", "1e+21", "1e-7", "0.1", "100"}},
		{name: "float32 shortest digits", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.PrimitiveTypes.Float32, func(b array.Builder) { b.(*array.Float32Builder).Append(0.1) })
		}, want: []string{"0.1"}},
		{name: "float16", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.FixedWidthTypes.Float16, func(b array.Builder) {
				b.(*array.Float16Builder).Append(float16.New(-2.5))
				b.(*array.Float16Builder).Append(float16.NaN())
			})
		}, want: []string{"-2.5", "null"}},
		{name: "string escapes", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.BinaryTypes.String, func(b array.Builder) {
				b.(*array.StringBuilder).AppendValues([]string{"a\"b\\c\n\x01", "héllo", "bad\xff"}, nil)
			})
		}, want: []string{`"a\"b\\c\n\u0001"`, `"héllo"`, `"bad\ufffd"`}},
		{name: "binary base64", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.BinaryTypes.Binary, func(b array.Builder) { b.(*array.BinaryBuilder).Append([]byte{0, 1, 2, 255}) })
		}, want: []string{`"AAEC/w=="`}},
		{name: "fixed binary base64", arr: func(t *testing.T) arrow.Array {
			return build(t, &arrow.FixedSizeBinaryType{ByteWidth: 3}, func(b array.Builder) {
				b.(*array.FixedSizeBinaryBuilder).Append([]byte("abc"))
			})
		}, want: []string{`"YWJj"`}},
		{name: "uuid via field metadata", field: uuidField(), arr: func(t *testing.T) arrow.Array {
			return build(t, &arrow.FixedSizeBinaryType{ByteWidth: 16}, func(b array.Builder) {
				b.(*array.FixedSizeBinaryBuilder).Append([]byte{0x5e, 0x38, 0x9a, 0x4f, 0x93, 0x1d, 0x4c, 0x2c, 0xa9, 0x6b, 0x00, 0x01, 0x02, 0x03, 0x04, 0xff})
			})
		}, want: []string{`"5e389a4f-931d-4c2c-a96b-0001020304ff"`}},
		{name: "timestamp units keep full precision", arr: func(t *testing.T) arrow.Array {
			return build(t, tsType(arrow.Nanosecond), func(b array.Builder) {
				b.(*array.TimestampBuilder).Append(1704164645123456789)
				b.(*array.TimestampBuilder).Append(-1) // before the epoch: positive fraction
			})
		}, want: []string{`"2024-01-02T03:04:05.123456789Z"`, `"1969-12-31T23:59:59.999999999Z"`}},
		{name: "timestamp micros", arr: func(t *testing.T) arrow.Array {
			return build(t, tsType(arrow.Microsecond), func(b array.Builder) {
				b.(*array.TimestampBuilder).Append(1704164645123456)
				b.(*array.TimestampBuilder).Append(253402225200000000)
			})
		}, want: []string{`"2024-01-02T03:04:05.123456Z"`, `"9999-12-31T03:00:00.000000Z"`}},
		{name: "timestamp millis and seconds", arr: func(t *testing.T) arrow.Array {
			return build(t, tsType(arrow.Millisecond), func(b array.Builder) { b.(*array.TimestampBuilder).Append(1000) })
		}, want: []string{`"1970-01-01T00:00:01.000Z"`}},
		{name: "date32", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.FixedWidthTypes.Date32, func(b array.Builder) {
				b.(*array.Date32Builder).Append(19724)
				b.(*array.Date32Builder).Append(-1)
			})
		}, want: []string{`"2024-01-02"`, `"1969-12-31"`}},
		{name: "time32 ms and time64 ns", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.FixedWidthTypes.Time32ms, func(b array.Builder) {
				b.(*array.Time32Builder).Append(3723004)
			})
		}, want: []string{`"01:02:03.004"`}},
		{name: "time64 ns", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.FixedWidthTypes.Time64ns, func(b array.Builder) {
				b.(*array.Time64Builder).Append(86399999999999)
			})
		}, want: []string{`"23:59:59.999999999"`}},
		{name: "negative times are signed (Drill writes them, DuckDB reads them signed)", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.FixedWidthTypes.Time32ms, func(b array.Builder) {
				b.(*array.Time32Builder).Append(-1999)
				b.(*array.Time32Builder).Append(-3723004)
			})
		}, want: []string{`"-00:00:01.999"`, `"-01:02:03.004"`}},
		{name: "most negative time64", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.FixedWidthTypes.Time64us, func(b array.Builder) {
				b.(*array.Time64Builder).Append(math.MinInt64)
				b.(*array.Time64Builder).Append(-1)
			})
		}, want: []string{`"-2562047788:00:54.775808"`, `"-00:00:00.000001"`}},
		{name: "decimal128 exact", arr: func(t *testing.T) arrow.Array {
			return build(t, &arrow.Decimal128Type{Precision: 38, Scale: 3}, func(b array.Builder) {
				b.(*array.Decimal128Builder).Append(decimal128.FromI64(-12345))
				b.(*array.Decimal128Builder).Append(decimal128.FromI64(5))
				n, _ := new(big.Int).SetString("12345678901234567890123456789012345678", 10)
				b.(*array.Decimal128Builder).Append(decimal128.FromBigInt(n))
			})
		}, want: []string{`"-12.345"`, `"0.005"`, `"12345678901234567890123456789012345.678"`}},
		{name: "decimal256 scale 0", arr: func(t *testing.T) arrow.Array {
			return build(t, &arrow.Decimal256Type{Precision: 50, Scale: 0}, func(b array.Builder) {
				b.(*array.Decimal256Builder).Append(decimal256.FromI64(-7))
			})
		}, want: []string{`"-7"`}},
		{name: "month day nano interval", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.FixedWidthTypes.MonthDayNanoInterval, func(b array.Builder) {
				b.(*array.MonthDayNanoIntervalBuilder).Append(arrow.MonthDayNanoInterval{Months: 1, Days: -2, Nanoseconds: 3000000})
			})
		}, want: []string{`{"months":1,"days":-2,"nanoseconds":3000000}`}},
		{name: "list with nulls and empty", arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.ListOf(arrow.PrimitiveTypes.Int32), func(b array.Builder) {
				lb := b.(*array.ListBuilder)
				vb := lb.ValueBuilder().(*array.Int32Builder)
				lb.Append(true)
				vb.Append(1)
				vb.AppendNull()
				lb.Append(true)
				lb.AppendNull()
			})
		}, want: []string{"[1,null]", "[]", "null"}},
		{name: "struct with nested list", arr: func(t *testing.T) arrow.Array {
			return build(t, structType, func(b array.Builder) {
				sb := b.(*array.StructBuilder)
				sb.Append(true)
				sb.FieldBuilder(0).(*array.Int64Builder).Append(-1)
				lb := sb.FieldBuilder(1).(*array.ListBuilder)
				lb.Append(true)
				lb.ValueBuilder().(*array.StringBuilder).Append("x")
				sb.AppendNull()
			})
		}, want: []string{`{"a":-1,"b":["x"]}`, "null"}},
		{name: "map keys stringified", arr: func(t *testing.T) arrow.Array {
			return build(t, mapType, func(b array.Builder) {
				mb := b.(*array.MapBuilder)
				mb.Append(true)
				mb.KeyBuilder().(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
				mb.ItemBuilder().(*array.StringBuilder).Append("one")
				mb.ItemBuilder().(*array.StringBuilder).AppendNull()
			})
		}, want: []string{`{"1":"one","2":null}`}},
		{name: "struct map keys as their JSON text", arr: func(t *testing.T) arrow.Array {
			kt := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32},
				arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
			return build(t, arrow.MapOf(kt, arrow.PrimitiveTypes.Int32), func(b array.Builder) {
				mb := b.(*array.MapBuilder)
				kb := mb.KeyBuilder().(*array.StructBuilder)
				mb.Append(true)
				kb.AppendValues([]bool{true, true})
				kb.FieldBuilder(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
				kb.FieldBuilder(1).(*array.StringBuilder).Append(`"q"`)
				kb.FieldBuilder(1).(*array.StringBuilder).AppendNull()
				mb.ItemBuilder().(*array.Int32Builder).AppendValues([]int32{10, 20}, nil)
				mb.AppendNull()
			})
		}, want: []string{`{"{\"a\":1,\"s\":\"\\\"q\\\"\"}":10,"{\"a\":2,\"s\":null}":20}`, "null"}},
		{name: "json via field metadata is embedded", field: arrow.Field{Name: "j",
			Metadata: arrow.NewMetadata([]string{extKey}, []string{extJSON})}, arr: func(t *testing.T) arrow.Array {
			return build(t, arrow.BinaryTypes.String, func(b array.Builder) {
				b.(*array.StringBuilder).AppendValues([]string{`{"a": [1, 2]}`, `not json`}, nil)
			})
		}, want: []string{`{"a":[1,2]}`, `"not json"`}},
		{name: "dictionary", arr: func(t *testing.T) arrow.Array {
			dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
			return build(t, dt, func(b array.Builder) {
				db := b.(*array.BinaryDictionaryBuilder)
				require.NoError(t, db.AppendString("b"))
				require.NoError(t, db.AppendString("a"))
				require.NoError(t, db.AppendString("b"))
			})
		}, want: []string{`"b"`, `"a"`, `"b"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arr := tc.arr(t)
			defer arr.Release()
			f := tc.field
			f.Type = arr.DataType()
			require.Equal(t, len(tc.want), arr.Len())
			for i, want := range tc.want {
				require.Equal(t, want, string(AppendJSON(nil, f, arr, i)), i)
			}
		})
	}
}

func Test_DecimalString(t *testing.T) {
	tests := []struct {
		name     string
		unscaled int64
		scale    int
		want     string
	}{
		{name: "negative with fraction", unscaled: -12345, scale: 3, want: "-12.345"},
		{name: "leading zeros", unscaled: 5, scale: 4, want: "0.0005"},
		{name: "negative below one", unscaled: -5, scale: 1, want: "-0.5"},
		{name: "zero", unscaled: 0, scale: 2, want: "0.00"},
		{name: "scale zero", unscaled: 42, scale: 0, want: "42"},
		{name: "negative scale", unscaled: 12, scale: -2, want: "1200"},
		{name: "digits equal scale", unscaled: 123, scale: 3, want: "0.123"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, DecimalString(big.NewInt(tc.unscaled), tc.scale))
		})
	}
}
