package prune

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// exact returns statistics with exact bounds and known counts.
func exact(min, max Value, nulls, values int64) ColStats {
	return ColStats{HasMin: true, HasMax: true, Min: min, Max: max, MinExact: true, MaxExact: true,
		NullCount: nulls, NumValues: values, NaNCount: 0}
}

func Test_MayMatch(t *testing.T) {
	i := func(a, b int64) ColStats { return exact(IntValue(a), IntValue(b), 0, 10) }
	f := func(a, b float64) ColStats { return exact(FloatValue(a), FloatValue(b), 0, 10) }
	str := func(a, b string) ColStats { return exact(StringValue(a), StringValue(b), 0, 10) }
	tests := []struct {
		name  string
		in    string
		stats ColStats
		want  bool
	}{
		{name: "eq inside", in: "i64 = 5", stats: i(1, 9), want: true},
		{name: "eq below", in: "i64 = 0", stats: i(1, 9), want: false},
		{name: "eq above", in: "i64 = 10", stats: i(1, 9), want: false},
		{name: "lt at min", in: "i64 < 1", stats: i(1, 9), want: false},
		{name: "le at min", in: "i64 <= 1", stats: i(1, 9), want: true},
		{name: "gt at max", in: "i64 > 9", stats: i(1, 9), want: false},
		{name: "ge at max", in: "i64 >= 9", stats: i(1, 9), want: true},
		{name: "folded fraction", in: "i64 > 8.5", stats: i(1, 8), want: false},
		{name: "ne single exact", in: "i64 != 5", stats: i(5, 5), want: false},
		{name: "ne single inexact keeps", in: "i64 != 5",
			stats: ColStats{HasMin: true, HasMax: true, Min: IntValue(5), Max: IntValue(5), NullCount: 0, NumValues: 10}, want: true},
		{name: "not eq single inexact keeps", in: "NOT (i64 = 5)",
			stats: ColStats{HasMin: true, HasMax: true, Min: IntValue(5), Max: IntValue(5), NullCount: 0, NumValues: 10}, want: true},
		{name: "ne single with nulls", in: "i64 != 5", stats: exact(IntValue(5), IntValue(5), 3, 10), want: false},
		{name: "ne range", in: "i64 != 5", stats: i(4, 5), want: true},
		{name: "in misses", in: "i64 IN (0, 10, 20)", stats: i(1, 9), want: false},
		{name: "in hits", in: "i64 IN (0, 9)", stats: i(1, 9), want: true},
		{name: "not in single", in: "i64 NOT IN (5, 6)", stats: i(5, 5), want: false},
		{name: "between outside", in: "i64 BETWEEN 10 AND 20", stats: i(1, 9), want: false},
		{name: "not between inside", in: "i64 NOT BETWEEN 0 AND 10", stats: i(1, 9), want: false},
		{name: "not gt", in: "NOT (i64 > 0)", stats: i(1, 9), want: false},
		{name: "not gt may", in: "NOT (i64 > 5)", stats: i(1, 9), want: true},
		{name: "not gt nulls only unknown", in: "NOT (i64 > 0)", stats: exact(IntValue(1), IntValue(9), 4, 10), want: false},
		{name: "is null no nulls", in: "i64 IS NULL", stats: i(1, 9), want: false},
		{name: "is null unknown count", in: "i64 IS NULL", stats: ColStats{NullCount: -1, NumValues: -1, NaNCount: -1}, want: true},
		{name: "is null some", in: "i64 IS NULL", stats: exact(IntValue(1), IntValue(9), 1, 10), want: true},
		{name: "is not null all null", in: "i64 IS NOT NULL", stats: ColStats{NullCount: 10, NumValues: 10, NaNCount: -1}, want: false},
		{name: "all null prunes comparison", in: "i64 != 3", stats: ColStats{NullCount: 10, NumValues: 10, NaNCount: -1}, want: false},
		{name: "all null not comparison", in: "NOT (i64 = 3)", stats: ColStats{NullCount: 10, NumValues: 10, NaNCount: -1}, want: false},
		{name: "all null or is null", in: "i64 = 3 OR i64 IS NULL", stats: ColStats{NullCount: 10, NumValues: 10, NaNCount: -1}, want: true},
		{name: "missing max", in: "i64 > 100", stats: ColStats{HasMin: true, Min: IntValue(1), NullCount: 0, NumValues: 10}, want: true},
		{name: "missing min", in: "i64 > 100", stats: ColStats{HasMax: true, Max: IntValue(9), NullCount: 0, NumValues: 10}, want: false},
		{name: "wrong kind unknown", in: "i64 > 100", stats: exact(UintValue(1), UintValue(9), 0, 10), want: true},
		{name: "inverted bounds unknown", in: "i64 = 5", stats: i(9, 1), want: true},
		{name: "const false", in: "i32 > 99999999999", stats: exact(IntValue(1), IntValue(9), 0, 10), want: false},
		{name: "const true", in: "i32 < 99999999999", stats: exact(IntValue(1), IntValue(9), 0, 10), want: true},
		{name: "const true all null", in: "i32 < 99999999999", stats: ColStats{NullCount: 3, NumValues: 3}, want: false},
		{name: "float nan bound unknown", in: "f64 > 100", stats: exact(FloatValue(math.NaN()), FloatValue(9), 0, 10), want: true},
		{name: "float nan literal never prunes", in: "f64 = 'NaN'", stats: f(1, 9), want: true},
		{name: "float range prunes", in: "f64 > 100", stats: f(1, 9), want: false},
		{name: "float not with nan possible", in: "NOT (f64 > 0)",
			stats: ColStats{HasMin: true, HasMax: true, Min: FloatValue(1), Max: FloatValue(9), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 10, NaNCount: -1}, want: true},
		{name: "float not without nan", in: "NOT (f64 > 0)", stats: f(1, 9), want: false},
		{name: "float ne nan values", in: "f64 != 1",
			stats: ColStats{HasMin: true, HasMax: true, Min: FloatValue(1), Max: FloatValue(1), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 10, NaNCount: 2}, want: true},
		{name: "float zero signs", in: "f64 = 0", stats: f(math.Copysign(0, -1), math.Copysign(0, -1)), want: true},
		{name: "only NaN: comparisons false", in: "f64 > 1 OR f64 = 0 OR f64 IN (1, 2)", stats: ColStats{NullCount: 0, NumValues: 10, NaNCount: 10, OnlyNaN: true}, want: false},
		{name: "only NaN: != true", in: "f64 != 1", stats: ColStats{NullCount: 0, NumValues: 10, NaNCount: 10, OnlyNaN: true}, want: true},
		{name: "only NaN: NaN literal unknown", in: "f64 = 'NaN'", stats: ColStats{NullCount: 0, NumValues: 10, NaNCount: 10, OnlyNaN: true}, want: true},
		{name: "like prefix inside", in: "s LIKE 'ab%'", stats: str("aa", "b"), want: true},
		{name: "like prefix below", in: "s LIKE 'ab%'", stats: str("ac", "b"), want: false},
		{name: "like prefix above", in: "s LIKE 'ab%'", stats: str("a", "aaz"), want: false},
		{name: "like prefix truncated max", in: "s LIKE 'ab%'",
			stats: ColStats{HasMin: true, HasMax: true, Min: StringValue("a"), Max: StringValue("ab"), NullCount: 0, NumValues: 1}, want: true},
		{name: "like ff prefix", in: "s LIKE '\xff%'", stats: str("a", "\xfe"), want: false},
		{name: "like leading wildcard", in: "s LIKE '%z'", stats: str("a", "b"), want: true},
		{name: "not like", in: "s NOT LIKE 'ab%'", stats: str("ab", "ab"), want: true},
		{name: "bytes unsigned order", in: "s > 'z'", stats: str("a", "\xe9"), want: true},
		{name: "and prunes on one side", in: "i64 > 100 AND s = 'x'", stats: i(1, 9), want: false},
		{name: "or needs both", in: "i64 > 100 OR i64 < 0", stats: i(1, 9), want: false},
		{name: "or keeps", in: "i64 > 100 OR i64 < 2", stats: i(1, 9), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBind(t, tc.in)
			got := b.MayMatch(func(p string) (ColStats, bool) {
				if p == "s" && tc.stats.Min.Kind != Bytes && tc.stats.HasMin {
					return ColStats{}, false // other columns: no statistics
				}
				return tc.stats, true
			})
			require.Equal(t, tc.want, got, b.String())
		})
	}
}

