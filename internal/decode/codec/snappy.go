package codec

// SNAPPY pages (raw block format, no framing).

import (
	"github.com/pqscan/pqscan/internal/errf"

	"github.com/golang/snappy"
)

// decodeSnappy checks the block's length preamble against the header before decoding, so a
// lying preamble cannot make snappy allocate.
func decodeSnappy(dst, src []byte, n int) ([]byte, error) {
	dLen, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, errf.Errorf("%w: SNAPPY length header: %w", ErrCorrupt, err)
	}
	if dLen != n {
		return nil, errf.Errorf("%w: SNAPPY block holds %d bytes, header says %d", ErrSizeMismatch, dLen, n)
	}
	out := outBuf(dst, n)
	got, err := snappy.Decode(out, src)
	if err != nil {
		return nil, errf.Errorf("%w: SNAPPY: %w", ErrCorrupt, err)
	}
	if len(got) != n {
		return nil, errf.Errorf("%w: SNAPPY decoded %d bytes, header says %d", ErrSizeMismatch, len(got), n)
	}
	return got, nil
}
