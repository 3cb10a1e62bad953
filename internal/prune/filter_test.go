package prune

import (
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// filterVecs holds five rows of every test column (shared with FuzzParse).
func filterVecs() map[string]*Vector {
	nan := math.NaN()
	return map[string]*Vector{
		// rows:                       0     1     2     3(null) 4
		"i32":  {Kind: Int, Len: 5, I32: []int32{-2, 0, 3, 7, 2147483647}, Valid: []byte{0b10111}},
		"i64":  {Kind: Int, Len: 5, I64: []int64{-2, 0, 3, 7, 9}},
		"u32":  {Kind: Uint, Len: 5, U32: []uint32{0, 1, 4294967295, 3, 4}},
		"u64":  {Kind: Uint, Len: 5, U64: []uint64{0, 1, math.MaxUint64, 3, 4}},
		"f64":  {Kind: Float, Len: 5, F64: []float64{nan, -1, 0, math.Inf(1), 2.5}},
		"f32":  {Kind: Float, Len: 5, F32: []float32{0.1, -1, float32(math.Copysign(0, -1)), 1, 2.5}},
		"s":    {Kind: Bytes, Len: 5, Offsets: []int32{0, 0, 3, 6, 10, 12}, Data: []byte("abcabdxyé\xff\xff")},
		"fix":  {Kind: Bytes, Len: 5, Width: 3, Data: []byte("aaaabcabdzzz\xff\xff\xff")},
		"b":    {Kind: Bool, Len: 5, Bools: []byte{0b01010}, Valid: []byte{0b01111}},
		"dec":  {Kind: Decimal, Len: 5, I64: []int64{-150, 0, 100, 101, 1200}},
		"decb": {Kind: Decimal, Len: 5, Width: 2, Data: []byte{0xFF, 0xFE, 0, 0, 0x7F, 0xFF, 0x80, 0x00, 0, 5}},
		"decv": {Kind: Decimal, Len: 5, Offsets: []int32{0, 1, 2, 4, 13, 13}, Data: append([]byte{0xFF, 0x01, 0x03, 0xE8}, 0x01, 0, 0, 0, 0, 0, 0, 0, 0)},
		"d":    {Kind: Date, Len: 5, I32: []int32{19722, 19723, 19724, 0, -1}},
		"ts":   {Kind: Timestamp, Len: 5, I64: []int64{0, 1000, 1790845200000, 1790845200001, -1}},
		"tod":  {Kind: Time, Len: 5, I64: []int64{0, 1500000, 45000000000, 86399999999, 1}},
	}
}

func Test_Filter(t *testing.T) {
	vecs := filterVecs()
	tests := []struct {
		name string
		in   string
		want []bool
	}{
		{name: "int32 lt with null", in: "i32 < 5", want: []bool{true, true, true, false, false}},
		{name: "not keeps null unknown", in: "NOT (i32 < 5)", want: []bool{false, false, false, false, true}},
		{name: "is null", in: "i32 IS NULL", want: []bool{false, false, false, true, false}},
		{name: "null or true", in: "i32 = 100 OR i64 = 7", want: []bool{false, false, false, true, false}},
		{name: "folded const true keeps non-null", in: "i32 < 99999999999", want: []bool{true, true, true, false, true}},
		{name: "folded const under not", in: "NOT (i32 = 2.5)", want: []bool{true, true, true, false, true}},
		{name: "int64 fraction", in: "i64 > 2.5", want: []bool{false, false, true, true, true}},
		{name: "uint32 max", in: "u32 >= 4294967295", want: []bool{false, false, true, false, false}},
		{name: "uint64 max", in: "u64 = 18446744073709551615", want: []bool{false, false, true, false, false}},
		{name: "uint negative", in: "u64 > -1", want: []bool{true, true, true, true, true}},
		{name: "nan eq false", in: "f64 = 'NaN'", want: []bool{false, false, false, false, false}},
		{name: "nan ne true", in: "f64 != 1", want: []bool{true, true, true, true, true}},
		{name: "nan lt false", in: "f64 < 100", want: []bool{false, true, true, false, true}},
		{name: "inf", in: "f64 >= 'Inf'", want: []bool{false, false, false, true, false}},
		{name: "negative zero equals zero", in: "f32 = 0", want: []bool{false, false, true, false, false}},
		{name: "float32 literal cast", in: "f32 = 0.1", want: []bool{true, false, false, false, false}},
		{name: "float in", in: "f64 IN (2.5, 'NaN', -1)", want: []bool{false, true, false, false, true}},
		{name: "bytes order unsigned", in: "s > 'xy'", want: []bool{false, false, false, true, true}},
		{name: "bytes empty", in: "s = ''", want: []bool{true, false, false, false, false}},
		{name: "like prefix", in: "s LIKE 'ab%'", want: []bool{false, true, true, false, false}},
		{name: "ilike prefix", in: "s ILIKE 'AB%'", want: []bool{false, true, true, false, false}},
		{name: "ilike non-ascii", in: "s ILIKE '%YÉ'", want: []bool{false, false, false, true, false}},
		{name: "ilike underscore", in: "s ILIKE 'XY_'", want: []bool{false, false, false, true, false}},
		{name: "not ilike", in: "NOT (s ILIKE 'ABC')", want: []bool{true, false, true, true, true}},
		{name: "ilike fixed width", in: "fix ILIKE 'ABD'", want: []bool{false, false, true, false, false}},
		{name: "bare boolean", in: "b", want: []bool{false, true, false, true, false}},
		{name: "two columns, null unknown", in: "i32 < i64", want: []bool{false, false, false, false, false}},
		{name: "two columns, not", in: "NOT (i32 < i64)", want: []bool{true, true, true, false, true}},
		{name: "two columns equal", in: "i32 = i64", want: []bool{true, true, true, false, false}},
		{name: "signed against unsigned", in: "i64 < u64", want: []bool{true, true, true, false, false}},
		{name: "unsigned against signed", in: "u32 > i32", want: []bool{true, true, true, false, false}},
		{name: "nan against number", in: "f64 != f32 AND NOT (f64 = f32)", want: []bool{true, false, false, true, false}},
		{name: "float32 widened exactly", in: "f32 < f64", want: []bool{false, false, false, true, false}},
		{name: "bytes columns", in: "s < fix", want: []bool{true, false, false, true, true}},
		{name: "not bare boolean keeps null unknown", in: "NOT b", want: []bool{true, false, true, false, false}},
		{name: "is not true takes null", in: "b IS NOT TRUE", want: []bool{true, false, true, false, true}},
		{name: "not is true takes null", in: "NOT (b IS TRUE)", want: []bool{true, false, true, false, true}},
		{name: "is false", in: "b IS FALSE", want: []bool{true, false, true, false, false}},
		{name: "is distinct from", in: "i32 IS DISTINCT FROM 3", want: []bool{true, true, false, true, true}},
		{name: "not is not distinct from", in: "NOT (i32 IS NOT DISTINCT FROM 3)", want: []bool{true, true, false, true, true}},
		{name: "like underscore is a character", in: "s LIKE 'x_'", want: []bool{false, false, false, false, false}},
		{name: "like underscore multibyte", in: "s LIKE 'xy_'", want: []bool{false, false, false, true, false}},
		{name: "like invalid bytes", in: "s LIKE '__'", want: []bool{false, false, false, false, true}},
		{name: "fixed width", in: "fix >= 'abd'", want: []bool{false, false, true, true, true}},
		{name: "bool", in: "b = TRUE", want: []bool{false, true, false, true, false}},
		{name: "bool null", in: "b = FALSE OR b IS NULL", want: []bool{true, false, true, false, true}},
		{name: "decimal int storage", in: "dec >= 1.005", want: []bool{false, false, false, true, true}},
		{name: "decimal int storage eq", in: "dec IN (-1.5, 12)", want: []bool{true, false, false, false, true}},
		{name: "decimal flba", in: "decb < 0", want: []bool{true, false, false, true, false}},
		{name: "decimal flba eq", in: "decb = 32767", want: []bool{false, false, true, false, false}},
		{name: "decimal varlen", in: "decv > 1000", want: []bool{false, false, false, true, false}},
		{name: "decimal varlen empty is zero", in: "decv = 0", want: []bool{false, false, false, false, true}},
		{name: "date", in: "d BETWEEN '2024-01-01' AND DATE '2024-01-02'", want: []bool{false, true, true, false, false}},
		{name: "timestamp", in: "ts >= '2026-10-01T11:00:00+02:00'", want: []bool{false, false, true, true, false}},
		{name: "time", in: "tod > '00:00:01'", want: []bool{false, true, true, true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBind(t, tc.in)
			sel := make([]bool, 6)
			sel[5] = true // beyond n: untouched
			err := b.Filter(func(p string) *Vector { return vecs[p] }, 5, sel)
			require.NoError(t, err)
			require.Equal(t, append(tc.want, true), sel, b.String())
		})
	}
}

func Test_Filter_errors(t *testing.T) {
	b := mustBind(t, "s = 'a'")
	tests := []struct {
		name string
		vec  *Vector
		n    int
		want string
	}{
		{name: "missing", vec: nil, n: 1, want: `prune: invalid vector: column "s": missing`},
		{name: "wrong kind", vec: &Vector{Kind: Int, Len: 1, I64: []int64{1}}, n: 1, want: `prune: invalid vector: column "s": kind INT, column is BYTES`},
		{name: "short", vec: &Vector{Kind: Bytes, Len: 1, Offsets: []int32{0, 1}, Data: []byte("a")}, n: 2, want: `prune: invalid vector: column "s": Len 1 < 2 rows`},
		{name: "decreasing offsets", vec: &Vector{Kind: Bytes, Len: 2, Offsets: []int32{0, 2, 1}, Data: []byte("ab")}, n: 2, want: `prune: invalid vector: column "s": offsets decrease at 2`},
		{name: "offset beyond data", vec: &Vector{Kind: Bytes, Len: 1, Offsets: []int32{0, 5}, Data: []byte("ab")}, n: 1, want: `prune: invalid vector: column "s": offset 5 beyond Data (2 bytes)`},
		{name: "short bitmap", vec: &Vector{Kind: Bytes, Len: 9, Offsets: make([]int32, 10), Valid: []byte{1}}, n: 9, want: `prune: invalid vector: column "s": validity bitmap has 1 bytes, need 2`},
		{name: "no storage", vec: &Vector{Kind: Bytes, Len: 1}, n: 1, want: `prune: invalid vector: column "s": no BYTES storage with 1 elements`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := b.Filter(func(string) *Vector { return tc.vec }, tc.n, make([]bool, tc.n))
			require.ErrorIs(t, err, ErrVector)
			require.Equal(t, tc.want, err.Error())
		})
	}
	err := b.Filter(func(string) *Vector { return nil }, 3, make([]bool, 2))
	require.ErrorIs(t, err, ErrVector)
}

