package codec

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x55
	return c
}

func Test_Decompress_corrupt(t *testing.T) {
	data := sample(10_000, 5)
	gz := compressGzip(t, data, 6)
	zs := compressZstd(t, data)
	br := compressBrotli(t, data, 6)
	sn := compressSnappy(t, data)
	lz := compressLZ4Block(t, data)

	tests := []struct {
		name  string
		codec Codec
		src   []byte
		size  int
		want  error
	}{
		{name: "LZO", codec: LZO, src: []byte{1}, size: 1, want: ErrLZONotSupported},
		{name: "unknown codec 8", codec: 8, src: []byte{1}, size: 1, want: ErrUnknownCodec},
		{name: "unknown codec -1", codec: -1, src: []byte{1}, size: 1, want: ErrUnknownCodec},
		{name: "UNCOMPRESSED short", codec: Uncompressed, src: data[:10], size: 11, want: ErrSizeMismatch},

		{name: "SNAPPY truncated", codec: Snappy, src: sn[:len(sn)/2], size: len(data), want: ErrCorrupt},
		{name: "SNAPPY bad varint", codec: Snappy, src: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, size: 10, want: ErrCorrupt},
		{name: "SNAPPY empty with size", codec: Snappy, src: nil, size: 10, want: ErrCorrupt},

		{name: "GZIP truncated", codec: Gzip, src: gz[:len(gz)/2], size: len(data), want: ErrSizeMismatch},
		{name: "GZIP bad magic", codec: Gzip, src: flip(gz, 0), size: len(data), want: ErrCorrupt},
		{name: "GZIP bad crc", codec: Gzip, src: flip(gz, len(gz)-6), size: len(data), want: ErrCorrupt},
		{name: "GZIP bad length trailer", codec: Gzip, src: flip(gz, len(gz)-2), size: len(data), want: ErrCorrupt},
		{name: "GZIP trailing garbage", codec: Gzip, src: append(append([]byte(nil), gz...), "junk!junk!"...), size: len(data), want: ErrCorrupt},
		{name: "GZIP empty with size", codec: Gzip, src: nil, size: 10, want: ErrCorrupt},

		{name: "ZSTD truncated", codec: Zstd, src: zs[:len(zs)/2], size: len(data), want: ErrCorrupt},
		{name: "ZSTD bad magic", codec: Zstd, src: flip(zs, 0), size: len(data), want: ErrCorrupt},
		{name: "ZSTD content size differs", codec: Zstd, src: zs, size: len(data) - 100, want: ErrSizeMismatch},
		{name: "ZSTD garbage", codec: Zstd, src: []byte("definitely not zstd"), size: 10, want: ErrCorrupt},

		{name: "BROTLI truncated", codec: Brotli, src: br[:len(br)/2], size: len(data), want: ErrSizeMismatch},
		{name: "BROTLI garbage", codec: Brotli, src: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, size: 10, want: ErrCorrupt},

		{name: "LZ4_RAW truncated after a match", codec: LZ4Raw, src: lz[:len(lz)/2], size: len(data), want: ErrSizeMismatch},
		{name: "LZ4_RAW truncated in literals", codec: LZ4Raw, src: []byte{0x50, 1, 2}, size: 5, want: ErrCorrupt},
		{name: "LZ4_RAW offset 0", codec: LZ4Raw, src: []byte{0x10, 'a', 0, 0, 0x00}, size: 5, want: ErrCorrupt},
		{name: "LZ4_RAW offset before start", codec: LZ4Raw, src: []byte{0x10, 'a', 2, 0, 0x00}, size: 5, want: ErrCorrupt},
		{name: "LZ4_RAW literals past input", codec: LZ4Raw, src: []byte{0x50, 'a', 'b'}, size: 5, want: ErrCorrupt},
		{name: "LZ4_RAW offset truncated", codec: LZ4Raw, src: []byte{0x10, 'a', 1}, size: 5, want: ErrCorrupt},
		{name: "LZ4_RAW length truncated", codec: LZ4Raw, src: []byte{0xf0, 255, 255}, size: 600, want: ErrCorrupt},
		{name: "LZ4_RAW endless 255s", codec: LZ4Raw, src: append([]byte{0x1f, 'a', 1, 0}, make255(10_000)...), size: 100, want: ErrSizeMismatch},
		{name: "LZ4_RAW output longer", codec: LZ4Raw, src: []byte{0x1f, 'a', 1, 0, 10, 0x00}, size: 5, want: ErrSizeMismatch},
		{name: "LZ4_RAW output shorter", codec: LZ4Raw, src: []byte{0x30, 'a', 'b', 'c'}, size: 5, want: ErrSizeMismatch},
		{name: "LZ4_RAW empty with size", codec: LZ4Raw, src: nil, size: 5, want: ErrSizeMismatch},
		{name: "LZ4 frame lengths wrong, not a raw block", codec: LZ4, src: []byte{0, 0, 0, 9, 0, 0, 0, 9, 0x10, 'a', 1}, size: 9, want: ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decompress(nil, tc.codec, tc.src, tc.size, 1<<20)
			require.ErrorIs(t, err, tc.want)
			require.ErrorContains(t, err, "codec: ")
		})
	}
}

func make255(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 255
	}
	return b
}

// Test_decodeLZ4Block_overlap: hand-made blocks exercise overlapping matches (offset < length)
// and long length extensions, which compressors emit for runs.
func Test_decodeLZ4Block_overlap(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		want string
	}{
		{name: "run of one byte", src: []byte{0x15, 'a', 1, 0, 0x00}, want: "aaaaaaaaaa"},
		{name: "period two", src: []byte{0x24, 'a', 'b', 2, 0, 0x00}, want: "ababababab"},
		{name: "period three exact fit", src: []byte{0x30, 'x', 'y', 'z', 3, 0, 0x00}, want: "xyzxyzx"},
		{name: "non-overlapping", src: []byte{0x50, 'h', 'e', 'l', 'l', 'o', 5, 0, 0x10, '!'}, want: "hellohell!"},
		{name: "literals only", src: []byte{0x30, 'a', 'b', 'c'}, want: "abc"},
		{name: "long literal length", src: append([]byte{0xf0, 1}, []byte("0123456789abcdef")...), want: "0123456789abcdef"},
		{name: "empty block", src: []byte{0x00}, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decompress(nil, LZ4Raw, tc.src, len(tc.want), 1<<20)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}
