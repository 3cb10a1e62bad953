package codec

// GZIP (gzip.go) and BROTLI (brotli.go) pages are decoded through pooled io.Readers with the
// output bounded by the page header's size.

import (
	"errors"
	"io"

	"github.com/pqscan/pqscan/internal/errf"
)

// readExactly reads exactly n bytes from r into dst's storage and then checks that r is at
// its end by reading at most one more byte, so a stream longer than the header claims is
// stopped after n+1 bytes of work rather than decoded in full.
func readExactly(dst []byte, r io.Reader, n int, codec Codec) ([]byte, error) {
	out := outBuf(dst, n)
	got, err := io.ReadFull(r, out)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return nil, errf.Errorf("%w: %s page decompressed to %d bytes, header says %d", ErrSizeMismatch, codec, got, n)
	case err != nil:
		return nil, errf.Errorf("%w: %s at output byte %d: %w", ErrCorrupt, codec, got, err)
	}
	var one [1]byte
	extra, err := io.ReadFull(r, one[:])
	switch {
	case extra > 0:
		return nil, errf.Errorf("%w: %s page decompresses to more than the %d bytes the header says", ErrSizeMismatch, codec, n)
	case errors.Is(err, io.EOF):
		return out, nil
	default:
		// A checksum or trailer error shows up only once the stream end is read.
		return nil, errf.Errorf("%w: %s after %d bytes: %w", ErrCorrupt, codec, n, err)
	}
}