func Test_likeMatch(t *testing.T) {
	tests := []struct {
		name, p, s string
		want       bool
	}{
		{name: "exact", p: "abc", s: "abc", want: true},
		{name: "percent empty", p: "%", s: "", want: true},
		{name: "underscore needs one", p: "_", s: "", want: false},
		{name: "backtrack", p: "%a%b%c", s: "xxaxxbxxbc", want: true},
		{name: "suffix", p: "%bc", s: "abcbd", want: false},
		{name: "multibyte underscore", p: "a_c", s: "aéc", want: true},
		{name: "two underscores one rune", p: "a__c", s: "aéc", want: false},
		{name: "partial rune literal", p: "%\xa9", s: "é", want: false},
		{name: "contains", p: "%zz%", s: "xxzzy", want: true},
		{name: "contains none", p: "%zz%", s: "xzxz", want: false},
		{name: "prefix and suffix overlap", p: "ab%ba", s: "aba", want: false},
		{name: "segments in order", p: "%b%a%", s: "ab", want: false},
		{name: "multibyte segment", p: "%é%", s: "caféx", want: true},
		{name: "literal inside a character", p: "%\x82\xac%", s: "€", want: false},
		{name: "invalid string bytes", p: "%abc", s: "\xe2abc", want: true},
		{name: "empty pattern", p: "", s: "", want: true},
		{name: "only percents", p: "%%", s: "xyz", want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, likeMatch([]byte(tc.p), []byte(tc.s)))
			require.Equal(t, tc.want, refLike(chars([]byte(tc.p)), chars([]byte(tc.s))))
			if segs := likeSegments([]byte(tc.p)); segs != nil {
				require.Equal(t, tc.want, likeSegs(segs, []byte(tc.s)))
			}
		})
	}
}

// FuzzLikeSegs checks the byte-search matcher against the character matcher and the
// reference on every pattern it takes.
func FuzzLikeSegs(f *testing.F) {
	for _, s := range [][2]string{{"%zz%", "xxzzy"}, {"ab%ba", "aba"}, {"%é%", "caféx"}, {"%\xa9", "é"}, {"%\x82\xac%", "€"}, {"a%%b", "a\xffb"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		segs := likeSegments([]byte(p))
		if segs == nil {
			return
		}
		want := likeMatch([]byte(p), []byte(s))
		if got := likeSegs(segs, []byte(s)); got != want {
			t.Fatalf("LIKE %q on %q: segments say %v, likeMatch %v", p, s, got, want)
		}
		if len(p) < 12 && len(s) < 12 && refLike(chars([]byte(p)), chars([]byte(s))) != want {
			t.Fatalf("LIKE %q on %q: reference disagrees with %v", p, s, want)
		}
	})
}
