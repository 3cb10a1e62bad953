package prune

import (
	"strconv"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
)

// testSchema is the column set used by binding and evaluation tests.
var testSchema = map[string]ColumnType{
	"i32":   {Kind: Int, Physical: Int32},
	"i64":   {Kind: Int, Physical: Int64},
	"u32":   {Kind: Uint, Physical: Int32},
	"u64":   {Kind: Uint, Physical: Int64},
	"f64":   {Kind: Float, Physical: Double},
	"f32":   {Kind: Float, Physical: PhysFloat},
	"s":     {Kind: Bytes, Physical: ByteArray},
	"fix":   {Kind: Bytes, Physical: FixedLenByteArray, TypeLength: 3},
	"b":     {Kind: Bool, Physical: Boolean},
	"dec":   {Kind: Decimal, Physical: Int32, Scale: 2, Precision: 9},
	"decb":  {Kind: Decimal, Physical: FixedLenByteArray, TypeLength: 2, Scale: 0, Precision: 4},
	"decv":  {Kind: Decimal, Physical: ByteArray, Scale: 3, Precision: 30},
	"d":     {Kind: Date, Physical: Int32},
	"ts":    {Kind: Timestamp, Physical: Int64, Unit: Milli, UTC: true},
	"tsl":   {Kind: Timestamp, Physical: Int64, Unit: Micro},
	"tsu":   {Kind: Timestamp, Physical: Int64, Unit: Micro, UTC: true},
	"tod":   {Kind: Time, Physical: Int64, Unit: Micro},
	"a.b.c": {Kind: Int, Physical: Int64},
}

func lookupTest(p string) (ColumnType, bool) { t, ok := testSchema[p]; return t, ok }

func mustBind(t testing.TB, s string) *Bound {
	t.Helper()
	e, err := Parse(s)
	require.NoError(t, err, s)
	b, err := Bind(e, lookupTest)
	require.NoError(t, err, s)
	return b
}

func ms(s string) string {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return strconv.FormatInt(tm.UnixMilli(), 10)
}

