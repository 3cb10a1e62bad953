//go:build !pqscan_lean

package codec

// GZIP (RFC 1952, any number of concatenated members) pages. The lean wasm module
// (-tags pqscan_lean) leaves the decoder out (lean.go): klauspost's inflater with compress/flate,
// compress/gzip and bufio is ~25 KB brotli of the module, and most Parquet writers default to
// SNAPPY or ZSTD.

import (
	"bytes"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/pqscan/pqscan/internal/errf"
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
		return nil, errf.Errorf("%w: GZIP header: %w", ErrCorrupt, err)
	}
	return readExactly(dst, &st.zr, n, Gzip)
}
