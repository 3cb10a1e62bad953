package codec

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pqscan/pqscan/internal/require"
)

const bombSize = 100 << 20 // 100 MiB of zeros

// writeZeros streams bombSize zero bytes into w without holding them in memory.
func writeZeros(t testing.TB, w io.WriteCloser) {
	t.Helper()
	chunk := make([]byte, 1<<20)
	for i := 0; i < bombSize/len(chunk); i++ {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	require.NoError(t, w.Close())
}

type bomb struct {
	name  string
	codec Codec
	src   []byte
}

// makeBombs compresses 100 MiB of zeros with each streaming codec.
func makeBombs(t testing.TB) []bomb {
	var gz, br, zs bytes.Buffer
	gw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	require.NoError(t, err)
	writeZeros(t, gw)
	writeZeros(t, brotli.NewWriterLevel(&br, 1))
	zw, err := zstd.NewWriter(&zs, zstd.WithEncoderConcurrency(1))
	require.NoError(t, err)
	writeZeros(t, zw) // streamed: the frame header has no content size
	var zc bytes.Buffer
	zce, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	require.NoError(t, err)
	zce.ResetContentSize(&zc, bombSize) // the frame header declares 100 MiB
	writeZeros(t, zce)
	return []bomb{
		{name: "GZIP", codec: Gzip, src: gz.Bytes()},
		{name: "BROTLI", codec: Brotli, src: br.Bytes()},
		{name: "ZSTD stream", codec: Zstd, src: zs.Bytes()},
		{name: "ZSTD with content size", codec: Zstd, src: zc.Bytes()},
	}
}

// Test_Decompress_bomb: 100 MiB of zeros claimed as 1 KiB must fail fast and allocate far less
// than the bomb, and the same data must still decode when the claim is honest.
func Test_Decompress_bomb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100 MiB bombs")
	}
	for _, b := range makeBombs(t) {
		t.Run(b.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Decompress(nil, b.codec, b.src, 1024, 1<<30)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, ErrSizeMismatch)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d compressed bytes: %v, %d bytes allocated, %v", len(b.src), err, alloc, elapsed)
			limit := uint64(8 << 20)
			if b.codec == Brotli {
				// andybalholm/brotli sizes its ring buffer from the stream's window and
				// metablock length, up to 16 MiB (1.5x while growing), whatever the claim.
				limit = 25 << 20
			}
			require.True(t, alloc < limit, "allocated", alloc)
			// No bound on elapsed time: the allocation bound above is the deterministic check.

			// Within the cap but smaller than the real output: still stopped at the claim.
			_, err = Decompress(nil, b.codec, b.src, 1<<20, 1<<30)
			require.ErrorIs(t, err, ErrSizeMismatch)
		})
	}
}

// Test_Decompress_sizeChecks: sizes are rejected before any decoding. The inputs are garbage,
// so an error other than ErrTooLarge/ErrInvalidSize would mean decoding started.
func Test_Decompress_sizeChecks(t *testing.T) {
	garbage := []byte("this is not compressed data at all")
	codecs := []Codec{Uncompressed, Snappy, Gzip, Brotli, LZ4, Zstd, LZ4Raw}
	tests := []struct {
		name             string
		src              []byte
		uncompressedSize int
		maxSize          int
		want             error
	}{
		{name: "2 GiB claim over 1 GiB cap", src: garbage, uncompressedSize: 2 << 30, maxSize: 1 << 30, want: ErrTooLarge},
		{name: "one byte over cap", src: garbage, uncompressedSize: 101, maxSize: 100, want: ErrTooLarge},
		{name: "negative size", src: garbage, uncompressedSize: -1, maxSize: 100, want: ErrInvalidSize},
		{name: "negative cap", src: garbage, uncompressedSize: 0, maxSize: -1, want: ErrInvalidSize},
	}
	for _, tc := range tests {
		for _, c := range codecs {
			t.Run(tc.name+"/"+c.String(), func(t *testing.T) {
				out, err := Decompress(make([]byte, 0, 8), c, tc.src, tc.uncompressedSize, tc.maxSize)
				require.ErrorIs(t, err, tc.want)
				require.Equal(t, 0, len(out))
			})
		}
	}
}

// Test_Decompress_expansionLimit: a claim larger than the input could expand to is refused
// without allocating it, for the codecs that have such a bound.
func Test_Decompress_expansionLimit(t *testing.T) {
	tests := []struct {
		name  string
		codec Codec
		src   []byte
	}{
		{name: "GZIP", codec: Gzip, src: compressGzip(t, make([]byte, 100), 9)},
		{name: "ZSTD", codec: Zstd, src: compressZstdStream(t, make([]byte, 100))},
		{name: "LZ4_RAW", codec: LZ4Raw, src: compressLZ4Block(t, make([]byte, 100))},
		{name: "LZ4", codec: LZ4, src: compressHadoopLZ4(t, make([]byte, 100), 1<<20)},
		{name: "SNAPPY", codec: Snappy, src: compressSnappy(t, make([]byte, 100))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			allocs := testing.AllocsPerRun(10, func() {
				_, err := Decompress(nil, tc.codec, tc.src, 1<<30, 1<<31)
				if err == nil {
					t.Fatal("expected an error")
				}
			})
			// Errors are formatted (a few small allocations); the 1 GiB buffer must not be.
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			require.True(t, allocs < 20, "allocs", allocs)
			_, err := Decompress(nil, tc.codec, tc.src, 1<<30, 1<<31)
			if tc.codec == Snappy {
				require.ErrorIs(t, err, ErrSizeMismatch) // its length header is exact
			} else {
				require.ErrorIs(t, err, ErrTooLarge)
			}
		})
	}
}

// Test_Decompress_zeroAlloc: decoding into a large enough dst allocates nothing per page for
// the codecs on the hot path, once pools and the ZSTD decoder are warm.
func Test_Decompress_zeroAlloc(t *testing.T) {
	data := sample(50_000, 9)
	tests := []struct {
		name  string
		codec Codec
		src   []byte
	}{
		{name: "SNAPPY", codec: Snappy, src: compressSnappy(t, data)},
		{name: "ZSTD", codec: Zstd, src: compressZstd(t, data)},
		{name: "LZ4_RAW", codec: LZ4Raw, src: compressLZ4Block(t, data)},
		{name: "LZ4", codec: LZ4, src: compressHadoopLZ4(t, data, 16<<10)},
		{name: "GZIP", codec: Gzip, src: compressGzip(t, data, 6)},
	}
	dst := make([]byte, len(data))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			allocs := testing.AllocsPerRun(20, func() {
				out, err := Decompress(dst, tc.codec, tc.src, len(data), 1<<20)
				if err != nil || !bytes.Equal(out, data) {
					t.Fatal("decode failed", err)
				}
			})
			t.Logf("%s: %.1f allocs per page", tc.name, allocs)
			if tc.codec != Gzip { // flate may allocate a little per member; logged, not asserted
				require.Equal(t, float64(0), allocs)
			}
		})
	}
}
