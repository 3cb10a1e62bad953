package encoding

import (
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// lens encodes int lengths as DELTA_BINARY_PACKED.
func lens(v ...int64) []byte { return encodeDelta(v, 128, 4, true) }

func Test_DeltaLengthByteArray(t *testing.T) {
	tests := []struct {
		name        string
		offsets     []int32
		data        []byte
		src         []byte
		n           int
		wantOffsets []int32
		wantData    string
		consumed    int
		err         error
	}{
		{name: "zero values", src: lens(), n: 0, wantOffsets: []int32{0}, consumed: len(lens())},
		{name: "spec example", src: cat(lens(5, 5, 6, 6), []byte("HelloWorldFoobarABCDEF")), n: 4,
			wantOffsets: []int32{0, 5, 10, 16, 22}, wantData: "HelloWorldFoobarABCDEF", consumed: len(lens(5, 5, 6, 6)) + 22},
		{name: "empty values", src: lens(0, 0), n: 2, wantOffsets: []int32{0, 0, 0}, consumed: len(lens(0, 0))},
		{name: "continues offsets, trailing bytes ignored", offsets: []int32{0, 2}, data: []byte("ab"),
			src: cat(lens(1), []byte("cXYZ")), n: 1, wantOffsets: []int32{0, 2, 3}, wantData: "abc", consumed: len(lens(1)) + 1},
		{name: "negative length", src: cat(lens(-1, 3), []byte("abc")), n: 2, err: ErrLength},
		{name: "lengths past end", src: cat(lens(3, 3), []byte("abcde")), n: 2, err: ErrLength},
		{name: "too few lengths", src: lens(3), n: 2, err: ErrTooFewValues},
		{name: "bad offsets", offsets: []int32{4}, src: lens(), n: 0, err: ErrArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			offs, data, consumed, err := DeltaLengthByteArray(tc.offsets, tc.data, tc.src, tc.n)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, len(tc.offsets), len(offs))
				require.Equal(t, len(tc.data), len(data))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantOffsets, offs)
			require.Equal(t, tc.wantData, string(data))
			require.Equal(t, tc.consumed, consumed)
		})
	}
}

func Test_DeltaByteArray(t *testing.T) {
	tests := []struct {
		name        string
		offsets     []int32
		data        []byte
		src         []byte
		n           int
		maxData     int
		wantOffsets []int32
		wantData    string
		consumed    int
		err         error
	}{
		{name: "zero values", src: cat(lens(), lens()), n: 0, maxData: 10, wantOffsets: []int32{0}, consumed: 2 * len(lens())},
		// Spec example: axis, axle, babble, babyhood -> prefixes 0,2,0,3; suffixes axis, le, babble, yhood.
		{name: "spec example", src: cat(lens(0, 2, 0, 3), lens(4, 2, 6, 5), []byte("axislebabbleyhood")), n: 4, maxData: 100,
			wantOffsets: []int32{0, 4, 8, 14, 22}, wantData: "axisaxlebabblebabyhood",
			consumed: len(lens(0, 2, 0, 3)) + len(lens(4, 2, 6, 5)) + 17},
		{name: "whole previous value", offsets: []int32{0, 1}, data: []byte("z"), src: cat(lens(0, 3, 3), lens(3, 0, 1), []byte("abcd")),
			n: 3, maxData: 100, wantOffsets: []int32{0, 1, 4, 7, 11}, wantData: "zabcabcabcd",
			consumed: len(lens(0, 3, 3)) + len(lens(3, 0, 1)) + 4},
		{name: "first prefix must be 0", src: cat(lens(1), lens(1), []byte("a")), n: 1, maxData: 100, err: ErrPrefix},
		{name: "prefix longer than previous", src: cat(lens(0, 3), lens(2, 0), []byte("ab")), n: 2, maxData: 100, err: ErrPrefix},
		{name: "negative prefix", src: cat(lens(0, -1), lens(2, 0), []byte("ab")), n: 2, maxData: 100, err: ErrLength},
		{name: "negative suffix", src: cat(lens(0, 0), lens(2, -1), []byte("ab")), n: 2, maxData: 100, err: ErrLength},
		{name: "suffixes past end", src: cat(lens(0, 0), lens(2, 2), []byte("abc")), n: 2, maxData: 100, err: ErrLength},
		{name: "expansion over maxData", src: cat(lens(0, 4, 4, 4), lens(4, 0, 0, 0), []byte("abcd")), n: 4, maxData: 15, err: ErrTooLarge},
		{name: "expansion at maxData", src: cat(lens(0, 4, 4, 4), lens(4, 0, 0, 0), []byte("abcd")), n: 4, maxData: 16,
			wantOffsets: []int32{0, 4, 8, 12, 16}, wantData: "abcdabcdabcdabcd", consumed: len(lens(0, 4, 4, 4)) + len(lens(4, 0, 0, 0)) + 4},
		{name: "too few suffixes", src: cat(lens(0, 0), lens(1), []byte("a")), n: 2, maxData: 100, err: ErrTooFewValues},
		{name: "too few prefixes", src: cat(lens(0), lens(1, 1), []byte("ab")), n: 2, maxData: 100, err: ErrTooFewValues},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			offs, data, consumed, err := DeltaByteArray(tc.offsets, tc.data, tc.src, tc.n, tc.maxData)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, len(tc.offsets), len(offs))
				require.Equal(t, len(tc.data), len(data))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantOffsets, offs)
			require.Equal(t, tc.wantData, string(data))
			require.Equal(t, tc.consumed, consumed)
		})
	}
}

func Test_DeltaByteArrays_roundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var offL, offD []int32
	var dataL, dataD []byte
	var all [][]byte
	for page := 0; page < 20; page++ {
		values := randomByteArrays(r, r.IntN(400), 30)
		all = append(all, values...)

		src := encodeDeltaLength(values)
		var consumed int
		var err error
		offL, dataL, consumed, err = DeltaLengthByteArray(offL, dataL, append(src, 0xEE), len(values))
		require.NoError(t, err)
		require.Equal(t, len(src), consumed)

		src = encodeDeltaByteArray(values)
		offD, dataD, consumed, err = DeltaByteArray(offD, dataD, append(src, 0xEE), len(values), 1<<20)
		require.NoError(t, err)
		require.Equal(t, len(src), consumed)
	}
	checkByteArrays(t, all, offL, dataL)
	checkByteArrays(t, all, offD, dataD)
}
