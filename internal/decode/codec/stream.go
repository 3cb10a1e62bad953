package codec

// GZIP (RFC 1952, any number of concatenated members) pages (and BROTLI's, brotli.go), decoded
// through pooled io.Readers with the output bounded by the page header's size.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// gzipState is pooled so that a page costs no reader allocation (flate's window and tables).
type gzipState struct {
	src bytes.Reader
	zr  gzip.Reader
}

var gzipPool = sync.Pool{New: func() any { return new(gzipState) }}

// decodeGzip decodes every gzip member in src. klauspost's gzip.Reader is multistream by
// default, which concatenated_gzip_members.parquet needs.
func decodeGzip(dst, src []byte, n int) ([]byte, error) {
	st := gzipPool.Get().(*gzipState)
	defer func() {
		st.src.Reset(nil)
		gzipPool.Put(st)
	}()
	st.src.Reset(src)
	if err := st.zr.Reset(&st.src); err != nil {
		return nil, fmt.Errorf("%w: GZIP header: %w", ErrCorrupt, err)
	}
	return readExactly(dst, &st.zr, n, Gzip)
}

// readExactly reads exactly n bytes from r into dst's storage and then checks that r is at
// its end by reading at most one more byte, so a stream longer than the header claims is
// stopped after n+1 bytes of work rather than decoded in full.
func readExactly(dst []byte, r io.Reader, n int, codec Codec) ([]byte, error) {
	out := outBuf(dst, n)
	got, err := io.ReadFull(r, out)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return nil, fmt.Errorf("%w: %s page decompressed to %d bytes, header says %d", ErrSizeMismatch, codec, got, n)
	case err != nil:
		return nil, fmt.Errorf("%w: %s at output byte %d: %w", ErrCorrupt, codec, got, err)
	}
	var one [1]byte
	extra, err := io.ReadFull(r, one[:])
	switch {
	case extra > 0:
		return nil, fmt.Errorf("%w: %s page decompresses to more than the %d bytes the header says", ErrSizeMismatch, codec, n)
	case errors.Is(err, io.EOF):
		return out, nil
	default:
		// A checksum or trailer error shows up only once the stream end is read.
		return nil, fmt.Errorf("%w: %s after %d bytes: %w", ErrCorrupt, codec, n, err)
	}
}
