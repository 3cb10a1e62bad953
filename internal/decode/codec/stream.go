package codec

// GZIP (RFC 1952, any number of concatenated members) and BROTLI (RFC 7932) pages, decoded
// through pooled io.Readers with the output bounded by the page header's size.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/pqscan/pqscan/internal/decode/codec/brotli"
)

// gzipState is pooled so that a page costs no reader allocation (flate's window and tables).
type gzipState struct {
	src bytes.Reader
	zr  gzip.Reader
}

var gzipPool = sync.Pool{New: func() any { return new(gzipState) }}

// brotliState is pooled for the same reason: the decoder's ring buffer and Huffman tables.
type brotliState struct {
	src bytes.Reader
	br  *brotli.Reader
}

var brotliPool = sync.Pool{New: func() any { return new(brotliState) }}

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

// decodeBrotli decodes one brotli stream in src with dsnet/compress's decoder, vendored as
// ./brotli so that its tables are built at the first BROTLI page instead of at every start of
// the module: andybalholm/brotli links net/http into the module (its HTTPCompressor), which
// measured +0.46 MB brotli more than this decoder (SIZE.md). The decoder's window is at most
// 16 MiB, independent of the page header's size.
func decodeBrotli(dst, src []byte, n int) ([]byte, error) {
	st := brotliPool.Get().(*brotliState)
	defer func() {
		st.src.Reset(nil)
		brotliPool.Put(st)
	}()
	st.src.Reset(src)
	if st.br == nil {
		br, err := brotli.NewReader(&st.src, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: BROTLI: %w", ErrCorrupt, err)
		}
		st.br = br
	} else if err := st.br.Reset(&st.src); err != nil {
		return nil, fmt.Errorf("%w: BROTLI: %w", ErrCorrupt, err)
	}
	return readExactly(dst, st.br, n, Brotli)
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
