package codec

import "errors"

var (
	// ErrUnknownCodec is returned for a codec value that parquet.thrift does not define. Files
	// from newer writers may carry codecs this package predates; the caller reports the column.
	ErrUnknownCodec = errors.New("codec: unknown compression codec")

	// ErrLZONotSupported is returned for LZO pages. LZO has no maintained pure-Go decoder and
	// practically no writer emits it; failing loudly beats returning wrong bytes.
	ErrLZONotSupported = errors.New("codec: LZO is not supported")

	// ErrInvalidSize is returned when uncompressedSize or maxSize is negative: page headers are
	// hostile input and a negative size is a corrupt header, not a request for "no limit".
	ErrInvalidSize = errors.New("codec: invalid size")

	// ErrTooLarge is returned, before any work is done, when the page header's uncompressed
	// size exceeds the caller's memory cap, or exceeds what the compressed bytes could possibly
	// expand to (a header lying to force a large allocation).
	ErrTooLarge = errors.New("codec: uncompressed size exceeds limit")

	// ErrSizeMismatch is returned when the data decompresses to a different number of bytes
	// than the page header claims. Decoding stops as soon as the output would exceed the claim,
	// so a decompression bomb costs at most the claimed size.
	ErrSizeMismatch = errors.New("codec: decompressed size differs from page header")

	// ErrCorrupt is returned when the compressed bytes are malformed (bad header, checksum,
	// back-reference, truncated stream). The codec library's own error is wrapped as well.
	ErrCorrupt = errors.New("codec: corrupt compressed data")

	// ErrNoHostZstd is returned by the wasm module for a ZSTD page when its host does not
	// provide the decoder: the module links none of its own (zstd.go), and a host must
	// implement the import to read ZSTD files.
	ErrNoHostZstd = errors.New("codec: ZSTD pages need the host's decoder (import pqscan_host.zstd_decompress, wasm/ABI.md)")

	// ErrHostZstd is returned by the wasm module when the host's ZSTD decoder failed for a
	// reason of its own (it ran out of memory, or answered a code the ABI does not define),
	// which says nothing about the page.
	ErrHostZstd = errors.New("codec: the host's ZSTD decoder failed")

	// ErrNotInModule is returned by the lean wasm module (-tags pqscan_lean) for a page whose
	// codec it leaves out (BROTLI, LZ4): the scan stops before its first row, and the host
	// runs it again in the full module, which decodes every codec.
	ErrNotInModule = errors.New("codec: this codec is not in the lean module; the full module reads it")
)
