package encoding

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_BitPackedLevels(t *testing.T) {
	tests := []struct {
		name    string
		src     []byte
		width   int
		n       int
		want    []int16
		used    int
		wantErr error
	}{
		// The example of Encodings.md: 0..7 at width 3 is 00000101 00111001 01110111.
		{name: "spec example", src: []byte{0b00000101, 0b00111001, 0b01110111}, width: 3, n: 8, want: []int16{0, 1, 2, 3, 4, 5, 6, 7}, used: 3},
		{name: "width 1 most significant bit first", src: []byte{0b10110000}, width: 1, n: 4, want: []int16{1, 0, 1, 1}, used: 1},
		{name: "partial last byte, trailing bytes unused", src: []byte{0b11011000, 0xff}, width: 2, n: 3, want: []int16{3, 1, 2}, used: 1},
		{name: "width 0", src: nil, width: 0, n: 3, want: []int16{0, 0, 0}},
		{name: "truncated", src: []byte{0xff}, width: 3, n: 3, wantErr: ErrTruncated},
		{name: "huge count", src: []byte{0xff}, width: 1, n: 1 << 40, wantErr: ErrTruncated},
		{name: "width 16", src: []byte{0, 0}, width: 16, n: 1, wantErr: ErrBitWidth},
		{name: "negative count", src: []byte{0}, width: 1, n: -1, wantErr: ErrArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, used, err := BitPackedLevels(nil, tc.src, tc.width, tc.n)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Equal(t, 0, len(got))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.used, used)
		})
	}
}
