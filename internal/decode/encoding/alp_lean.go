//go:build pqscan_lean

package encoding

import "github.com/pqscan/pqscan/internal/errf"

// ALPSupported is false: the lean wasm module (single files, the common encodings and codecs)
// leaves the ALP decoder out; alp.go has it.
const ALPSupported = false

// ALP is reached in the lean module only for a chunk whose metadata does not list the ALP its
// pages use (scan sends a file that lists it to the full module at its footer): too late to
// switch modules without repeating rows, so it fails.
func ALP(dst, _ []byte, _, _ int) ([]byte, error) {
	return dst, errf.Errorf("%w: an ALP page its chunk's encodings do not list, which the lean module cannot read", ErrALP)
}
