package tablescan

import (
	"slices"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/scan"
)

// planFiles fixes the partition columns (from the host's per-file values, else from Hive
// paths) and decides which files are skipped before their footer: first by partition values
// (exactly: the partition conjuncts never reach a file's scan), then by the files'
// table-level statistics, which only skip a file when prune.Bound.MayMatch proves no row can
// match (the same rules as row-group statistics: absent statistics are unknown, inexact
// bounds only widen). paths are the files' paths below the root.
func (t *Table) planFiles(paths []string) error {
	opts := &t.opts
	switch {
	case len(opts.PartitionColumns) > 0:
		p := &hive.Partitions{Columns: opts.PartitionColumns}
		for _, f := range opts.Files {
			p.Values = append(p.Values, f.Partition)
		}
		t.parts = p
	case !opts.NoHive:
		p, err := hive.Resolve(paths, hive.Options{})
		if err != nil {
			return err
		}
		if len(p.Columns) > 0 {
			t.parts = p
		}
	}
	w, err := splitWhere(opts.Where, t.parts)
	if err != nil {
		return err
	}
	t.where = w
	stats := t.statsBound(opts.Where)
	residual := t.statsBound(w.residual)
	t.report.FilesTotal = len(t.files)
	for _, f := range t.files {
		if t.parts != nil {
			ok, err := w.fileMatches(t.parts, f.idx)
			if err != nil {
				return err
			}
			if !ok {
				f.skipped, f.done = "partition", true
				continue
			}
		}
		t.report.FilesAfterPartitions++
		if stats != nil && f.Stats != nil && !stats.MayMatch(func(path string) (prune.ColStats, bool) {
			c, ok := f.Stats[path]
			return c, ok
		}) {
			f.skipped, f.done = "file statistics", true
			continue
		}
		t.report.FilesAfterStats++
		// Statistics that prove every row satisfies the file conjuncts (the partition ones
		// are decided exactly above) leave the file's scan without a predicate.
		f.allMatch = residual != nil && f.Stats != nil && residual.MustMatch(func(path string) (prune.ColStats, bool) {
			c, ok := f.Stats[path]
			return c, ok
		})
	}
	return nil
}

// statsBound binds a predicate (the whole one, or the residual) for file statistics, or
// returns nil when files are not skipped by statistics (no statistics, no predicate, pruning
// off, or a predicate the statistics' types cannot bind: the file scans then report any real
// error).
func (t *Table) statsBound(where string) *prune.Bound {
	opts := &t.opts
	if opts.StatTypes == nil || opts.NoPrune || where == "" || slices.Contains(opts.Disable, scan.LevelStatistics) {
		return nil
	}
	e, err := prune.Parse(where)
	if err != nil {
		return nil
	}
	b, err := prune.Bind(e, func(path string) (prune.ColumnType, bool) {
		t, ok := opts.StatTypes[path]
		return t, ok
	})
	if err != nil {
		return nil
	}
	return b
}
