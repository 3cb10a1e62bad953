package codec

import (
	"bytes"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func TestCodec_String(t *testing.T) {
	tests := []struct {
		name  string
		codec Codec
		want  string
	}{
		{name: "uncompressed", codec: Uncompressed, want: "UNCOMPRESSED"},
		{name: "snappy", codec: Snappy, want: "SNAPPY"},
		{name: "gzip", codec: Gzip, want: "GZIP"},
		{name: "lzo", codec: LZO, want: "LZO"},
		{name: "brotli", codec: Brotli, want: "BROTLI"},
		{name: "lz4", codec: LZ4, want: "LZ4"},
		{name: "zstd", codec: Zstd, want: "ZSTD"},
		{name: "lz4 raw", codec: LZ4Raw, want: "LZ4_RAW"},
		{name: "unknown", codec: 8, want: "Codec(8)"},
		{name: "negative", codec: -1, want: "Codec(-1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.codec.String())
		})
	}
}

func Test_Decompress_roundTrip(t *testing.T) {
	inputs := []struct {
		name string
		data []byte
	}{
		{name: "empty", data: []byte{}},
		{name: "one byte", data: []byte{42}},
		{name: "text 100", data: sample(100, 1)},
		{name: "text 70k", data: sample(70_000, 2)},
		{name: "text 150k", data: sample(150_000, 3)},
		{name: "random 5k", data: randomBytes(5_000, 4)},
		{name: "zeros 200k", data: make([]byte, 200_000)},
	}
	encoders := []struct {
		name  string
		codec Codec
		enc   func(testing.TB, []byte) []byte
	}{
		{name: "UNCOMPRESSED", codec: Uncompressed, enc: func(_ testing.TB, b []byte) []byte { return b }},
		{name: "SNAPPY", codec: Snappy, enc: compressSnappy},
		{name: "GZIP fastest", codec: Gzip, enc: func(t testing.TB, b []byte) []byte { return compressGzip(t, b, 1) }},
		{name: "GZIP best", codec: Gzip, enc: func(t testing.TB, b []byte) []byte { return compressGzip(t, b, 9) }},
		{name: "GZIP two members", codec: Gzip, enc: func(t testing.TB, b []byte) []byte {
			h := len(b) / 2
			return append(compressGzip(t, b[:h], 6), compressGzip(t, b[h:], 6)...)
		}},
		{name: "BROTLI 1", codec: Brotli, enc: func(t testing.TB, b []byte) []byte { return compressBrotli(t, b, 1) }},
		{name: "BROTLI 9", codec: Brotli, enc: func(t testing.TB, b []byte) []byte { return compressBrotli(t, b, 9) }},
		{name: "ZSTD EncodeAll", codec: Zstd, enc: compressZstd},
		{name: "ZSTD stream", codec: Zstd, enc: compressZstdStream},
		{name: "ZSTD two frames", codec: Zstd, enc: func(t testing.TB, b []byte) []byte {
			h := len(b) / 2
			return append(compressZstd(t, b[:h]), compressZstdStream(t, b[h:])...)
		}},
		{name: "LZ4_RAW", codec: LZ4Raw, enc: compressLZ4Block},
		{name: "LZ4 hadoop one frame", codec: LZ4, enc: func(t testing.TB, b []byte) []byte { return compressHadoopLZ4(t, b, 1<<30) }},
		{name: "LZ4 hadoop 64k frames", codec: LZ4, enc: func(t testing.TB, b []byte) []byte { return compressHadoopLZ4(t, b, 64<<10) }},
		{name: "LZ4 raw fallback", codec: LZ4, enc: compressLZ4Block},
	}
	for _, e := range encoders {
		for _, in := range inputs {
			t.Run(e.name+"/"+in.name, func(t *testing.T) {
				src := e.enc(t, in.data)
				got, err := Decompress(nil, e.codec, src, len(in.data), 1<<30)
				require.NoError(t, err)
				require.True(t, bytes.Equal(in.data, got), "output differs")

				// Reusing a larger buffer must give the same bytes in that buffer.
				buf := bytes.Repeat([]byte{0xAA}, len(in.data)+17)
				got2, err := Decompress(buf, e.codec, src, len(in.data), 1<<30)
				require.NoError(t, err)
				require.True(t, bytes.Equal(in.data, got2), "output with reused dst differs")
				if len(got2) > 0 {
					require.True(t, &got2[0] == &buf[0], "dst capacity not reused")
				}

				// One byte less or more than the real size is a mismatch, never a silent truncation.
				if len(in.data) > 0 {
					_, err = Decompress(nil, e.codec, src, len(in.data)-1, 1<<30)
					require.Error(t, err, "claimed size one short")
				}
				_, err = Decompress(nil, e.codec, src, len(in.data)+1, 1<<30)
				require.Error(t, err, "claimed size one long")
			})
		}
	}
}
