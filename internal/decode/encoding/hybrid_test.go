package encoding

import (
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_Hybrid(t *testing.T) {
	tests := []struct {
		name     string
		src      []byte
		bitWidth int
		n        int
		want     []int32
		consumed int
		err      error
	}{
		{name: "zero values", src: nil, bitWidth: 3, n: 0, want: []int32{}, consumed: 0},
		{name: "bit width 0 reads nothing", src: []byte{0xFF}, bitWidth: 0, n: 4, want: []int32{0, 0, 0, 0}, consumed: 0},
		{name: "rle run", src: []byte{5 << 1, 3}, bitWidth: 2, n: 5, want: []int32{3, 3, 3, 3, 3}, consumed: 2},
		{name: "rle run cut at n", src: []byte{9 << 1, 1}, bitWidth: 1, n: 4, want: []int32{1, 1, 1, 1}, consumed: 2},
		{name: "rle two-byte value", src: []byte{2 << 1, 0x34, 0x12}, bitWidth: 13, n: 2, want: []int32{0x1234, 0x1234}, consumed: 3},
		{name: "rle four-byte value", src: []byte{1 << 1, 0xFF, 0xFF, 0xFF, 0xFF}, bitWidth: 32, n: 1, want: []int32{-1}, consumed: 5},
		// Spec example: values 0..7 with bit width 3 bit-packed: 10001000 11000110 11111010.
		{name: "spec bit-packed example", src: []byte{1<<1 | 1, 0b10001000, 0b11000110, 0b11111010}, bitWidth: 3, n: 8,
			want: []int32{0, 1, 2, 3, 4, 5, 6, 7}, consumed: 4},
		{name: "bit-packed padding cut", src: []byte{1<<1 | 1, 0b10001000, 0b11000110, 0b11111010}, bitWidth: 3, n: 3,
			want: []int32{0, 1, 2}, consumed: 4},
		{name: "rle then bit-packed", src: []byte{2 << 1, 1, 1<<1 | 1, 0b01010101}, bitWidth: 1, n: 10,
			want: []int32{1, 1, 1, 0, 1, 0, 1, 0, 1, 0}, consumed: 4},
		{name: "truncated final bit-packed run accepted", src: []byte{4<<1 | 1, 0xFF}, bitWidth: 2, n: 4,
			want: []int32{3, 3, 3, 3}, consumed: 2},
		{name: "zero-length runs skipped", src: []byte{0, 0, 1, 2 << 1, 1}, bitWidth: 1, n: 2, want: []int32{1, 1}, consumed: 5},
		{name: "too few values", src: []byte{2 << 1, 1}, bitWidth: 1, n: 3, err: ErrTooFewValues},
		{name: "empty input", src: nil, bitWidth: 1, n: 1, err: ErrTooFewValues},
		{name: "truncated bit-packed run too short", src: []byte{4<<1 | 1, 0xFF}, bitWidth: 2, n: 5, err: ErrTooFewValues},
		{name: "rle value missing", src: []byte{2 << 1}, bitWidth: 9, n: 2, err: ErrTruncated},
		{name: "rle value too wide", src: []byte{2 << 1, 4}, bitWidth: 2, n: 2, err: ErrRunValue},
		{name: "overlong varint", src: []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, bitWidth: 1, n: 1, err: ErrVarint},
		{name: "truncated varint", src: []byte{0x80}, bitWidth: 1, n: 1, err: ErrTruncated},
		{name: "bit width 33", src: []byte{2, 0}, bitWidth: 33, n: 1, err: ErrBitWidth},
		{name: "negative n", src: nil, bitWidth: 1, n: -1, err: ErrArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, consumed, err := Hybrid([]int32{}, tc.src, tc.bitWidth, tc.n)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, 0, len(got))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.consumed, consumed)
		})
	}
}

func Test_Hybrid_tooFewMessage(t *testing.T) {
	_, _, err := Hybrid(nil, []byte{2 << 1, 1}, 1, 5)
	require.ErrorContains(t, err, "encoding: too few values: expected 5 values, got 2")
}

func Test_Hybrid_appendsToDst(t *testing.T) {
	dst := []int32{42}
	got, _, err := Hybrid(dst, []byte{2 << 1, 1}, 1, 2)
	require.NoError(t, err)
	require.Equal(t, []int32{42, 1, 1}, got)
	got, _, err = Hybrid(got, []byte{2 << 1, 1}, 1, 3)
	require.Error(t, err)
	require.Equal(t, []int32{42, 1, 1}, got)
}

// Test_Hybrid_roundTrip encodes random values of every width 1..32 with the test encoder
// (random mixes of RLE and bit-packed runs) and checks both decoders return them.
func Test_Hybrid_roundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for width := 1; width <= 32; width++ {
		for _, n := range []int{1, 7, 8, 9, 63, 64, 65, 1000} {
			values := randomLevels(r, n, width)
			src := encodeHybrid(r, values, width)
			got, consumed, err := Hybrid(nil, src, width, n)
			require.NoError(t, err, width, n)
			require.Equal(t, len(src), consumed, width, n)
			for i, v := range values {
				if uint32(got[i]) != uint32(v) {
					t.Fatalf("width %d n %d: value %d: want %d got %d", width, n, i, v, uint32(got[i]))
				}
			}
			if width <= 15 {
				lv, consumed, err := HybridLevels(nil, src, width, n)
				require.NoError(t, err)
				require.Equal(t, len(src), consumed)
				for i, v := range values {
					if uint64(lv[i]) != v {
						t.Fatalf("levels width %d n %d: value %d: want %d got %d", width, n, i, v, lv[i])
					}
				}
			}
		}
	}
}

