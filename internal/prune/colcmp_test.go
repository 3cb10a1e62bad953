package prune

import (
	"math"
	"math/big"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// Test_MayMatch_columns: a comparison of two columns is ruled out where their ranges decide
// it, and kept wherever a row could make it TRUE (nulls, NaNs, inexact points, overlaps).
func Test_MayMatch_columns(t *testing.T) {
	i := func(a, b int64) ColStats { return exact(IntValue(a), IntValue(b), 0, 10) }
	inexact := func(a, b int64) ColStats {
		return ColStats{HasMin: true, HasMax: true, Min: IntValue(a), Max: IntValue(b), NullCount: 0, NumValues: 10}
	}
	f := func(a, b float64, nans int64) ColStats {
		s := exact(FloatValue(a), FloatValue(b), 0, 10)
		s.NaNCount = nans
		return s
	}
	tests := []struct {
		name, in   string
		left, righ ColStats
		noRight    bool
		want, must bool
	}{
		{name: "lt apart", in: "i32 < i64", left: i(5, 9), righ: i(1, 5), want: false},
		{name: "lt touching", in: "i32 < i64", left: i(5, 9), righ: i(1, 6), want: true},
		{name: "lt proved", in: "i32 < i64", left: i(1, 4), righ: i(5, 9), want: true, must: true},
		{name: "le touching", in: "i32 <= i64", left: i(5, 9), righ: i(1, 5), want: true},
		{name: "gt apart", in: "i32 > i64", left: i(1, 5), righ: i(5, 9), want: false},
		{name: "ge proved", in: "i32 >= i64", left: i(5, 9), righ: i(1, 5), want: true, must: true},
		{name: "eq disjoint", in: "i32 = i64", left: i(1, 4), righ: i(5, 9), want: false},
		{name: "ne one point", in: "i32 != i64", left: i(5, 5), righ: i(5, 5), want: false},
		{name: "ne inexact point", in: "i32 != i64", left: inexact(5, 5), righ: i(5, 5), want: true},
		{name: "not eq one point", in: "NOT (i32 = i64)", left: i(5, 5), righ: i(5, 5), want: false},
		{name: "no statistics on one", in: "i32 < i64", left: i(5, 9), noRight: true, want: true},
		{name: "nulls are not true", in: "i32 < i64", left: exact(IntValue(5), IntValue(9), 3, 10), righ: i(1, 5), want: false},
		{name: "all null", in: "NOT (i32 < i64)", left: exact(Value{}, Value{}, 10, 10), righ: i(1, 5), want: false},
		{name: "nan keeps ne", in: "f32 != f64", left: f(1, 1, 1), righ: f(1, 1, 0), want: true},
		{name: "nan never eq", in: "f32 = f64", left: f(1, 2, 1), righ: f(3, 4, 0), want: false},
		{name: "nan unknown count", in: "f32 < f64", left: f(5, 9, -1), righ: f(1, 2, 0), want: false},
		{name: "unsigned against signed", in: "u64 > i64", left: exact(UintValue(math.MaxUint64), UintValue(math.MaxUint64), 0, 10), righ: i(-5, 9), want: true, must: true},
		{name: "units", in: "ts < tsu", left: exact(Value{Kind: Timestamp, I: 2}, Value{Kind: Timestamp, I: 2}, 0, 1), righ: exact(Value{Kind: Timestamp, I: 1000}, Value{Kind: Timestamp, I: 2000}, 0, 1), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBind(t, tc.in)
			cols := b.Columns()
			stats := func(p string) (ColStats, bool) {
				if p == cols[0] {
					return tc.left, true
				}
				return tc.righ, !tc.noRight
			}
			require.Equal(t, tc.want, b.MayMatch(stats), b.String())
			require.Equal(t, tc.must, b.MustMatch(stats), b.String())
		})
	}
}

func Test_Bind_columns(t *testing.T) {
	for in, want := range map[string]string{
		"i32 < s":    `prune: incomparable types: column "i32" of type INT32 cannot be compared with column "s" of type BYTE_ARRAY: different kinds (INT, BYTES)`,
		"dec = decv": `prune: incomparable types: column "dec" of type DECIMAL(9,2) cannot be compared with column "decv" of type DECIMAL(30,3): decimal scales 2 and 3 differ`,
		"ts = tsl":   `prune: incomparable types: column "ts" of type TIMESTAMP(ms, UTC) cannot be compared with column "tsl" of type TIMESTAMP(us): one is adjusted to UTC and the other is not`,
		"d < ts":     `prune: incomparable types: column "d" of type DATE cannot be compared with column "ts" of type TIMESTAMP(ms, UTC): different kinds (DATE, TIMESTAMP)`,
		"i32 < nope": `prune: unknown column "nope"`,
	} {
		e, err := Parse(in)
		require.NoError(t, err)
		_, err = Bind(e, lookupTest)
		require.Equal(t, want, err.Error(), in)
	}
}

func Test_cmpScaled(t *testing.T) {
	for _, tc := range []struct{ a, pa, b, pb int64 }{
		{2, 1000, 2000, 1000000}, {2, 1000, 2001, 1000000}, {2, 1000, 1999, 1000000},
		{-2, 1000, -2000, 1000000}, {-2, 1000, -1999, 1000000}, {-2, 1000, -2001, 1000000},
		{math.MaxInt64 / 1000, 1, math.MaxInt64, 1000}, {math.MinInt64 / 1000, 1, math.MinInt64, 1000},
	} {
		// The reference in exact rationals: a/pa against b/pb.
		want := cmpRat(tc.a, tc.pa, tc.b, tc.pb)
		require.Equal(t, want, cmpScaled(tc.a, tc.pa, tc.b, tc.pb), tc)
		require.Equal(t, -want, cmpScaled(tc.b, tc.pb, tc.a, tc.pa), tc)
	}
}

func cmpRat(a, pa, b, pb int64) int {
	x, y := new(bigRat).SetFrac64(a, pa), new(bigRat).SetFrac64(b, pb)
	return x.Cmp(y)
}

type bigRat = big.Rat
