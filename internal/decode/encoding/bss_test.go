package encoding

import (
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_ByteStreamSplit(t *testing.T) {
	tests := []struct {
		name     string
		dst      []byte
		src      []byte
		n, width int
		want     []byte
		err      error
	}{
		{name: "zero values", src: nil, n: 0, width: 4, want: nil},
		{name: "float32 two values", src: []byte{0xA0, 0xB0, 0xA1, 0xB1, 0xA2, 0xB2, 0xA3, 0xB3}, n: 2, width: 4,
			want: []byte{0xA0, 0xA1, 0xA2, 0xA3, 0xB0, 0xB1, 0xB2, 0xB3}},
		{name: "fewer values than stride", dst: []byte{7}, src: []byte{1, 2, 3, 4, 5, 6}, n: 1, width: 2, want: []byte{7, 1, 4}},
		{name: "width 3", src: []byte{1, 2, 3, 4, 5, 6}, n: 2, width: 3, want: []byte{1, 3, 5, 2, 4, 6}},
		{name: "width 1", src: []byte{1, 2}, n: 2, width: 1, want: []byte{1, 2}},
		{name: "size not multiple", src: []byte{1, 2, 3, 4, 5}, n: 1, width: 4, err: ErrSize},
		{name: "too many values", src: []byte{1, 2, 3, 4}, n: 2, width: 4, err: ErrTooFewValues},
		{name: "zero width", src: []byte{1}, n: 1, width: 0, err: ErrArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ByteStreamSplit(tc.dst, tc.src, tc.n, tc.width)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, tc.dst, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func Test_ByteStreamSplit_roundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, width := range []int{1, 2, 3, 4, 5, 8, 12, 16} {
		for _, n := range []int{0, 1, 7, 100} {
			plain := make([]byte, n*width)
			for i := range plain {
				plain[i] = byte(r.Uint32())
			}
			got, err := ByteStreamSplit([]byte{}, encodeBSS(plain, width), n, width)
			require.NoError(t, err)
			require.Equal(t, plain, got, width, n)
		}
	}
}
