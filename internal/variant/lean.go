//go:build pqscan_lean

package variant

import (
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/errf"
)

// The lean wasm module (-tags pqscan_lean, single files) leaves out the Variant decoder and
// encoder: a file with a variant column fails with codec.ErrNotInModule at its footer (scan
// checks Supported), before any row, and the host runs it again in the full module, as it
// does for a file with a page in a rare codec.

// Supported is false: this build has no decoder.
const Supported = false

func Unshred(arrowipc.DataType, *arrowipc.Array) (metadata, value *arrowipc.Array, err error) {
	return nil, nil, errf.Errorf("%w: VARIANT", codec.ErrNotInModule)
}

func AppendJSON(dst []byte, _, _ []byte) ([]byte, error) {
	return dst, errf.Errorf("%w: VARIANT", codec.ErrNotInModule)
}

func Canonical(arrowipc.DataType, *arrowipc.Array) (*arrowipc.Array, error) {
	return nil, errf.Errorf("%w: VARIANT", codec.ErrNotInModule)
}

// JSONFields and JSONArrays meet no variant here: a scan with one fails first (Supported).
func JSONFields(fs []arrowipc.Field) ([]arrowipc.Field, bool) { return fs, false }

func JSONArrays(_ []arrowipc.Field, cols []*arrowipc.Array) ([]*arrowipc.Array, error) {
	return cols, nil
}
