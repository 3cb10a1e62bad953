package encoding

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// deltaHeaderBytes builds a header: block size, miniblocks, total, first value.
func deltaHeaderBytes(bs, mb, total uint64, first int64) []byte {
	b := appendUvarint(nil, bs)
	b = appendUvarint(b, mb)
	b = appendUvarint(b, total)
	return appendZigzag(b, first)
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func Test_DeltaInt64(t *testing.T) {
	zeros := func(k int) []byte { return make([]byte, k) }
	tests := []struct {
		name     string
		src      []byte
		n        int
		want     []int64
		consumed int
		err      error
	}{
		{name: "zero values", src: deltaHeaderBytes(128, 4, 0, 0), n: 0, want: []int64{}, consumed: 5},
		{name: "single value", src: deltaHeaderBytes(128, 4, 1, -7), n: 1, want: []int64{-7}, consumed: 5},
		{name: "constant step, width 0", src: cat(deltaHeaderBytes(128, 4, 5, 10), appendZigzag(nil, 3), zeros(4)), n: 5,
			want: []int64{10, 13, 16, 19, 22}, consumed: 5 + 1 + 4},
		{name: "negative deltas", src: cat(deltaHeaderBytes(128, 4, 3, 0), appendZigzag(nil, -5), []byte{1, 0, 0, 0},
			[]byte{0b10}, zeros(3)), n: 3, want: []int64{0, -5, -9}, consumed: 5 + 1 + 4 + 4},
		{name: "fewer requested than total walks to the end", src: cat(deltaHeaderBytes(128, 4, 5, 10), appendZigzag(nil, 3), zeros(4), []byte{0xAA}),
			n: 2, want: []int64{10, 13}, consumed: 10},
		{name: "int64 wraparound", src: cat(deltaHeaderBytes(128, 4, 3, math.MaxInt64), appendZigzag(nil, 1), zeros(4)), n: 3,
			want: []int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1}, consumed: 4 + 10 + 1 + 4},
		{name: "unneeded miniblock widths are arbitrary", src: cat(deltaHeaderBytes(128, 4, 2, 1), appendZigzag(nil, 1), []byte{0, 200, 200, 200}), n: 2,
			want: []int64{1, 2}, consumed: 5 + 1 + 4},
		{name: "too few values", src: deltaHeaderBytes(128, 4, 1, 0), n: 2, err: ErrTooFewValues},
		{name: "block size not multiple of 128", src: deltaHeaderBytes(100, 4, 1, 0), n: 1, err: ErrDeltaHeader},
		{name: "block size zero", src: deltaHeaderBytes(0, 4, 1, 0), n: 1, err: ErrDeltaHeader},
		{name: "block size too large", src: deltaHeaderBytes(1<<30, 4, 1, 0), n: 1, err: ErrDeltaHeader},
		{name: "miniblock size not multiple of 32", src: deltaHeaderBytes(128, 8, 1, 0), n: 1, err: ErrDeltaHeader},
		{name: "zero miniblocks", src: deltaHeaderBytes(128, 0, 1, 0), n: 1, err: ErrDeltaHeader},
		{name: "miniblocks not dividing block", src: deltaHeaderBytes(128, 3, 1, 0), n: 1, err: ErrDeltaHeader},
		{name: "bit width 65", src: cat(deltaHeaderBytes(128, 4, 2, 0), appendZigzag(nil, 0), []byte{65, 0, 0, 0}, zeros(300)), n: 2, err: ErrBitWidth},
		{name: "miniblock body truncated", src: cat(deltaHeaderBytes(128, 4, 2, 0), appendZigzag(nil, 0), []byte{8, 0, 0, 0}, zeros(31)), n: 2, err: ErrTruncated},
		{name: "widths truncated", src: cat(deltaHeaderBytes(128, 4, 2, 0), appendZigzag(nil, 0), []byte{0, 0}), n: 2, err: ErrTruncated},
		{name: "n beyond what input can hold", src: cat(deltaHeaderBytes(128, 4, 1<<40, 0), appendZigzag(nil, 0), zeros(4)), n: 1 << 30, err: ErrTruncated},
		{name: "empty input", src: nil, n: 0, err: ErrTruncated},
		{name: "negative n", src: deltaHeaderBytes(128, 4, 0, 0), n: -1, err: ErrArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, consumed, err := DeltaInt64([]int64{}, tc.src, tc.n)
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

// Test_DeltaInt64_bitWidths checks every miniblock width 0..64 with hand-placed extremes:
// deltas min and min+2^w-1 alternate, so each miniblock needs exactly width w.
func Test_DeltaInt64_bitWidths(t *testing.T) {
	for w := 0; w <= 64; w++ {
		var span uint64
		if w > 0 {
			span = ^uint64(0) >> (64 - w)
		}
		values := []int64{5}
		for i := 0; i < 200; i++ {
			d := uint64(0)
			if i%2 == 1 {
				d = span
			}
			values = append(values, int64(uint64(values[len(values)-1])+d-1))
		}
		src := encodeDelta(values, 128, 4, false)
		got, consumed, err := DeltaInt64(nil, src, len(values))
		require.NoError(t, err, w)
		require.Equal(t, values, got, w)
		require.Equal(t, len(src), consumed, w)
	}
}

func Test_DeltaInt_roundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	layouts := []struct{ bs, mb int }{{128, 4}, {128, 1}, {256, 8}, {1024, 4}, {128, 2}}
	for iter := 0; iter < 300; iter++ {
		l := layouts[iter%len(layouts)]
		n := r.IntN(1500)
		values := make([]int64, n)
		mode := r.IntN(4)
		for i := range values {
			switch mode {
			case 0: // anything: deltas need up to 64 bits, wraparound common
				values[i] = int64(r.Uint64())
			case 1: // small, sorted-ish
				if i > 0 {
					values[i] = values[i-1] + int64(r.IntN(100)) - 10
				}
			case 2: // constant
				values[i] = 42
			default: // random width
				values[i] = int64(r.Uint64() >> r.IntN(64))
			}
		}
		src := encodeDelta(values, l.bs, l.mb, false)
		got, consumed, err := DeltaInt64([]int64{1, 2}, src, n)
		require.NoError(t, err)
		require.Equal(t, len(src), consumed)
		require.Equal(t, values, got[2:])

		v32 := make([]int64, n)
		want32 := make([]int32, n)
		for i, v := range values {
			want32[i] = int32(v)
			v32[i] = int64(int32(v))
		}
		src = encodeDelta(v32, l.bs, l.mb, true)
		got32, consumed, err := DeltaInt32(nil, src, n)
		require.NoError(t, err)
		require.Equal(t, len(src), consumed)
		if n > 0 {
			require.Equal(t, want32, got32)
		}
		// Asking for fewer values still reports the whole stream's length.
		if n > 1 {
			k := 1 + r.IntN(n-1)
			part, consumed, err := DeltaInt32(nil, src, k)
			require.NoError(t, err)
			require.Equal(t, len(src), consumed)
			require.Equal(t, want32[:k], part[:k])
		}
	}
}

// Test_DeltaInt32_extremes covers int32 overflow in the deltas (MinInt32 -> MaxInt32).
func Test_DeltaInt32_extremes(t *testing.T) {
	values := []int64{math.MinInt32, math.MaxInt32, math.MinInt32, 0, -1, math.MaxInt32}
	src := encodeDelta(values, 128, 4, true)
	got, _, err := DeltaInt32(nil, src, len(values))
	require.NoError(t, err)
	require.Equal(t, []int32{math.MinInt32, math.MaxInt32, math.MinInt32, 0, -1, math.MaxInt32}, got)
}
