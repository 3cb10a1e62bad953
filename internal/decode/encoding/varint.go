package encoding

import (
	"encoding/binary"

	"github.com/pqscan/pqscan/internal/errf"
)

// Varints (ULEB128) and zigzag varints as used by the RLE/bit-packed hybrid run headers and
// the DELTA_BINARY_PACKED headers (parquet-format Encodings.md).

// uvarint reads a ULEB128 at src[pos:] and returns the value and the position after it.
func uvarint(src []byte, pos int) (uint64, int, error) {
	if pos < len(src) && src[pos] < 0x80 { // one-byte fast path: most run headers
		return uint64(src[pos]), pos + 1, nil
	}
	v, k := binary.Uvarint(src[pos:])
	if k == 0 {
		return 0, pos, errf.Errorf("%w: varint at offset %d", ErrTruncated, pos)
	}
	if k < 0 {
		return 0, pos, errf.Errorf("%w at offset %d", ErrVarint, pos)
	}
	return v, pos + k, nil
}

// zigzag reads a zigzag-encoded signed varint (binary.Varint is exactly that) at src[pos:].
func zigzag(src []byte, pos int) (int64, int, error) {
	v, k := binary.Varint(src[pos:])
	if k == 0 {
		return 0, pos, errf.Errorf("%w: varint at offset %d", ErrTruncated, pos)
	}
	if k < 0 {
		return 0, pos, errf.Errorf("%w at offset %d", ErrVarint, pos)
	}
	return v, pos + k, nil
}