// Test_MustMatch: statistics prove that every row matches only when no row can be FALSE or
// NULL (a count answered from metadata relies on it).
func Test_MustMatch(t *testing.T) {
	i := func(a, b int64) ColStats { return exact(IntValue(a), IntValue(b), 0, 10) }
	inexact := ColStats{HasMin: true, HasMax: true, Min: IntValue(5), Max: IntValue(5), NullCount: 0, NumValues: 10, NaNCount: 0}
	tests := []struct {
		name  string
		in    string
		stats ColStats
		want  bool
	}{
		{name: "eq point", in: "i64 = 5", stats: i(5, 5), want: true},
		{name: "eq point inexact", in: "i64 = 5", stats: inexact, want: false},
		{name: "eq range", in: "i64 = 5", stats: i(4, 5), want: false},
		{name: "eq point with nulls", in: "i64 = 5", stats: exact(IntValue(5), IntValue(5), 1, 10), want: false},
		{name: "eq point unknown nulls", in: "i64 = 5", stats: ColStats{HasMin: true, HasMax: true, Min: IntValue(5), Max: IntValue(5), MinExact: true, MaxExact: true, NullCount: -1, NumValues: 10}, want: false},
		{name: "gt all", in: "i64 > 0", stats: i(1, 9), want: true},
		{name: "gt inexact bounds still bound", in: "i64 > 4", stats: inexact, want: true},
		{name: "gt at min", in: "i64 > 1", stats: i(1, 9), want: false},
		{name: "ge at min", in: "i64 >= 1", stats: i(1, 9), want: true},
		{name: "lt all", in: "i64 < 10", stats: i(1, 9), want: true},
		{name: "le at max", in: "i64 <= 9", stats: i(1, 9), want: true},
		{name: "between covers", in: "i64 BETWEEN 1 AND 9", stats: i(1, 9), want: true},
		{name: "between partly", in: "i64 BETWEEN 2 AND 9", stats: i(1, 9), want: false},
		{name: "ne outside", in: "i64 != 10", stats: i(1, 9), want: true},
		{name: "ne inside", in: "i64 != 5", stats: i(1, 9), want: false},
		{name: "in point", in: "i64 IN (3, 5)", stats: i(5, 5), want: true},
		{name: "in range", in: "i64 IN (1, 9)", stats: i(1, 9), want: false},
		{name: "not in outside", in: "i64 NOT IN (0, 10)", stats: i(1, 9), want: true},
		{name: "is null all null", in: "i64 IS NULL", stats: ColStats{NullCount: 10, NumValues: 10, NaNCount: -1}, want: true},
		{name: "is null some", in: "i64 IS NULL", stats: exact(IntValue(1), IntValue(9), 1, 10), want: false},
		{name: "is not null none null", in: "i64 IS NOT NULL", stats: i(1, 9), want: true},
		{name: "is not null unknown", in: "i64 IS NOT NULL", stats: ColStats{NullCount: -1, NumValues: 10, NaNCount: -1}, want: false},
		{name: "and both", in: "i64 > 0 AND i64 < 10", stats: i(1, 9), want: true},
		{name: "and one side", in: "i64 > 0 AND i64 < 5", stats: i(1, 9), want: false},
		{name: "or one side", in: "i64 > 100 OR i64 < 10", stats: i(1, 9), want: true},
		{name: "not", in: "NOT (i64 > 9)", stats: i(1, 9), want: true},
		{name: "const true", in: "i32 < 99999999999", stats: exact(IntValue(1), IntValue(9), 0, 10), want: true},
		{name: "const true with nulls", in: "i32 < 99999999999", stats: exact(IntValue(1), IntValue(9), 2, 10), want: false},
		{name: "float nan unknown", in: "f64 > 0", stats: ColStats{HasMin: true, HasMax: true, Min: FloatValue(1), Max: FloatValue(9), MinExact: true, MaxExact: true, NullCount: 0, NumValues: 10, NaNCount: -1}, want: false},
		{name: "float no nan", in: "f64 > 0", stats: exact(FloatValue(1), FloatValue(9), 0, 10), want: true},
		{name: "float nan literal", in: "f64 != 'NaN'", stats: exact(FloatValue(1), FloatValue(9), 0, 10), want: false},
		{name: "float zero signs", in: "f64 = 0", stats: exact(FloatValue(math.Copysign(0, -1)), FloatValue(0), 0, 10), want: true},
		{name: "like prefix", in: "s LIKE 'ab%'", stats: exact(StringValue("ab"), StringValue("abz"), 0, 10), want: false},
		{name: "no stats", in: "i64 > 0", stats: ColStats{NullCount: -1, NumValues: -1, NaNCount: -1}, want: false},
		{name: "only NaN: != holds", in: "f64 != 1", stats: ColStats{NullCount: 0, NumValues: 10, NaNCount: 10, OnlyNaN: true}, want: true},
		{name: "only NaN: > fails", in: "f64 > 1", stats: ColStats{NullCount: 0, NumValues: 10, NaNCount: 10, OnlyNaN: true}, want: false},
		{name: "only NaN with nulls: != may be null", in: "f64 != 1", stats: ColStats{NullCount: 2, NumValues: 10, NaNCount: 8, OnlyNaN: true}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBind(t, tc.in)
			got := b.MustMatch(func(string) (ColStats, bool) { return tc.stats, true })
			require.Equal(t, tc.want, got, b.String())
		})
	}
	require.True(t, !mustBind(t, "i64 > 0").MustMatch(func(string) (ColStats, bool) { return ColStats{}, false }))
}

