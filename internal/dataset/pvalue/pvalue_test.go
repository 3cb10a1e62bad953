package pvalue

import (
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
	"github.com/pqscan/pqscan/internal/require"
)

var (
	tInt   = prune.ColumnType{Kind: prune.Int, Physical: prune.Int64}
	tInt32 = prune.ColumnType{Kind: prune.Int, Physical: prune.Int32}
	tF64   = prune.ColumnType{Kind: prune.Float, Physical: prune.Double}
	tStr   = prune.ColumnType{Kind: prune.Bytes, Physical: prune.ByteArray}
	tBool  = prune.ColumnType{Kind: prune.Bool, Physical: prune.Boolean}
	tDate  = prune.ColumnType{Kind: prune.Date, Physical: prune.Int32}
	tTSus  = prune.ColumnType{Kind: prune.Timestamp, Unit: prune.Micro, UTC: true, Physical: prune.Int64}
	tTSns  = prune.ColumnType{Kind: prune.Timestamp, Unit: prune.Nano, UTC: true, Physical: prune.Int64}
	tDec   = prune.ColumnType{Kind: prune.Decimal, Precision: 5, Scale: 2, Physical: prune.Int32}
)

func Test_Parse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		typ  prune.ColumnType
		want prune.Value
	}{
		{name: "int", in: "-42", typ: tInt, want: prune.IntValue(-42)},
		{name: "int32 max", in: "2147483647", typ: tInt32, want: prune.IntValue(math.MaxInt32)},
		{name: "float", in: "2021.0", typ: tF64, want: prune.FloatValue(2021)},
		{name: "bool any case", in: "TRUE", typ: tBool, want: prune.BoolValue(true)},
		{name: "string unchanged", in: "/%20%f", typ: tStr, want: prune.StringValue("/%20%f")},
		{name: "date epoch", in: "1970-01-01", typ: tDate, want: prune.DateValue(0)},
		{name: "date leap day", in: "2024-02-29", typ: tDate, want: prune.DateValue(19782)},
		{name: "date before epoch", in: "1969-12-31", typ: tDate, want: prune.DateValue(-1)},
		{name: "timestamp space", in: "1970-01-01 00:00:01", typ: tTSus, want: prune.TimestampValue(1e6)},
		{name: "timestamp micros", in: "1970-01-01 00:00:00.123456", typ: tTSus, want: prune.TimestampValue(123456)},
		{name: "timestamp iso Z", in: "2022-01-01T00:00:00.000Z", typ: tTSus, want: prune.TimestampValue(1640995200e6)},
		{name: "timestamp offset", in: "1970-01-01T01:00:00+01:00", typ: tTSus, want: prune.TimestampValue(0)},
		{name: "timestamp year 9999 in micros", in: "9999-12-31T00:00:00.000Z", typ: tTSus, want: prune.TimestampValue(253402214400e6)},
		{name: "timestamp nanos", in: "1970-01-01 00:00:00.000000001", typ: tTSns, want: prune.TimestampValue(1)},
		{name: "timestamp before epoch floors", in: "1969-12-31 23:59:59.9999995", typ: tTSus, want: prune.TimestampValue(-1)},
		{name: "decimal", in: "123.45", typ: tDec, want: prune.DecimalInt64(12345)},
		{name: "decimal short fraction", in: "-1.5", typ: tDec, want: prune.DecimalInt64(-150)},
		{name: "decimal trailing zeros", in: "1.2300", typ: tDec, want: prune.DecimalInt64(123)},
		{name: "decimal exponent", in: "1.0E-2", typ: tDec, want: prune.DecimalInt64(1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in, tc.typ)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_Parse_errors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		typ  prune.ColumnType
		want error
	}{
		{name: "int text", in: "a", typ: tInt, want: ErrSyntax},
		{name: "int32 overflow", in: "2147483648", typ: tInt32, want: ErrSyntax},
		{name: "bool", in: "yes", typ: tBool, want: ErrSyntax},
		{name: "float spaces", in: " 1", typ: tF64, want: ErrSyntax},
		{name: "date month 13", in: "2024-13-01", typ: tDate, want: ErrSyntax},
		{name: "date feb 30", in: "2023-02-29", typ: tDate, want: ErrSyntax},
		{name: "date short", in: "2024-1-01", typ: tDate, want: ErrSyntax},
		{name: "timestamp hour 24", in: "2024-01-01 24:00:00", typ: tTSus, want: ErrSyntax},
		{name: "timestamp bad zone", in: "2024-01-01 00:00:00 UTC", typ: tTSus, want: ErrSyntax},
		{name: "timestamp 10 fraction digits", in: "2024-01-01 00:00:00.0123456789", typ: tTSus, want: ErrSyntax},
		{name: "timestamp year 9999 in nanos", in: "9999-12-31 00:00:00", typ: tTSns, want: ErrSyntax},
		{name: "decimal too precise", in: "1.234", typ: tDec, want: ErrSyntax},
		{name: "decimal too many digits", in: "1234.5", typ: tDec, want: ErrSyntax},
		{name: "decimal text", in: "1.2.3", typ: tDec, want: ErrSyntax},
		{name: "time unsupported", in: "00:00", typ: prune.ColumnType{Kind: prune.Time, Unit: prune.Micro}, want: ErrType},
		{name: "timestamp without unit", in: "2024-01-01 00:00:00", typ: prune.ColumnType{Kind: prune.Timestamp}, want: ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in, tc.typ)
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func Test_Infer(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   prune.ColumnType
	}{
		{name: "ints", values: []string{"1", "-20", "300"}, want: tInt},
		{name: "leading zero stays string", values: []string{"1", "007"}, want: tStr},
		{name: "float stays string", values: []string{"2020", "2021.0"}, want: tStr},
		{name: "dates", values: []string{"2024-01-01", "2024-01-31"}, want: tDate},
		{name: "timestamps", values: []string{"2024-01-01 10:00:00", "2024-01-01 11:30:00.5"}, want: prune.ColumnType{Kind: prune.Timestamp, Unit: prune.Micro, Physical: prune.Int64}},
		{name: "zoned timestamps", values: []string{"2024-01-01T10:00:00Z"}, want: tTSus},
		{name: "zoned and zone-less mix", values: []string{"2024-01-01T10:00:00Z", "2024-01-01 10:00:00"}, want: tStr},
		{name: "date and timestamp mix", values: []string{"2024-01-01", "2024-01-01 10:00:00"}, want: tStr},
		{name: "no values", values: nil, want: tStr},
		{name: "strings", values: []string{"a", "1"}, want: tStr},
		{name: "big int overflows to string", values: []string{"99999999999999999999"}, want: tStr},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Infer(tc.values))
		})
	}
}

// FuzzParse checks that the parsers never panic and that every inferred type parses all of
// its values (Infer's contract with Parse).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2024-01-01", "1970-01-01 00:00:00.123456", "9999-12-31T00:00:00.000Z", "-1.5E3", "007", "__HIVE_DEFAULT_PARTITION__"} {
		f.Add(s, "1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		typ := Infer([]string{a, b})
		for _, s := range []string{a, b} {
			if _, err := Parse(s, typ); err != nil {
				t.Fatalf("Infer(%q,%q)=%s but Parse(%q): %v", a, b, typ, s, err)
			}
			for _, tt := range []prune.ColumnType{tInt, tF64, tBool, tDate, tTSus, tTSns, tDec} {
				_, _ = Parse(s, tt)
			}
			if u, ok := ParseDecimal(s, 38, 4); ok && u.Cmp(exactnum.Pow10(38)) >= 0 {
				t.Fatalf("decimal %q exceeds precision 38: %s", s, u)
			}
		}
	})
}
