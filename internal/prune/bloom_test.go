package prune

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

func Test_XXH64(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want uint64
	}{
		{name: "empty", in: "", want: 0xEF46DB3751D8E999},
		{name: "one byte", in: "a", want: 0xD24EC4F1A98C6E5B},
		{name: "three bytes", in: "abc", want: 0x44BC2CF5AD770999},
		{name: "39 bytes (stripes + tail)", in: "Nobody inspects the spammish repetition", want: 0xFBCEA83C8A378BF1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, XXH64([]byte(tc.in)))
		})
	}
}

// readBloomFile parses the minimal Thrift compact BloomFilterHeader of parquet-testing's
// bloom_filter.xxhash.bin (numBytes i32 as field 1, then algorithm/hash/compression unions
// of empty structs) and returns the bitset that follows.
func readBloomFile(t *testing.T) []byte {
	b, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "parquet-testing", "data", "bloom_filter.xxhash.bin"))
	require.NoError(t, err)
	require.Equal(t, byte(0x15), b[0], "field 1, i32")
	var zz uint64
	i := 1
	for shift := 0; ; shift += 7 {
		zz |= uint64(b[i]&0x7f) << shift
		i++
		if b[i-1]&0x80 == 0 {
			break
		}
	}
	numBytes := int(int32(zz>>1) ^ -int32(zz&1))
	// Three fields, each a struct (type 0xC) holding one empty struct: 1c 1c 00 00; then stop.
	for f := 0; f < 3; f++ {
		require.Equal(t, []byte{0x1c, 0x1c, 0x00, 0x00}, b[i:i+4])
		i += 4
	}
	require.Equal(t, byte(0), b[i])
	i++
	require.Equal(t, numBytes, len(b)-i)
	return b[i:]
}

func Test_SBBF_parquetTesting(t *testing.T) {
	bits := readBloomFile(t)
	for _, w := range []string{"hello", "parquet", "bloom", "filter"} {
		require.True(t, SBBFContains(bits, XXH64([]byte(w))), w)
	}
	absent := 0
	for _, w := range []string{"world", "arrow", "Hello", "", "bloom filter", "x", "pqscan", "parque"} {
		if !SBBFContains(bits, XXH64([]byte(w))) {
			absent++
		}
	}
	// 1024 bytes holding 4 values: false positives are rare; most of these must be proved absent.
	require.True(t, absent >= 6, absent)

	// Through the predicate: s = 'hello' may match, s = 'world' cannot, s IN ('world','arrow')
	// cannot, and NOT (s = 'world') may.
	contains := func(h uint64) bool { return SBBFContains(bits, h) }
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "present", in: "s = 'hello'", want: true},
		{name: "absent", in: "s = 'world'", want: false},
		{name: "in absent", in: "s IN ('world', 'arrow')", want: false},
		{name: "in one present", in: "s IN ('world', 'filter')", want: true},
		{name: "like without wildcard", in: "s LIKE 'world'", want: false},
		{name: "like with wildcard", in: "s LIKE 'world%'", want: true},
		{name: "not absent", in: "NOT (s = 'world')", want: true},
		{name: "or other column", in: "s = 'world' OR i64 = 1", want: true},
		{name: "and other column", in: "s = 'world' AND i64 = 1", want: false},
		{name: "range", in: "s > 'world'", want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, mustBind(t, tc.in).MayMatchBloom("s", contains))
		})
	}
}

func Test_SBBFContains_short(t *testing.T) {
	require.True(t, SBBFContains(nil, 123))
	require.True(t, SBBFContains(make([]byte, 31), 123))
	require.Equal(t, false, SBBFContains(make([]byte, 32), 123))
}

func Test_plainHashes(t *testing.T) {
	le4 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	le8 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	tests := []struct {
		name string
		in   string
		col  string
		want [][]byte // nil = not bloom-able
	}{
		{name: "int32", in: "i32 = -2", col: "i32", want: [][]byte{le4(0xFFFFFFFE)}},
		{name: "uint32", in: "u32 = 4294967295", col: "u32", want: [][]byte{le4(0xFFFFFFFF)}},
		{name: "int64", in: "i64 = 1", col: "i64", want: [][]byte{le8(1)}},
		{name: "double", in: "f64 = 1.5", col: "f64", want: [][]byte{le8(0x3FF8000000000000)}},
		{name: "double zero both signs", in: "f64 = 0", col: "f64", want: [][]byte{le8(0), le8(1 << 63)}},
		{name: "float", in: "f32 = 1.5", col: "f32", want: [][]byte{le4(0x3FC00000)}},
		{name: "fixed bytes", in: "fix = 'abc'", col: "fix", want: [][]byte{[]byte("abc")}},
		{name: "decimal int32", in: "dec = 1.5", col: "dec", want: [][]byte{le4(150)}},
		{name: "decimal flba sign-extended", in: "decb = -2", col: "decb", want: [][]byte{{0xFF, 0xFE}}},
		{name: "date", in: "d = DATE '1970-01-03'", col: "d", want: [][]byte{le4(2)}},
		{name: "decimal varlen not bloomable", in: "decv = 1", col: "decv"},
		{name: "bool not bloomable", in: "b = TRUE", col: "b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nd := mustBind(t, tc.in).root
			hs, ok := plainHashes(testSchema[tc.col], nd.val)
			if tc.want == nil {
				require.Equal(t, false, ok)
				return
			}
			require.True(t, ok)
			var want []uint64
			for _, b := range tc.want {
				want = append(want, XXH64(b))
			}
			require.Equal(t, want, hs)
		})
	}
}
