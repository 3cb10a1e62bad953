package codec

import (
	"bytes"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pqscan/pqscan/internal/require"
)

// Test_zstdOutcome: every answer of a ZSTD decoder (the native one, or the host's through the
// import) becomes one sentinel with one wording, whichever engine produced it.
func Test_zstdOutcome(t *testing.T) {
	out := make([]byte, 100, 164)
	tests := []struct {
		name string
		got  int32
		want error
		msg  string
	}{
		{name: "the header's length", got: 100},
		{name: "not provided", got: ZstdNotProvided, want: ErrNoHostZstd,
			msg: "codec: ZSTD pages need the host's decoder (import pqscan_host.zstd_decompress, wasm/ABI.md)"},
		{name: "corrupt", got: ZstdCorrupt, want: ErrCorrupt,
			msg: "codec: corrupt compressed data: ZSTD: invalid or truncated frame"},
		{name: "too large", got: ZstdTooLarge, want: ErrSizeMismatch,
			msg: "codec: decompressed size differs from page header: ZSTD page decompresses to more than the 100 bytes the header says"},
		{name: "into the slack", got: 120, want: ErrSizeMismatch,
			msg: "codec: decompressed size differs from page header: ZSTD page decompresses to more than the 100 bytes the header says"},
		{name: "past the buffer (never trusted)", got: 1 << 30, want: ErrSizeMismatch,
			msg: "codec: decompressed size differs from page header: ZSTD page decompresses to more than the 100 bytes the header says"},
		{name: "short", got: 99, want: ErrSizeMismatch,
			msg: "codec: decompressed size differs from page header: ZSTD page decompressed to 99 bytes, header says 100"},
		{name: "host failed", got: ZstdHostFailed, want: ErrHostZstd,
			msg: "codec: the host's ZSTD decoder failed: pqscan_host.zstd_decompress answered -4 (wasm/ABI.md)"},
		{name: "undefined code", got: -9, want: ErrHostZstd,
			msg: "codec: the host's ZSTD decoder failed: pqscan_host.zstd_decompress answered -9 (wasm/ABI.md)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page, err := zstdOutcome(out, tc.got, 100)
			if tc.want == nil {
				require.NoError(t, err)
				require.Equal(t, 100, len(page))
				return
			}
			require.True(t, errors.Is(err, tc.want), "sentinel", err)
			require.Equal(t, tc.msg, err.Error())
			require.Equal(t, 0, len(page))
		})
	}
}

// Test_Decompress_zstdWording: the native decoder's failures read as zstdOutcome words them,
// not as klauspost's own messages, which the hosts cannot reproduce.
func Test_Decompress_zstdWording(t *testing.T) {
	data := sample(10_000, 5)
	zs := compressZstd(t, data)
	tests := []struct {
		name string
		src  []byte
		size int
		msg  string
	}{
		{name: "truncated", src: zs[:len(zs)/2], size: len(data),
			msg: "codec: corrupt compressed data: ZSTD: invalid or truncated frame"},
		{name: "bad magic", src: flip(zs, 0), size: len(data),
			msg: "codec: corrupt compressed data: ZSTD: invalid or truncated frame"},
		{name: "larger than the header", src: zs, size: len(data) - 100,
			msg: "codec: decompressed size differs from page header: ZSTD page decompresses to more than the 9900 bytes the header says"},
		{name: "smaller than the header", src: zs, size: len(data) + 100,
			msg: "codec: decompressed size differs from page header: ZSTD page decompressed to 10000 bytes, header says 10100"},
		{name: "no frames", src: nil, size: 10,
			msg: "codec: decompressed size differs from page header: ZSTD page decompressed to 0 bytes, header says 10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decompress(nil, Zstd, tc.src, tc.size, 1<<20)
			require.Error(t, err)
			require.Equal(t, tc.msg, err.Error())
		})
	}
}

// withWindow rewrites the window descriptor of a multi-segment frame (RFC 8878 3.1.1.1.2).
func withWindow(t *testing.T, frame []byte, wd byte) []byte {
	t.Helper()
	require.Equal(t, byte(0), frame[4]&(1<<5), "a multi-segment frame")
	c := append([]byte(nil), frame...)
	c[5] = wd
	return c
}

// Test_Decompress_zstdWindow: the largest window zstd's reference decoder accepts in a 32-bit
// build (the JS hosts') is accepted, one step more is corrupt, as it is there. The window costs
// nothing: the history lives in the output buffer.
func Test_Decompress_zstdWindow(t *testing.T) {
	data := sample(10_000, 5)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(false))
	require.NoError(t, err)
	frame := enc.EncodeAll(data, nil)
	largest := withWindow(t, frame, 20<<3|7) // window log 30, mantissa 7: ZstdMaxWindow
	got, err := Decompress(nil, Zstd, largest, len(data), 1<<20)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got), "decoded bytes")
	_, err = Decompress(nil, Zstd, withWindow(t, frame, 21<<3), len(data), 1<<20) // window log 31
	require.True(t, errors.Is(err, ErrCorrupt), "window log 31", err)
}
