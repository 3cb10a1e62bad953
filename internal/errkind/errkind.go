// Package errkind carries the engine's sentinel errors across the module boundary: the module
// reports the protocol.ErrorKind of each failure (Of), and a Go host wraps the kind's sentinel
// into the error it returns (Wrap), so that errors.Is answers for an engine running in the
// module as it does for the native engine. It links into the module: only sentinels of
// packages the module already links belong here.
package errkind

import (
	"errors"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
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
}

// aliases are other packages' sentinels reported as an existing kind: an Iceberg table this
// reader refuses is, to a host, the same "unsupported feature" as a Delta one.
var aliases = [...]struct {
	err  error
	kind protocol.ErrorKind
}{{iceberg.ErrUnsupportedFeature, protocol.ErrUnsupportedFeature}}

// Of is the kind of err: that of the first sentinel (then alias) err wraps, or ErrOther.
func Of(err error) protocol.ErrorKind {
	for k, s := range sentinels {
		if s != nil && errors.Is(err, s) {
			return protocol.ErrorKind(k)
		}
	}
	for _, a := range aliases {
		if errors.Is(err, a.err) {
			return a.kind
		}
	}
	return protocol.ErrOther
}

// Sentinel is the kind's error, nil for ErrOther and kinds this build does not know.
func Sentinel(k protocol.ErrorKind) error {
	if int(k) < len(sentinels) {
		return sentinels[k]
	}
	return nil
}

// Wrap returns err, which now also wraps the sentinel of kind k: its message is err's. Err
// alone when k has no sentinel.
func Wrap(err error, k protocol.ErrorKind) error {
	s := Sentinel(k)
	if err == nil || s == nil {
		return err
	}
	return &kindError{err, s}
}

type kindError struct{ err, sentinel error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.sentinel} }
