package iceberg

import (
	"encoding/hex"
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_BucketHash checks the spec's Appendix B hash test vectors.
func Test_BucketHash(t *testing.T) {
	uuid, _ := hex.DecodeString("f79c3e09677c4bbda4793f349cb785e7")
	tests := []struct {
		name string
		typ  string
		v    prune.Value
		want int32
	}{
		{name: "int", typ: "int", v: prune.IntValue(34), want: 2017239379},
		{name: "long", typ: "long", v: prune.IntValue(34), want: 2017239379},
		{name: "decimal 14.20", typ: "decimal(4,2)", v: prune.DecimalInt64(1420), want: -500754589},
		{name: "decimal as bytes", typ: "decimal(4,2)", v: prune.DecimalBytes([]byte{0, 0, 0x05, 0x8c}), want: -500754589},
		{name: "date 2017-11-16", typ: "date", v: prune.DateValue(17486), want: -653330422},
		{name: "time 22:31:08", typ: "time", v: prune.TimeValue(81068000000), want: -662762989},
		{name: "timestamp", typ: "timestamp", v: prune.TimestampValue(1510871468000000), want: -2047944441},
		{name: "timestamptz", typ: "timestamptz", v: prune.TimestampValue(1510871468000000), want: -2047944441},
		{name: "timestamp_ns", typ: "timestamp_ns", v: prune.TimestampValue(1510871468000001001), want: -1207196810},
		{name: "string", typ: "string", v: prune.StringValue("iceberg"), want: 1210000089},
		{name: "uuid", typ: "uuid", v: prune.BytesValue(uuid), want: 1488055340},
		{name: "binary", typ: "binary", v: prune.BytesValue([]byte{0, 1, 2, 3}), want: -188683207},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := BucketHash(tc.typ, tc.v)
			require.True(t, ok)
			require.Equal(t, tc.want, h)
		})
	}
	_, ok := BucketHash("double", prune.FloatValue(1))
	require.True(t, !ok)
	b, _ := Bucket(100, "int", prune.IntValue(34))
	require.Equal(t, int64(2017239379%100), b)
}

func Test_bigToMinTwos(t *testing.T) {
	tests := []struct {
		name string
		v    int64
		want string
	}{
		{name: "zero", v: 0, want: "00"},
		{name: "127", v: 127, want: "7f"},
		{name: "128", v: 128, want: "0080"},
		{name: "-1", v: -1, want: "ff"},
		{name: "-128", v: -128, want: "80"},
		{name: "-129", v: -129, want: "ff7f"},
		{name: "1420", v: 1420, want: "058c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := prune.DecimalInt64(tc.v)
			h1, _ := BucketHash("decimal(9,2)", d)
			b, _ := hex.DecodeString(tc.want)
			require.Equal(t, murmur3(b), h1)
		})
	}
}

func Test_ParseTransform(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Transform
	}{
		{name: "identity", in: "identity", want: Transform{Name: "identity"}},
		{name: "bucket", in: "bucket[16]", want: Transform{Name: "bucket", N: 16}},
		{name: "truncate", in: "truncate[4]", want: Transform{Name: "truncate", N: 4}},
		{name: "zero width", in: "truncate[0]", want: Transform{Name: "malformed truncate[0]"}},
		{name: "no bracket", in: "bucket[16", want: Transform{Name: "malformed bucket[16"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, ParseTransform(tc.in))
		})
	}
}

func Test_SourceBounds(t *testing.T) {
	i := func(v int64) *prune.Value { x := prune.IntValue(v); return &x }
	d := func(v int32) *prune.Value { x := prune.DateValue(v); return &x }
	s := func(v string) *prune.Value { x := prune.StringValue(v); return &x }
	const day = int64(86400e6)
	tests := []struct {
		name     string
		tr       string
		typ      string
		lo, hi   *prune.Value
		min, max *prune.Value // nil: no bound
		exact    bool
	}{
		{name: "identity", tr: "identity", typ: "int", lo: i(5), hi: i(7), min: i(5), max: i(7), exact: true},
		{name: "identity lower only", tr: "identity", typ: "long", lo: i(5), min: i(5), exact: true},
		{name: "day of timestamp", tr: "day", typ: "timestamptz", lo: d(1), hi: d(2),
			min: &prune.Value{Kind: prune.Timestamp, I: day}, max: &prune.Value{Kind: prune.Timestamp, I: 3*day - 1}},
		{name: "day as int", tr: "day", typ: "timestamp", lo: i(-1), hi: i(-1),
			min: &prune.Value{Kind: prune.Timestamp, I: -day}, max: &prune.Value{Kind: prune.Timestamp, I: -1}},
		{name: "day of timestamp_ns", tr: "day", typ: "timestamp_ns", lo: d(1), hi: d(1),
			min: &prune.Value{Kind: prune.Timestamp, I: day * 1000}, max: &prune.Value{Kind: prune.Timestamp, I: 2*day*1000 - 1}},
		{name: "hour", tr: "hour", typ: "timestamp", lo: i(25), hi: i(25),
			min: &prune.Value{Kind: prune.Timestamp, I: 25 * 3600e6}, max: &prune.Value{Kind: prune.Timestamp, I: 26*3600e6 - 1}},
		{name: "hour of date", tr: "hour", typ: "date", lo: i(25), hi: i(25)},
		{name: "month of date", tr: "month", typ: "date", lo: i(1), hi: i(13), min: d(31), max: d(365 + 58)},
		{name: "year of date", tr: "year", typ: "date", lo: i(-1), hi: i(0), min: d(-365), max: d(364)},
		{name: "year of timestamp", tr: "year", typ: "timestamp", lo: i(1), hi: i(1),
			min: &prune.Value{Kind: prune.Timestamp, I: 365 * day}, max: &prune.Value{Kind: prune.Timestamp, I: 730*day - 1}},
		{name: "year beyond range", tr: "year", typ: "timestamp", lo: i(1 << 40)},
		{name: "truncate int", tr: "truncate[10]", typ: "int", lo: i(-10), hi: i(20), min: i(-10), max: i(29)},
		{name: "truncate string", tr: "truncate[2]", typ: "string", lo: s("ab"), hi: s("a\xff"), min: s("ab"), max: s("b")},
		{name: "truncate string all 0xff", tr: "truncate[1]", typ: "string", lo: s("\xff"), hi: s("\xff"), min: s("\xff")},
		{name: "bucket bounds nothing", tr: "bucket[4]", typ: "int", lo: i(1), hi: i(2)},
		{name: "void", tr: "void", typ: "int", lo: i(1), hi: i(2)},
		{name: "unknown transform", tr: "zorder", typ: "int", lo: i(1), hi: i(2)},
		{name: "uuid has no type", tr: "identity", typ: "uuid", lo: s("x"), hi: s("x")},
		{name: "kind mismatch", tr: "identity", typ: "string", lo: i(1), hi: i(1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SourceBounds(ParseTransform(tc.tr), tc.typ, tc.lo, tc.hi)
			require.Equal(t, tc.min != nil, got.HasMin)
			require.Equal(t, tc.max != nil, got.HasMax)
			if tc.min != nil {
				require.Equal(t, *tc.min, got.Min)
			}
			if tc.max != nil {
				require.Equal(t, *tc.max, got.Max)
			}
			require.Equal(t, tc.exact, got.MinExact)
			require.Equal(t, int64(-1), got.NullCount)
		})
	}
}
