package encoding

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_PlainFixed(t *testing.T) {
	tests := []struct {
		name     string
		dst      []byte
		src      []byte
		n, width int
		want     []byte
		consumed int
		err      error
	}{
		{name: "zero values", src: nil, n: 0, width: 4, want: nil, consumed: 0},
		{name: "int32 appends", dst: []byte{9}, src: []byte{1, 0, 0, 0, 2, 0, 0, 0, 7}, n: 2, width: 4,
			want: []byte{9, 1, 0, 0, 0, 2, 0, 0, 0}, consumed: 8},
		{name: "int96", src: bytes.Repeat([]byte{5}, 24), n: 2, width: 12, want: bytes.Repeat([]byte{5}, 24), consumed: 24},
		{name: "flba width 3", src: []byte{1, 2, 3, 4, 5, 6}, n: 2, width: 3, want: []byte{1, 2, 3, 4, 5, 6}, consumed: 6},
		{name: "short input", src: []byte{1, 2, 3, 4, 5, 6, 7}, n: 2, width: 4, err: ErrTooFewValues},
		{name: "huge n does not overflow", src: []byte{1, 2, 3, 4}, n: 1 << 62, width: 8, err: ErrTooFewValues},
		{name: "zero width", src: []byte{1}, n: 1, width: 0, err: ErrArgument},
		{name: "negative n", src: []byte{1}, n: -1, width: 1, err: ErrArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, consumed, err := PlainFixed(tc.dst, tc.src, tc.n, tc.width)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, tc.dst, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.consumed, consumed)
		})
	}
}

func Test_PlainByteArray(t *testing.T) {
	tests := []struct {
		name        string
		offsets     []int32
		data        []byte
		src         []byte
		n           int
		wantOffsets []int32
		wantData    []byte
		consumed    int
		err         error
	}{
		{name: "zero values fresh", src: nil, n: 0, wantOffsets: []int32{0}, wantData: nil},
		{name: "two values fresh", src: []byte{2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 1, 0, 0, 0, 'x', 0xEE}, n: 3,
			wantOffsets: []int32{0, 2, 2, 3}, wantData: []byte("hix"), consumed: 15},
		{name: "continues offsets", offsets: []int32{0, 3}, data: []byte("abc"), src: []byte{1, 0, 0, 0, 'd'}, n: 1,
			wantOffsets: []int32{0, 3, 4}, wantData: []byte("abcd"), consumed: 5},
		{name: "empty offsets with data start at len(data)", data: []byte("ab"), src: []byte{1, 0, 0, 0, 'c'}, n: 1,
			wantOffsets: []int32{2, 3}, wantData: []byte("abc"), consumed: 5},
		{name: "offsets not matching data", offsets: []int32{0, 5}, data: []byte("ab"), src: []byte{0, 0, 0, 0}, n: 1, err: ErrArgument},
		{name: "length past end", src: []byte{5, 0, 0, 0, 'a'}, n: 1, err: ErrLength},
		{name: "huge length", src: []byte{0xFF, 0xFF, 0xFF, 0xFF, 'a'}, n: 1, err: ErrLength},
		{name: "too few values", src: []byte{0, 0, 0, 0, 0, 0}, n: 2, err: ErrTooFewValues},
		{name: "n beyond input bound", src: []byte{0, 0, 0, 0}, n: 1 << 40, err: ErrTooFewValues},
		{name: "negative n", src: nil, n: -1, err: ErrArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			offs, data, consumed, err := PlainByteArray(tc.offsets, tc.data, tc.src, tc.n)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, len(tc.offsets), len(offs))
				require.Equal(t, len(tc.data), len(data))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantOffsets, offs)
			require.Equal(t, string(tc.wantData), string(data))
			require.Equal(t, tc.consumed, consumed)
		})
	}
}

func Test_PlainByteArray_roundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var offs []int32
	var data []byte
	var all [][]byte
	for page := 0; page < 5; page++ {
		values := randomByteArrays(r, r.IntN(200), 40)
		src := encodePlainByteArray(values)
		var err error
		var consumed int
		offs, data, consumed, err = PlainByteArray(offs, data, src, len(values))
		require.NoError(t, err)
		require.Equal(t, len(src), consumed)
		all = append(all, values...)
	}
	checkByteArrays(t, all, offs, data)
}

// checkByteArrays compares Arrow-style offsets+data with the expected values.
func checkByteArrays(t *testing.T, want [][]byte, offs []int32, data []byte) {
	t.Helper()
	require.Equal(t, len(want)+1, len(offs))
	require.Equal(t, int(offs[len(offs)-1]), len(data))
	for i, w := range want {
		if got := data[offs[i]:offs[i+1]]; !bytes.Equal(w, got) {
			t.Fatalf("value %d: want %q got %q", i, w, got)
		}
	}
}

