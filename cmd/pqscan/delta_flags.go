package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/pqscan/pqscan"
)

// deltaFlags are --delta-version and --delta-as-of: which snapshot of a Delta table source
// to read (pqscan.Options.DeltaVersion, DeltaAsOf; the latest by default); --snapshot-id: an
// Iceberg table's (Options.IcebergSnapshotID); --as-of: either kind's at a time (DeltaAsOf
// and IcebergAsOf: a time means the same for both).
type deltaFlags struct {
	version    int64
	asOf       time.Time
	snapshotID int64
	anyAsOf    time.Time
}

// asOfLayouts are the forms --delta-as-of takes; those without a zone are UTC.
var asOfLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"}

func (d *deltaFlags) register(fs *flag.FlagSet) {
	fs.Int64Var(&d.version, "delta-version", -1, "snapshot version of a Delta table folder (-1 = latest)")
	fs.Func("delta-as-of", "TIMESTAMP the Delta table's snapshot committed at or before this time (RFC 3339, or YYYY-MM-DD[ HH:MM:SS] in UTC)", timeFlag(&d.asOf))
	fs.Int64Var(&d.snapshotID, "snapshot-id", -1, "snapshot id of an Iceberg table (-1 = current)")
	fs.Func("as-of", "TIMESTAMP the Delta or Iceberg table's snapshot current at this time (forms as --delta-as-of)", timeFlag(&d.anyAsOf))
}

// timeFlag parses a flag's timestamp into t.
func timeFlag(t *time.Time) func(string) error {
	return func(v string) error {
		for _, l := range asOfLayouts {
			if x, err := time.Parse(l, v); err == nil {
				*t = x
				return nil
			}
		}
		return fmt.Errorf("%q is not a timestamp (RFC 3339, or YYYY-MM-DD[ HH:MM:SS])", v)
	}
}

func (d *deltaFlags) apply(o *pqscan.Options) {
	if d.version >= 0 {
		o.DeltaVersion = &d.version
	}
	o.DeltaAsOf = d.asOf
	if d.snapshotID != -1 {
		o.IcebergSnapshotID = &d.snapshotID
	}
	if !d.anyAsOf.IsZero() {
		o.IcebergAsOf = d.anyAsOf
		if o.DeltaAsOf.IsZero() {
			o.DeltaAsOf = d.anyAsOf
		}
	}
}
