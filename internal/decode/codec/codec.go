// Package codec decompresses Parquet page bodies (parquet-format Compression.md,
// parquet.thrift CompressionCodec) with the output size bounded before and during decoding.
//
// Scope: UNCOMPRESSED, SNAPPY, GZIP (concatenated members), BROTLI, ZSTD (concatenated frames),
// LZ4_RAW, and the deprecated LZ4 codec (Hadoop framing, falling back to a raw block as Arrow
// C++ does). LZO is rejected. Non-goals: compression, streaming, dictionaries.
//
// Every call is bounded: the page header's uncompressed size is checked against the caller's
// memory cap and against what the input could possibly expand to before anything is
// allocated, and decoding stops as soon as the output would exceed the claimed size, so a
// decompression bomb costs at most min(uncompressedSize, maxSize) bytes of output.
//
// The LZ4 block decoder is written here rather than imported: it is ~80 lines, and pierrec/lz4
// would add 35 KB raw / 13 KB brotli to the module (SIZE.md has each codec's measured cost;
// note that andybalholm/brotli links net/http, the largest cost in the package).
//
// ZSTD is decoded by klauspost's decoder natively and by the host in the wasm module, which
// links no ZSTD decoder of its own (zstd.go, wasm/ABI.md "Host imports").
//
// Concurrency: Decompress is safe for concurrent use. Decoder state (gzip, brotli readers) is
// pooled; natively ZSTD uses one lazily created package-level decoder with concurrency 1, which
// keeps DecodeAll on the calling goroutine and serializes concurrent ZSTD calls.
package codec

import (
	"math"

	"github.com/pqscan/pqscan/internal/errf"
)

// Codec is parquet.thrift's CompressionCodec. The values are the wire values; decode/format has
// its own enum with the same numbers and callers convert with Codec(x).
type Codec int32

// The parquet.thrift CompressionCodec values.
const (
	Uncompressed Codec = 0
	Snappy       Codec = 1
	Gzip         Codec = 2
	LZO          Codec = 3
	Brotli       Codec = 4
	LZ4          Codec = 5 // deprecated Hadoop-framed LZ4
	Zstd         Codec = 6
	LZ4Raw       Codec = 7
)

var codecNames = [...]string{"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"}

// String returns the parquet.thrift name (e.g. "LZ4_RAW"), or "Codec(n)" for unknown values.
func (c Codec) String() string {
	if c >= 0 && int(c) < len(codecNames) {
		return codecNames[c]
	}
	return errf.Sprintf("Codec(%d)", int32(c))
}

// Maximum expansion ratios, used to reject a header whose uncompressed size the input cannot
// possibly reach before allocating it. DEFLATE needs at least 2 bits (length + distance code)
// per 258 output bytes; an LZ4 sequence gains at most 255 output bytes per input byte; a ZSTD
// block of at most 128 KiB needs at least a 3-byte header plus one byte (an RLE block). The
// slack covers small inputs. BROTLI can legitimately expand far more, so it is bounded only by
// maxSize.
const (
	deflateMaxRatio = 1032
	lz4MaxRatio     = 255
	zstdMaxRatio    = 128 << 10 / 4
	ratioSlack      = 1 << 10
)

// Decompress decodes one Parquet page body compressed with codec into dst[:0] (reusing dst's
// capacity), where uncompressedSize is the page header's uncompressed_page_size. It returns an
// error if the output would differ from uncompressedSize or exceed maxSize (the memory cap).
//
// The result aliases dst when cap(dst) >= uncompressedSize; otherwise a new buffer of exactly
// uncompressedSize bytes is allocated (after the size checks). On error it returns dst[:0] so
// the caller keeps its buffer. UNCOMPRESSED copies src; callers that can use src in place
// should not call Decompress for it.
//
// An empty src with uncompressedSize 0 is accepted for every codec: writers emit zero-byte
// bodies for empty data page v2 sections.
func Decompress(dst []byte, codec Codec, src []byte, uncompressedSize int, maxSize int) ([]byte, error) {
	if uncompressedSize < 0 || maxSize < 0 {
		return dst[:0], errf.Errorf("%w: %s uncompressed size %d, cap %d", ErrInvalidSize, codec, uncompressedSize, maxSize)
	}
	if uncompressedSize > maxSize {
		return dst[:0], errf.Errorf("%w: %s page claims %d bytes, cap is %d", ErrTooLarge, codec, uncompressedSize, maxSize)
	}
	switch codec {
	case Uncompressed, Snappy, Gzip, Brotli, LZ4, Zstd, LZ4Raw:
	case LZO:
		return dst[:0], ErrLZONotSupported
	default:
		return dst[:0], errf.Errorf("%w: %d", ErrUnknownCodec, int32(codec))
	}
	if len(src) == 0 && uncompressedSize == 0 {
		return dst[:0], nil
	}
	if limit := expansionLimit(codec, len(src)); uncompressedSize > limit {
		return dst[:0], errf.Errorf("%w: %s page claims %d bytes, %d compressed bytes can hold at most %d",
			ErrTooLarge, codec, uncompressedSize, len(src), limit)
	}

	var (
		out []byte
		err error
	)
	switch codec {
	case Uncompressed:
		if len(src) != uncompressedSize {
			return dst[:0], errf.Errorf("%w: UNCOMPRESSED page has %d bytes, header says %d", ErrSizeMismatch, len(src), uncompressedSize)
		}
		return append(dst[:0], src...), nil
	case Snappy:
		out, err = decodeSnappy(dst, src, uncompressedSize)
	case Gzip:
		out, err = decodeGzip(dst, src, uncompressedSize)
	case Brotli:
		out, err = decodeBrotli(dst, src, uncompressedSize)
	case Zstd:
		out, err = decodeZstd(dst, src, uncompressedSize)
	case LZ4Raw:
		out, err = decodeLZ4Raw(dst, src, uncompressedSize)
	case LZ4:
		out, err = decodeLZ4Hadoop(dst, src, uncompressedSize)
	}
	if err != nil {
		return dst[:0], err
	}
	return out, nil
}

// expansionLimit is the largest output n compressed bytes can decode to with codec, capped to
// math.MaxInt32 (page sizes are int32 in parquet.thrift).
func expansionLimit(codec Codec, n int) int {
	var ratio int
	switch codec {
	case Gzip:
		ratio = deflateMaxRatio
	case LZ4, LZ4Raw:
		ratio = lz4MaxRatio
	case Zstd:
		ratio = zstdMaxRatio
	default: // SNAPPY has an exact length header; BROTLI has no useful bound; UNCOMPRESSED is exact.
		return math.MaxInt32
	}
	if n > (math.MaxInt32-ratioSlack)/ratio {
		return math.MaxInt32
	}
	return n*ratio + ratioSlack
}

// outBuf returns dst resized to exactly n bytes, allocating only when dst is too small.
func outBuf(dst []byte, n int) []byte {
	if cap(dst) < n {
		return make([]byte, n)
	}
	return dst[:n]
}
