//go:build !pqscan_lean

package errkind

import (
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// sentinels is each kind's error; Of tries them in this order.
var sentinels = [...]error{
	protocol.ErrCorrupt:              scan.ErrCorrupt,
	protocol.ErrNotParquet:           scan.ErrNotParquet,
	protocol.ErrEncrypted:            scan.ErrEncrypted,
	protocol.ErrMemoryCap:            scan.ErrMemoryCap,
	protocol.ErrFileChanged:          scan.ErrFileChanged,
	protocol.ErrSchemaMismatch:       tablescan.ErrSchema,
	protocol.ErrUnsupportedFeature:   delta.ErrUnsupportedFeature,
	protocol.ErrDeltaMalformed:       delta.ErrMalformed,
	protocol.ErrDeltaSchema:          delta.ErrSchema,
	protocol.ErrDeltaVersionGap:      delta.ErrVersionGap,
	protocol.ErrDeltaVersionNotFound: delta.ErrVersionNotFound,
	protocol.ErrDeltaNotATable:       delta.ErrNotATable,
	protocol.ErrDeltaNoMetadata:      delta.ErrNoMetadata,
	protocol.ErrDeltaNoProtocol:      delta.ErrNoProtocol,
	protocol.ErrDeltaMissingFile:     delta.ErrMissingFile,
	protocol.ErrDeltaPartition:       delta.ErrPartition,

	protocol.ErrIcebergMalformed:        iceberg.ErrMalformed,
	protocol.ErrIcebergNotATable:        iceberg.ErrNotATable,
	protocol.ErrIcebergSnapshotNotFound: iceberg.ErrSnapshotNotFound,
	protocol.ErrIcebergMissingFile:      iceberg.ErrMissingFile,
	protocol.ErrIcebergOutsideTable:     iceberg.ErrOutsideTable,
	protocol.ErrNeedsFullModule:         codec.ErrNotInModule,
	protocol.ErrOptions:                 discover.ErrOptions,
	protocol.ErrSource:                  discover.ErrSource,
	protocol.ErrListing:                 discover.ErrListing,
	protocol.ErrDelta:                   discover.ErrDelta,
	protocol.ErrIceberg:                 discover.ErrIceberg,
}

// aliases are other packages' sentinels reported as an existing kind: an Iceberg table this
// reader refuses is, to a host, the same "unsupported feature" as a Delta one.
var aliases = [...]struct {
	err  error
	kind protocol.ErrorKind
}{{iceberg.ErrUnsupportedFeature, protocol.ErrUnsupportedFeature}}
