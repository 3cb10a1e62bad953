//go:build !wasip1

package codec

import (
	"errors"
	"math"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/pqscan/pqscan/internal/errf"
)

// NewZstdDecoder returns klauspost's decoder with the limits every engine shares: DecodeAll
// decodes into the caller's buffer, which doubles as the window, and WithDecodeAllCapLimit
// stops decoding once the output would exceed that buffer's capacity. The wazero host decodes
// the module's pages with it (wazerohost/hostzstd.go), so its answers are the native build's.
// concurrency is zstd.WithDecoderConcurrency's: 1 runs DecodeAll on the calling goroutine and
// serializes concurrent calls.
func NewZstdDecoder(concurrency int) (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(concurrency),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(math.MaxInt32),
		zstd.WithDecoderMaxWindow(ZstdMaxWindow),
		zstd.WithDecodeAllCapLimit(true),
	)
}

// zstdDecoder is created on first use: programs that never read a ZSTD page do not pay for the
// decoder's tables. It is shared by every session of the process, and scans split into units
// decode pages on several goroutines at once: concurrency 0 (GOMAXPROCS) lets that many
// DecodeAll calls run at once, each on its caller's goroutine (with 1 they would take turns,
// and ZSTD is half the CPU of a scan of the events file).
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) { return NewZstdDecoder(0) })

// zstdDecode decodes the frames of src into buf[:0:len(buf)] and answers as the host import
// does (ZstdAnswer).
func zstdDecode(buf, src []byte) (int32, error) {
	dec, err := zstdDecoder()
	if err != nil {
		return 0, errf.Errorf("codec: creating ZSTD decoder: %w", err)
	}
	got, err := dec.DecodeAll(src, buf[:0:len(buf)])
	return ZstdAnswer(got, err, len(buf)), nil
}

// ZstdAnswer classifies what a DecodeAll into a buffer of capacity c returned as the import
// pqscan_host.zstd_decompress answers (wasm/ABI.md): the decoded length, ZstdTooLarge when the
// output would not fit, ZstdCorrupt for every other error. klauspost's decoder, out of room
// in the middle of a block, says "output bigger than max block size" rather than
// ErrDecoderSizeExceeded (its own words: no sentinel): with less than a block's room left
// that error is taken as the output not fitting, so that a caller that does not know the
// decoded size (an Avro block) grows its buffer, as zstd's C decoder answers in the JS hosts.
func ZstdAnswer(got []byte, err error, c int) int32 {
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrFrameSizeExceeded):
		return ZstdTooLarge
	case err != nil && len(got)+zstdMaxBlock > c && strings.HasPrefix(err.Error(), "output bigger than max block size"):
		return ZstdTooLarge
	case err != nil:
		return ZstdCorrupt
	case len(got) > math.MaxInt32:
		return ZstdTooLarge
	}
	return int32(len(got))
}

// zstdMaxBlock is the largest block a frame may hold (RFC 8878 3.1.1.2.3).
const zstdMaxBlock = 128 << 10