// randomLevels draws n values below 2^width, with runs so that the encoder uses RLE too.
func randomLevels(r *rand.Rand, n, width int) []uint64 {
	out := make([]uint64, 0, n)
	for len(out) < n {
		v := r.Uint64() & (1<<width - 1)
		if r.IntN(3) == 0 {
			v = 1<<width - 1 // extreme value
		}
		run := 1
		if r.IntN(4) == 0 {
			run = 1 + r.IntN(20)
		}
		for k := 0; k < run && len(out) < n; k++ {
			out = append(out, v)
		}
	}
	return out
}

func Test_HybridLevels(t *testing.T) {
	tests := []struct {
		name     string
		src      []byte
		bitWidth int
		n        int
		want     []int16
		err      error
	}{
		{name: "max level 1", src: []byte{1<<1 | 1, 0b10110001}, bitWidth: 1, n: 8, want: []int16{1, 0, 0, 0, 1, 1, 0, 1}},
		{name: "width 15", src: []byte{1 << 1, 0xFF, 0x7F}, bitWidth: 15, n: 1, want: []int16{32767}},
		{name: "width 16 rejected", src: []byte{1 << 1, 0xFF, 0xFF}, bitWidth: 16, n: 1, err: ErrBitWidth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := HybridLevels(nil, tc.src, tc.bitWidth, tc.n)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_LengthPrefixed(t *testing.T) {
	tests := []struct {
		name     string
		src      []byte
		body     []byte
		consumed int
		err      error
	}{
		{name: "empty body", src: []byte{0, 0, 0, 0, 9}, body: []byte{}, consumed: 4},
		{name: "body and trailer", src: []byte{2, 0, 0, 0, 7, 8, 9}, body: []byte{7, 8}, consumed: 6},
		{name: "short prefix", src: []byte{1, 0}, err: ErrTruncated},
		{name: "length past end", src: []byte{3, 0, 0, 0, 1, 2}, err: ErrTruncated},
		{name: "huge length", src: []byte{0xFF, 0xFF, 0xFF, 0xFF, 1}, err: ErrTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, consumed, err := LengthPrefixed(tc.src)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.body, body)
			require.Equal(t, tc.consumed, consumed)
		})
	}
}

// Test_indicesFit: the check is skipped exactly when no index of the width can reach dictLen.
func Test_indicesFit(t *testing.T) {
	tests := []struct {
		bw, dictLen int
		want        bool
	}{
		{0, 0, false}, {0, 1, true}, {1, 1, false}, {1, 2, true}, {2, 3, false}, {2, 4, true}, {2, 5, true},
		{15, 38426, true}, {16, 38426, false}, {16, 1 << 16, true},
		{31, 1<<31 - 1, false}, {31, 1 << 31, true}, {32, 1 << 40, false},
	}
	for _, tc := range tests {
		if got := indicesFit(tc.bw, tc.dictLen); got != tc.want {
			t.Errorf("indicesFit(%d, %d) = %v, want %v", tc.bw, tc.dictLen, got, tc.want)
		}
	}
}

func Test_DictIndices(t *testing.T) {
	tests := []struct {
		name    string
		src     []byte
		n       int
		dictLen int
		want    []int32
		err     error
	}{
		{name: "zero values, empty input", src: nil, n: 0, dictLen: 0, want: []int32{}},
		{name: "bit width 0 means index 0", src: []byte{0}, n: 3, dictLen: 1, want: []int32{0, 0, 0}},
		{name: "bit width 0 with runs present", src: []byte{0, 3 << 1}, n: 3, dictLen: 1, want: []int32{0, 0, 0}},
		{name: "bit width 0 with empty dictionary", src: []byte{0}, n: 1, dictLen: 0, err: ErrDictIndex},
		{name: "bit-packed", src: []byte{2, 1<<1 | 1, 0b11100100, 0, 0}, n: 4, dictLen: 4, want: []int32{0, 1, 2, 3}},
		{name: "index equal to dictLen", src: []byte{2, 1<<1 | 1, 0b11100100, 0}, n: 4, dictLen: 3, err: ErrDictIndex},
		// Width 3 can hold 4..7: the indices are checked though 4 entries would fit width 2.
		{name: "index past a dictionary smaller than the width allows", src: []byte{3, 1<<1 | 1, 0b00_011_010, 0b0000_000_1, 0}, n: 4, dictLen: 4, err: ErrDictIndex},
		{name: "every index of the width fits: not checked, still right", src: []byte{3, 1<<1 | 1, 0b00_011_010, 0b0000_111_1, 0}, n: 4, dictLen: 8, want: []int32{2, 3, 4, 7}},
		{name: "RLE value wider than the width", src: []byte{2, 1 << 1, 4}, n: 1, dictLen: 4, err: ErrRunValue},
		{name: "bit width 32 high bit is out of range", src: []byte{32, 1 << 1, 0, 0, 0, 0x80}, n: 1, dictLen: 10, err: ErrDictIndex},
		{name: "bit width 33", src: []byte{33, 2, 0}, n: 1, dictLen: 10, err: ErrBitWidth},
		{name: "missing bit width", src: nil, n: 1, dictLen: 10, err: ErrTruncated},
		{name: "too few", src: []byte{1, 2 << 1, 1}, n: 3, dictLen: 2, err: ErrTooFewValues},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DictIndices([]int32{}, tc.src, tc.n, tc.dictLen)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, 0, len(got))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
