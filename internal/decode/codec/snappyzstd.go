package codec

// SNAPPY (raw block format, no framing) and ZSTD (RFC 8878, any number of frames) pages.

import (
	"fmt"
	"math"
	"sync"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
)

// decodeSnappy checks the block's length preamble against the header before decoding, so a
// lying preamble cannot make snappy allocate.
func decodeSnappy(dst, src []byte, n int) ([]byte, error) {
	dLen, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, fmt.Errorf("%w: SNAPPY length header: %w", ErrCorrupt, err)
	}
	if dLen != n {
		return nil, fmt.Errorf("%w: SNAPPY block holds %d bytes, header says %d", ErrSizeMismatch, dLen, n)
	}
	out := outBuf(dst, n)
	got, err := snappy.Decode(out, src)
	if err != nil {
		return nil, fmt.Errorf("%w: SNAPPY: %w", ErrCorrupt, err)
	}
	if len(got) != n {
		return nil, fmt.Errorf("%w: SNAPPY decoded %d bytes, header says %d", ErrSizeMismatch, len(got), n)
	}
	return got, nil
}

// zstdDecoder is created on first use: programs that never read a ZSTD page do not pay for the
// decoder's tables. Concurrency 1 makes DecodeAll run on the calling goroutine (required in wasm,
// where other goroutines run only while an export executes) and serializes concurrent calls.
// DecodeAll decodes into the caller's buffer, which doubles as the window, and
// WithDecodeAllCapLimit stops decoding once the output would exceed that buffer's capacity,
// which Decompress sets to exactly the page's uncompressed size.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(math.MaxInt32),
		zstd.WithDecoderMaxWindow(1<<27), // zstd --ultra -22 uses 2^27; parquet writers use far less
		zstd.WithDecodeAllCapLimit(true),
	)
})

// ZstdSlack is the spare output capacity that lets the ZSTD decoder use its wide copies;
// callers that reuse a scratch buffer should give it this much room beyond the page size.
const ZstdSlack = 64

func decodeZstd(dst, src []byte, n int) ([]byte, error) {
	// The three-index slice caps the capacity: with WithDecodeAllCapLimit a frame that
	// declares, or decodes to, more than that fails instead of growing the buffer, and the
	// length check below rejects anything but n. When dst has ZstdSlack spare bytes the
	// decoder may use its fast copy routines, which write past the last byte: with capacity
	// exactly n every block took the slow bounds-exact path (profiled: 2–3× slower).
	c := n
	if cap(dst) >= n+ZstdSlack {
		c = n + ZstdSlack // the caller provided the slack (decode keeps such a scratch buffer)
	}
	out := outBuf(dst, n)[:0:c]
	if got, ok := decodeZstdHost(out, src, n); ok {
		return got, nil
	}
	dec, err := zstdDecoder()
	if err != nil {
		return nil, fmt.Errorf("codec: creating ZSTD decoder: %w", err)
	}
	got, err := dec.DecodeAll(src, out)
	if err != nil {
		if err == zstd.ErrDecoderSizeExceeded || err == zstd.ErrFrameSizeExceeded {
			return nil, fmt.Errorf("%w: ZSTD page decompresses to more than the %d bytes the header says: %w", ErrSizeMismatch, n, err)
		}
		return nil, fmt.Errorf("%w: ZSTD: %w", ErrCorrupt, err)
	}
	if len(got) != n {
		return nil, fmt.Errorf("%w: ZSTD page decompressed to %d bytes, header says %d", ErrSizeMismatch, len(got), n)
	}
	return got, nil
}