func Test_Bind(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "int32 below huge", in: "i32 < 99999999999", want: "TRUE(i32)"},
		{name: "int32 above huge", in: "i32 >= 99999999999", want: "FALSE(i32)"},
		{name: "int32 eq huge negative", in: "i32 = -99999999999", want: "FALSE(i32)"},
		{name: "int32 ne huge", in: "i32 != 2147483648", want: "TRUE(i32)"},
		{name: "int32 edge kept", in: "i32 <= 2147483647", want: "i32 <= 2147483647"},
		{name: "gt fraction", in: "i64 > 2.5", want: "i64 >= 3"},
		{name: "ge fraction", in: "i64 >= 2.5", want: "i64 >= 3"},
		{name: "lt fraction", in: "i64 < 2.5", want: "i64 <= 2"},
		{name: "le negative fraction", in: "i64 <= -2.5", want: "i64 <= -3"},
		{name: "ge negative fraction", in: "i64 >= -2.5", want: "i64 >= -2"},
		{name: "eq fraction", in: "i64 = 2.5", want: "FALSE(i64)"},
		{name: "ne fraction", in: "i64 != 2.5", want: "TRUE(i64)"},
		{name: "eq integral float", in: "i64 = 2.0", want: "i64 = 2"},
		{name: "exponent", in: "i64 > 1e3", want: "i64 > 1000"},
		{name: "int64 max plus half", in: "i64 <= 9223372036854775807.5", want: "i64 <= 9223372036854775807"},
		{name: "int64 beyond", in: "i64 > 9223372036854775807.5", want: "FALSE(i64)"},
		{name: "literal on left", in: "3 < i64", want: "i64 > 3"},
		{name: "uint vs negative gt", in: "u64 > -1", want: "TRUE(u64)"},
		{name: "uint vs negative le", in: "u64 <= -1", want: "FALSE(u64)"},
		{name: "uint vs negative eq", in: "u64 = -5", want: "FALSE(u64)"},
		{name: "uint max", in: "u64 = 18446744073709551615", want: "u64 = 18446744073709551615"},
		{name: "uint beyond max", in: "u64 < 18446744073709551616", want: "TRUE(u64)"},
		{name: "uint32 beyond", in: "u32 <= 4294967296", want: "TRUE(u32)"},
		{name: "uint32 max", in: "u32 >= 4294967295", want: "u32 >= 4294967295"},
		{name: "float int literal", in: "f64 > 1", want: "f64 > 1"},
		{name: "float nearest double", in: "f64 = 0.1", want: "f64 = 0.1"},
		{name: "float32 nearest float", in: "f32 = 0.1", want: "f32 = 0.10000000149011612"},
		{name: "float nan string", in: "f64 = 'NaN'", want: "f64 = NaN"},
		{name: "float overflow", in: "f64 < 1e400", want: "f64 < +Inf"},
		{name: "decimal scaled", in: "dec = 12", want: "dec = 1200"},
		{name: "decimal extra digits eq", in: "dec = 1.005", want: "FALSE(dec)"},
		{name: "decimal extra digits lt", in: "dec < 1.005", want: "dec <= 100"},
		{name: "decimal extra digits ge", in: "dec >= 1.005", want: "dec >= 101"},
		{name: "decimal negative round", in: "dec > -1.005", want: "dec >= -100"},
		{name: "decimal beyond int32", in: "dec < 99999999999", want: "TRUE(dec)"},
		{name: "decimal flba range", in: "decb > 40000", want: "FALSE(decb)"},
		{name: "decimal flba edge", in: "decb <= -32768", want: "decb <= -32768"},
		{name: "decimal varlen big", in: "decv = 123456789012345678901234567.5", want: "decv = 123456789012345678901234567500"},
		{name: "date string", in: "d >= '2024-01-01'", want: "d >= DATE '2024-01-01'"},
		{name: "date literal", in: "d = DATE '1970-01-02'", want: "d = DATE '1970-01-02'"},
		{name: "date vs midday", in: "d < '2024-01-01T12:00:00'", want: "d <= DATE '2024-01-01'"},
		{name: "date vs midday eq", in: "d = '2024-01-01 12:00'", want: "FALSE(d)"},
		{name: "date vs midnight eq", in: "d = TIMESTAMP '2024-01-01T00:00:00Z'", want: "d = DATE '2024-01-01'"},
		{name: "date vs zoned", in: "d > TIMESTAMP '2024-01-01T00:00:00+01:00'", want: "d >= DATE '2024-01-01'"},
		{name: "ts utc Z", in: "ts >= '2026-10-01T09:00:00Z'", want: "ts >= " + ms("2026-10-01T09:00:00Z")},
		{name: "ts utc offset", in: "ts >= '2026-10-01T11:00:00+02:00'", want: "ts >= " + ms("2026-10-01T09:00:00Z")},
		{name: "ts naive is utc", in: "ts >= TIMESTAMP '2026-10-01 09:00:00'", want: "ts >= " + ms("2026-10-01T09:00:00Z")},
		{name: "ts date literal", in: "ts < DATE '2026-10-01'", want: "ts < " + ms("2026-10-01T00:00:00Z")},
		{name: "ts sub-unit fraction", in: "ts > '2026-10-01T09:00:00.0005Z'", want: "ts >= " + ms("2026-10-01T09:00:00.001Z")},
		{name: "ts sub-unit eq", in: "ts = '2026-10-01T09:00:00.0005Z'", want: "FALSE(ts)"},
		{name: "ts local wall time", in: "tsl = '2026-10-01T11:00:00+02:00'", want: "tsl = " + ms("2026-10-01T11:00:00Z") + "000"},
		{name: "time of day", in: "tod < '12:30'", want: "tod < 45000000000"},
		{name: "time fraction", in: "tod >= '00:00:01.5'", want: "tod >= 1500000"},
		{name: "between", in: "i64 BETWEEN 1.5 AND 3.5", want: "i64 >= 2 AND i64 <= 3"},
		{name: "in drops impossible", in: "i32 IN (1, 2.5, 99999999999, 1, 3)", want: "i32 IN (1, 3)"},
		{name: "in single", in: "i32 IN (2.5, 4)", want: "i32 = 4"},
		{name: "in none", in: "i32 IN (2.5)", want: "FALSE(i32)"},
		{name: "in nan", in: "f64 IN ('NaN', 1)", want: "f64 IN (1, NaN)"},
		{name: "bool", in: "b = FALSE", want: "b = FALSE"},
		{name: "bytes", in: "s >= 'abc'", want: "s >= 'abc'"},
		{name: "path", in: "a.b.c IS NOT NULL OR NOT s LIKE 'x%'", want: "a.b.c IS NOT NULL OR NOT (s LIKE 'x%')"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, mustBind(t, tc.in).String())
		})
	}
}

