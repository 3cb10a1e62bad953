//go:build pqscan_lean

package errkind

import (
	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scan"
)

// sentinels is each kind's error in the lean module, which runs single-file scans only: the
// table, Delta and Iceberg kinds never occur in it (sentinels.go has them all).
var sentinels = [...]error{
	protocol.ErrCorrupt:         scan.ErrCorrupt,
	protocol.ErrNotParquet:      scan.ErrNotParquet,
	protocol.ErrEncrypted:       scan.ErrEncrypted,
	protocol.ErrMemoryCap:       scan.ErrMemoryCap,
	protocol.ErrFileChanged:     scan.ErrFileChanged,
	protocol.ErrNeedsFullModule: codec.ErrNotInModule,
}

// aliases: none of the packages that have any is in the lean module.
var aliases = [0]struct {
	err  error
	kind protocol.ErrorKind
}{}
