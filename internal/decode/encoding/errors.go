package encoding

import "errors"

// Sentinel errors. Every error returned by this package wraps exactly one of these (test with
// errors.Is) and adds the count, offset or width it concerns.
var (
	// ErrTruncated means the input ended before the structure it announced was complete.
	ErrTruncated = errors.New("encoding: input truncated")

	// ErrTooFewValues means the input holds fewer values than the caller asked for.
	ErrTooFewValues = errors.New("encoding: too few values")

	// ErrBitWidth means a bit width is outside what the encoding allows.
	ErrBitWidth = errors.New("encoding: invalid bit width")

	// ErrRunValue means an RLE run repeats a value that does not fit in the declared bit width.
	ErrRunValue = errors.New("encoding: run value exceeds bit width")

	// ErrDictIndex means a dictionary index is not smaller than the dictionary size.
	ErrDictIndex = errors.New("encoding: dictionary index out of range")

	// ErrVarint means a ULEB128 / zigzag varint is overlong or overflows 64 bits.
	ErrVarint = errors.New("encoding: malformed varint")

	// ErrDeltaHeader means a DELTA_BINARY_PACKED header breaks the spec's constraints (block
	// size a positive multiple of 128, miniblock size a multiple of 32) or this package's bound.
	ErrDeltaHeader = errors.New("encoding: invalid delta header")

	// ErrLength means a byte-array length is negative or longer than the input holds.
	ErrLength = errors.New("encoding: invalid byte array length")

	// ErrPrefix means a DELTA_BYTE_ARRAY prefix is longer than the previous value.
	ErrPrefix = errors.New("encoding: prefix longer than previous value")

	// ErrTooLarge means decoded output would exceed the caller's limit or int32 Arrow offsets.
	ErrTooLarge = errors.New("encoding: output too large")

	// ErrSize means a BYTE_STREAM_SPLIT payload is not a whole number of values.
	ErrSize = errors.New("encoding: data size not a multiple of value width")

	// ErrALP means an ALP page breaks AlpEncoding.md: an unknown mode, a vector size, exponent
	// or factor out of range, an element count other than the page's, a misplaced vector, an
	// exception outside its vector.
	ErrALP = errors.New("encoding: invalid ALP data")

	// ErrArgument means the caller passed an impossible argument (negative count, zero width,
	// offsets that do not end at len(data)); it is reported, not panicked, so that a bad page
	// header relayed by the caller cannot trap the wasm instance.
	ErrArgument = errors.New("encoding: invalid argument")
)
