//go:build pqscan_lean

package codec

import "github.com/pqscan/pqscan/internal/errf"

// The lean wasm module (-tags pqscan_lean, the one a page loads first for single files) leaves
// the rare codecs' decoders out (BROTLI, and GZIP, which most writers leave for SNAPPY or ZSTD). A page in one of them fails with ErrNotInModule; the scan
// decodes no page before it has read the first row group's pages, so the error comes before
// any row, and the host reruns the query in the full module.

func decodeBrotli(dst, src []byte, n int) ([]byte, error) {
	return nil, errf.Errorf("%w: BROTLI", ErrNotInModule)
}

func decodeGzip(dst, src []byte, n int) ([]byte, error) {
	return nil, errf.Errorf("%w: GZIP", ErrNotInModule)
}

// Missing reports whether this build leaves out codec c's decoder: a scanner checks every
// column chunk of a footer with it, so that a file needing the full module fails at its
// footer, before any row, whichever row group holds the page.
func Missing(c Codec) bool { return c == Brotli || c == Gzip }
