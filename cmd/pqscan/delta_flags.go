package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/pqscan/pqscan"
)

// deltaFlags are --delta-version and --delta-as-of: which snapshot of a Delta table source
// to read (pqscan.Options.DeltaVersion, DeltaAsOf; the latest by default).
type deltaFlags struct {
	version int64
	asOf    time.Time
}

// asOfLayouts are the forms --delta-as-of takes; those without a zone are UTC.
var asOfLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"}

func (d *deltaFlags) register(fs *flag.FlagSet) {
	fs.Int64Var(&d.version, "delta-version", -1, "snapshot version of a Delta table folder (-1 = latest)")
	fs.Func("delta-as-of", "TIMESTAMP the Delta table's snapshot committed at or before this time (RFC 3339, or YYYY-MM-DD[ HH:MM:SS] in UTC)", func(v string) error {
		for _, l := range asOfLayouts {
			if t, err := time.Parse(l, v); err == nil {
				d.asOf = t
				return nil
			}
		}
		return fmt.Errorf("%q is not a timestamp (RFC 3339, or YYYY-MM-DD[ HH:MM:SS])", v)
	})
}

func (d *deltaFlags) apply(o *pqscan.Options) {
	if d.version >= 0 {
		o.DeltaVersion = &d.version
	}
	o.DeltaAsOf = d.asOf
}