func Test_MayMatch_noStats(t *testing.T) {
	b := mustBind(t, "i64 > 100 AND i64 IS NULL")
	require.True(t, b.MayMatch(func(string) (ColStats, bool) { return ColStats{}, false }))
}

func Test_MayMatchDict(t *testing.T) {
	dictS := &Vector{Kind: Bytes, Len: 3, Offsets: []int32{0, 3, 6, 9}, Data: []byte("fooBarbaz")}
	dictI := &Vector{Kind: Int, Len: 3, I32: []int32{1, 5, 9}}
	tests := []struct {
		name  string
		in    string
		col   string
		dict  *Vector
		nulls bool
		want  bool
	}{
		{name: "eq present", in: "s = 'Bar'", col: "s", dict: dictS, want: true},
		{name: "eq absent", in: "s = 'bar'", col: "s", dict: dictS, want: false},
		{name: "in absent", in: "s IN ('a', 'b')", col: "s", dict: dictS, want: false},
		{name: "like", in: "s LIKE '%a_'", col: "s", dict: dictS, want: true},
		{name: "like absent", in: "s LIKE 'x%'", col: "s", dict: dictS, want: false},
		{name: "range between entries", in: "i64 > 5 AND i64 < 9", col: "i64", dict: dictI, want: false},
		{name: "same column or", in: "i64 = 2 OR i64 = 9", col: "i64", dict: dictI, want: true},
		{name: "not all equal", in: "NOT (i64 IN (1, 5, 9))", col: "i64", dict: dictI, want: false},
		{name: "is null without nulls", in: "i64 IS NULL", col: "i64", dict: dictI, want: false},
		{name: "is null with nulls", in: "i64 IS NULL", col: "i64", dict: dictI, nulls: true, want: true},
		{name: "not eq with nulls only", in: "NOT (i64 < 100)", col: "i64", dict: dictI, nulls: true, want: false},
		{name: "other column unknown", in: "i64 = 2 OR s = 'x'", col: "i64", dict: dictI, want: true},
		{name: "other column and", in: "i64 = 2 AND s = 'x'", col: "i64", dict: dictI, want: false},
		{name: "column not used", in: "s = 'x'", col: "i64", dict: dictI, want: true},
		{name: "wrong kind dict unknown", in: "s = 'x'", col: "s", dict: dictI, want: true},
		{name: "short dict unknown", in: "i64 = 2", col: "i64", dict: &Vector{Kind: Int, Len: 4, I32: []int32{1}}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, mustBind(t, tc.in).MayMatchDict(tc.col, tc.dict, tc.nulls))
		})
	}
}

// Test_valueJSON: a value crosses the wasm boundary as JSON unchanged, NaN and ±Inf too.
func Test_valueJSON(t *testing.T) {
	for _, v := range []Value{FloatValue(math.NaN()), FloatValue(math.Inf(1)), FloatValue(math.Inf(-1)), FloatValue(-0.5),
		IntValue(-3), BytesValue([]byte("x")), DecimalInt64(1420)} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		var got Value
		require.NoError(t, json.Unmarshal(b, &got))
		if math.IsNaN(v.F) {
			require.True(t, math.IsNaN(got.F), string(b))
			continue
		}
		require.Equal(t, v, got, string(b))
	}
	var v Value
	require.Error(t, json.Unmarshal([]byte(`{"Kind":3,"F":"1.5"}`), &v))
}