// randomByteArrays returns n values up to maxLen bytes, often sharing prefixes with the
// previous value (to exercise DELTA_BYTE_ARRAY) and sometimes empty.
func randomByteArrays(r *rand.Rand, n, maxLen int) [][]byte {
	out := make([][]byte, n)
	var prev []byte
	for i := range out {
		var v []byte
		if len(prev) > 0 && r.IntN(2) == 0 {
			v = append(v, prev[:r.IntN(len(prev)+1)]...)
		}
		for k := r.IntN(maxLen + 1); k > 0 && len(v) < maxLen; k-- {
			v = append(v, byte('a'+r.IntN(4)))
		}
		out[i] = v
		prev = v
	}
	return out
}

func Test_PlainBool(t *testing.T) {
	tests := []struct {
		name      string
		bitmap    []byte
		bitOffset int
		src       []byte
		n         int
		want      []byte
		consumed  int
		err       error
	}{
		{name: "zero values", src: nil, n: 0, want: nil, consumed: 0},
		{name: "aligned", src: []byte{0b10110101, 0xFF}, n: 8, want: []byte{0b10110101}, consumed: 1},
		{name: "aligned partial clears tail", src: []byte{0xFF}, n: 3, want: []byte{0b111}, consumed: 1},
		{name: "offset 3", bitmap: []byte{0b101}, bitOffset: 3, src: []byte{0b11111111, 0b1}, n: 9,
			want: []byte{0b11111101, 0b1111}, consumed: 2},
		{name: "offset 3 overwrites garbage", bitmap: []byte{0b11111101, 0xFF, 0xFF}, bitOffset: 3, src: []byte{0b0}, n: 2,
			want: []byte{0b00000101}, consumed: 1},
		{name: "offset 8 after full byte", bitmap: []byte{0xAA}, bitOffset: 8, src: []byte{0b1}, n: 1,
			want: []byte{0xAA, 0b1}, consumed: 1},
		{name: "short input", src: []byte{1}, n: 9, err: ErrTooFewValues},
		{name: "bitmap shorter than offset", bitmap: nil, bitOffset: 1, src: []byte{1}, n: 1, err: ErrArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, consumed, err := PlainBool(tc.bitmap, tc.bitOffset, tc.src, tc.n)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.consumed, consumed)
		})
	}
}

func Test_RLEBool(t *testing.T) {
	tests := []struct {
		name      string
		bitmap    []byte
		bitOffset int
		src       []byte
		n         int
		want      []byte
		consumed  int
		err       error
	}{
		{name: "rle run of trues", src: []byte{2, 0, 0, 0, 10 << 1, 1}, n: 10, want: []byte{0xFF, 0b11}, consumed: 6},
		{name: "rle falses after offset", bitmap: []byte{0xFF}, bitOffset: 2, src: []byte{2, 0, 0, 0, 3 << 1, 0}, n: 3,
			want: []byte{0b00011}, consumed: 6},
		{name: "bit-packed then rle", bitmap: []byte{0b1}, bitOffset: 1,
			src: []byte{5, 0, 0, 0, 1<<1 | 1, 0b10100101, 4 << 1, 1, 0xEE}, n: 12,
			want: []byte{0b01001011, 0b00011111}, consumed: 9},
		{name: "value 2", src: []byte{2, 0, 0, 0, 1 << 1, 2}, n: 1, err: ErrRunValue},
		{name: "too few", src: []byte{2, 0, 0, 0, 1 << 1, 1}, n: 2, err: ErrTooFewValues},
		{name: "prefix past end", src: []byte{9, 0, 0, 0, 1 << 1, 1}, n: 1, err: ErrTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, consumed, err := RLEBool(tc.bitmap, tc.bitOffset, tc.src, tc.n)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.consumed, consumed)
		})
	}
}

// Test_RLEBool_roundTrip compares RLEBool with Hybrid (bit width 1) at random bit offsets.
func Test_RLEBool_roundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 200; iter++ {
		n := r.IntN(300)
		values := randomLevels(r, n, 1)
		body := encodeHybrid(r, values, 1)
		src := append([]byte{byte(len(body)), byte(len(body) >> 8), 0, 0}, body...)
		off := r.IntN(20)
		bm := make([]byte, (off+7)/8)
		for i := range bm {
			bm[i] = byte(r.Uint32())
		}
		prefix := append([]byte(nil), bm...)
		got, consumed, err := RLEBool(bm, off, src, n)
		require.NoError(t, err)
		require.Equal(t, len(src), consumed)
		require.Equal(t, (off+n+7)/8, len(got))
		for i := 0; i < off; i++ {
			require.Equal(t, prefix[i/8]>>(i%8)&1, got[i/8]>>(i%8)&1, "prefix bit", i)
		}
		for i, v := range values {
			require.Equal(t, byte(v), got[(off+i)/8]>>((off+i)%8)&1, "value", i)
		}
		if e := off + n; e%8 != 0 {
			require.Equal(t, byte(0), got[e/8]>>(e%8), "tail bits")
		}
	}
}
