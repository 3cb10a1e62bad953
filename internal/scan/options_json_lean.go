//go:build pqscan_lean

package scan

import (
	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/codec"
)

// decodeOptionsJSON: the lean wasm module links no encoding/json (its decoder and reflect's
// code, ~60 KB brotli). The bridges send flat objects, which flatjson reads; anything else
// (another host's options, a malformed object) goes to the full module, whose encoding/json
// gives the options or the error.
func decodeOptionsJSON([]byte) (Options, error) {
	return Options{}, errf.Errorf("options: %w: an object flatjson does not read", codec.ErrNotInModule)
}
