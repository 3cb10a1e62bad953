package wazerohost

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
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
		{name: "one byte short", src: frame, cap: len(plain) - 1, want: codec.ZstdTooLarge},
		{name: "second frame does not fit", src: two, cap: len(plain) + 10, want: codec.ZstdTooLarge},
		{name: "garbage", src: []byte("not a zstd frame at all"), cap: 100, want: codec.ZstdCorrupt},
		{name: "truncated", src: frame[:len(frame)/2], cap: len(plain), want: codec.ZstdCorrupt},
	}
	// A multi-segment frame declaring the largest window the engines accept (codec.ZstdMaxWindow,
	// window log 30 and mantissa 7), and one step past it: the host answers as the native
	// build decodes, the window costing nothing beyond the buffer.
	multi, err := zstd.NewWriter(nil, zstd.WithSingleSegment(false))
	require.NoError(t, err)
	wide := multi.EncodeAll(plain, nil)
	require.Equal(t, byte(0), wide[4]&(1<<5), "a multi-segment frame")
	widest := append([]byte(nil), wide...)
	widest[5] = 20<<3 | 7
	past := append([]byte(nil), wide...)
	past[5] = 21 << 3
	tests = append(tests, []struct {
		name string
		src  []byte
		cap  int
		want int32
	}{
		{name: "window of ZstdMaxWindow", src: widest, cap: len(plain), want: int32(len(plain))},
		{name: "window past ZstdMaxWindow", src: past, cap: len(plain), want: codec.ZstdCorrupt},
	}...)
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
// and what it accepts is exactly what the native build decodes (package codec), so the host
// never changes a scan's bytes.
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
			require.True(t, got == codec.ZstdCorrupt || got == codec.ZstdTooLarge, "code", got)
			return
		}
		want, err := codec.Decompress(make([]byte, 0, int(got)+codec.ZstdSlack), codec.Zstd, src, int(got), 1<<20)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, mem[:got]), "host and module decoders disagree")
	})
}

// Test_noHostZstd: a host that answers the import with "not provided" (a third-party host
// without a decoder) gets a clear error on the first ZSTD page, the same from every scan, and
// still reads files without ZSTD pages.
func Test_noHostZstd(t *testing.T) {
	h := newHost(t, Config{noHostZstd: true})
	tests := []struct {
		name string
		file string
		err  string
	}{
		{name: "ZSTD pages", file: "parquet-testing/data/byte_stream_split.zstd.parquet",
			err: codec.ErrNoHostZstd.Error()},
		{name: "no ZSTD pages", file: "parquet-testing/data/alltypes_plain.snappy.parquet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := testcorpus.Read(t, tc.file)
			for range 2 { // the instance goes on answering the same
				got, _ := runWasm(t, h, file, scan.Options{})
				if tc.err == "" {
					want := runNative(t, file, scan.Options{})
					require.True(t, equalResults(t, tc.file, want.comparable(), got.comparable()), "the native engine's result")
					continue
				}
				require.True(t, strings.Contains(got.err, tc.err), "error", got.err)
				require.Equal(t, 0, len(got.streams))
			}
		})
	}
	require.Equal(t, int64(0), h.Stats().HostZstd)
}
