package icebergsession

import (
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/prune"
)

// Pruning before any data request (spec § Scan Planning): with Options.Where, data manifests
// whose partition summaries rule it out are never fetched, and files whose bucket partition
// values rule it out are left out of the snapshot; every file's metrics and other partition
// values become its statistics (tablescan.File.Stats), which the table scan prunes with its
// own predicate before any footer.

// pruner is the snapshot's statistics reader and the open's predicate bound to its columns
// (nil when there is none, or it does not bind: nothing is then skipped here, and the scan
// reports a real error).
func (s *Session) pruner() (*iceberg.Pruner, *prune.Bound) {
	if s.pr != nil || s.meta == nil {
		return s.pr, s.bound
	}
	schema, err := s.snapshotSchema()
	if err != nil {
		return nil, nil
	}
	s.pr = iceberg.NewPruner(s.meta, schema)
	if s.opts.Where != "" {
		if e, err := prune.Parse(s.opts.Where); err == nil {
			s.bound, _ = prune.Bind(e, func(p string) (prune.ColumnType, bool) { t, ok := s.pr.Types[p]; return t, ok })
		}
	}
	return s.pr, s.bound
}

// pruneManifests drops the data manifests the predicate's bound rules out (delete manifests
// are kept: their deletes may apply beyond their partitions).
func (s *Session) pruneManifests() {
	pr, b := s.pruner()
	if b == nil {
		return
	}
	kept := s.mans[:0]
	for _, m := range s.mans {
		if m.Deletes || pr.ManifestMayMatch(b, m) {
			kept = append(kept, m)
		}
	}
	s.skippedManifests += len(s.mans) - len(kept)
	s.mans = kept
}