func Test_Bind_errors(t *testing.T) {
	tests := []struct {
		name, in string
		is       error
		want     string
	}{
		{name: "unknown column", in: "nope.x = 1", is: ErrUnknownColumn, want: `prune: unknown column "nope.x"`},
		{name: "string vs int", in: "i32 = 'abc'", is: ErrIncomparable,
			want: `prune: incomparable types: column "i32" of type INT32 cannot be compared with string literal 'abc'`},
		{name: "int vs string", in: "s = 1", is: ErrIncomparable,
			want: `prune: incomparable types: column "s" of type BYTE_ARRAY cannot be compared with integer literal 1`},
		{name: "int vs bool", in: "b = 1", is: ErrIncomparable,
			want: `prune: incomparable types: column "b" of type BOOLEAN cannot be compared with integer literal 1`},
		{name: "float vs word", in: "f64 > 'abc'", is: ErrIncomparable,
			want: `prune: incomparable types: column "f64" of type DOUBLE cannot be compared with string literal 'abc'`},
		{name: "int vs date", in: "d > 5", is: ErrIncomparable,
			want: `prune: incomparable types: column "d" of type DATE cannot be compared with integer literal 5`},
		{name: "bad date string", in: "d > '2024-13-01'", is: ErrBadLiteral,
			want: `prune: invalid literal: column "d" (DATE): '2024-13-01': date out of range`},
		{name: "bad time string", in: "tod > '25:00'", is: ErrBadLiteral,
			want: `prune: invalid literal: column "tod" (TIME(us)): '25:00': time of day out of range`},
		{name: "like on int", in: "i64 LIKE 'a%'", is: ErrIncomparable,
			want: `prune: incomparable types: column "i64" of type INT64 cannot be matched with LIKE`},
		{name: "in list bad element", in: "i64 IN (1, 'x')", is: ErrIncomparable,
			want: `prune: incomparable types: column "i64" of type INT64 cannot be compared with string literal 'x'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse(tc.in)
			require.NoError(t, err)
			_, err = Bind(e, lookupTest)
			require.ErrorIs(t, err, tc.is)
			require.Equal(t, tc.want, err.Error())
		})
	}
}

func Test_Bind_badType(t *testing.T) {
	e, err := Parse("x > '2024-01-01'")
	require.NoError(t, err)
	_, err = Bind(e, func(string) (ColumnType, bool) { return ColumnType{Kind: Timestamp}, true })
	require.ErrorIs(t, err, ErrBadType)
	require.Equal(t, `prune: unsupported column type: column "x": TIMESTAMP without a unit`, err.Error())
}

func Test_Literals(t *testing.T) {
	b := mustBind(t, "i64 BETWEEN 3 AND 7 OR (i64 IN (10, 12) AND s = 'x') OR NOT (i64 != 20)")
	var got []int64
	for _, v := range b.Literals("i64") {
		got = append(got, v.I)
	}
	require.Equal(t, []int64{3, 7, 10, 12, 20}, got)
	require.Equal(t, 1, len(b.Literals("s")))
	require.Equal(t, 0, len(b.Literals("nope")))
}
