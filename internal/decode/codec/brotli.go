//go:build !pqscan_lean

package codec

// BROTLI (RFC 7932) pages. The lean wasm module (-tags pqscan_lean) leaves the decoder out
// (lean.go): BROTLI is rare in Parquet files, and its decoder's tables and code are ~18 KB
// brotli of the module.

import (
	"bytes"
	"sync"

	"github.com/pqscan/pqscan/internal/decode/codec/brotli"
	"github.com/pqscan/pqscan/internal/errf"
)

// brotliState is pooled for the same reason: the decoder's ring buffer and Huffman tables.
type brotliState struct {
	src bytes.Reader
	br  *brotli.Reader
}

var brotliPool = sync.Pool{New: func() any { return new(brotliState) }}

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
			return nil, errf.Errorf("%w: BROTLI: %w", ErrCorrupt, err)
		}
		st.br = br
	} else if err := st.br.Reset(&st.src); err != nil {
		return nil, errf.Errorf("%w: BROTLI: %w", ErrCorrupt, err)
	}
	return readExactly(dst, st.br, n, Brotli)
}

// Missing reports whether this build leaves out codec c's decoder: never in the full build
// (lean.go has the lean module's).
func Missing(Codec) bool { return false }
