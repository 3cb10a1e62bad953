package wazerohost

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_zstdInto: the host decoder writes into the guest's buffer and never past its capacity.
func Test_zstdInto(t *testing.T) {
	plain := bytes.Repeat([]byte("pqscan host zstd "), 1000)
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	frame := enc.EncodeAll(plain, nil)
	two := append(append([]byte(nil), frame...), frame...)
	tests := []struct {
		name string
		src  []byte
		cap  int
		want int32
	}{
		{name: "exact capacity", src: frame, cap: len(plain), want: int32(len(plain))},
		{name: "slack", src: frame, cap: len(plain) + 64, want: int32(len(plain))},
		{name: "two frames", src: two, cap: 2 * len(plain), want: int32(2 * len(plain))},
		{name: "one byte short", src: frame, cap: len(plain) - 1, want: zstdTooLarge},
		{name: "second frame does not fit", src: two, cap: len(plain) + 10, want: zstdTooLarge},
		{name: "garbage", src: []byte("not a zstd frame at all"), cap: 100, want: zstdCorrupt},
		{name: "truncated", src: frame[:len(frame)/2], cap: len(plain), want: zstdCorrupt},
	}
	// A multi-segment frame with a 16 MiB window: declined by the host (its memory, outside the
	// guest's cap), decoded by the module's own decoder, which allows up to 2^27.
	big := bytes.Repeat([]byte("0123456789abcdef"), 12<<16) // 12 MiB: the window stays 16 MiB
	wide, err := zstd.NewWriter(nil, zstd.WithWindowSize(16<<20), zstd.WithSingleSegment(false))
	require.NoError(t, err)
	wideFrame := wide.EncodeAll(big, nil)
	tests = append(tests, struct {
		name string
		src  []byte
		cap  int
		want int32
	}{name: "window past the host's bound", src: wideFrame, cap: len(big), want: zstdCorrupt})
	own, err := codec.Decompress(nil, codec.Zstd, wideFrame, len(big), 1<<30)
	require.NoError(t, err)
	require.True(t, bytes.Equal(own, big), "the module's decoder reads the wide frame")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := make([]byte, tc.cap+16) // the bytes after the buffer stand for other guest memory
			got := zstdInto(mem[:tc.cap], tc.src)
			require.Equal(t, tc.want, got)
			if got > 0 {
				require.True(t, bytes.Equal(mem[:got], bytes.Repeat(plain, int(got)/len(plain))), "decoded bytes differ")
			}
			require.True(t, bytes.Equal(mem[tc.cap:], make([]byte, 16)), "wrote past the buffer")
		})
	}
}

// FuzzZstdInto: on any input and buffer size the host decoder writes only inside the buffer,
// and what it accepts is exactly what the module's own decoder (package codec, the fallback)
// decodes, so a host never changes a scan's bytes.
func FuzzZstdInto(f *testing.F) {
	enc, err := zstd.NewWriter(nil)
	require.NoError(f, err)
	for _, plain := range [][]byte{nil, []byte("a"), bytes.Repeat([]byte("pqscan "), 300)} {
		frame := enc.EncodeAll(plain, nil)
		f.Add(frame, uint16(len(plain)))
		f.Add(frame, uint16(len(plain)+64))
		f.Add(frame[:len(frame)/2], uint16(len(plain)))
	}
	f.Fuzz(func(t *testing.T, src []byte, capacity uint16) {
		mem := make([]byte, int(capacity)+16)
		got := zstdInto(mem[:capacity], src)
		require.True(t, bytes.Equal(mem[capacity:], make([]byte, 16)), "wrote past the buffer")
		if got < 0 {
			require.True(t, got == zstdCorrupt || got == zstdTooLarge, "code", got)
			return
		}
		want, err := codec.Decompress(make([]byte, 0, int(got)+codec.ZstdSlack), codec.Zstd, src, int(got), 1<<20)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, mem[:got]), "host and module decoders disagree")
	})
}
