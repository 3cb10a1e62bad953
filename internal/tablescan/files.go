package tablescan

import (
	"slices"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
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
		t.countFromLog(f)
		t.minMaxFromLog(f)
	}
	return nil
}

// keepUnit leaves the session the files of its unit (Options.FilesFrom, FilesTo): the others
// are skipped, but for those the table schema is taken from, whose footers are read.
func (t *Table) keepUnit() {
	to := t.opts.FilesTo
	if to == 0 || to > len(t.files) {
		to = len(t.files)
	}
	first := true
	for _, f := range t.files {
		if f.done {
			continue
		}
		if f.idx < t.opts.FilesFrom || f.idx >= to {
			if t.opts.Table == nil && t.tk == nil && (t.opts.UnionSchema || first) {
				f.footOnly = true
			} else {
				f.done, f.skipped = true, "unit"
			}
		}
		first = false
	}
}

// schemaFile says whether f is the file the table schema is taken from when neither the host
// nor a union gives it: the first file left by partitions and statistics, whichever footer
// comes first, so that every session of the same files (a unit's too) has the same schema.
func (t *Table) schemaFile(f *fileState) bool {
	for _, g := range t.files {
		if g.skipped == "" || g.footOnly {
			return g == f
		}
	}
	return false
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

// relPath is p below root, for Hive parsing ("" root: p itself).
func relPath(root, p string) string {
	if root != "" && len(p) > len(root) && p[:len(root)] == root {
		p = p[len(root):]
	}
	for len(p) > 0 && p[0] == '/' {
		p = p[1:]
	}
	return p
}

// skippedBy names the level that left a file without rows.
func skippedBy(r scan.Report) string {
	switch {
	case r.RowGroupsTotal > 0 && r.RowGroupsAfterStats == 0:
		return "statistics"
	case r.RowGroupsAfterStats > 0 && r.RowGroupsAfterBloom == 0:
		return "bloom"
	case r.RowGroupsAfterBloom > 0 && r.RowGroupsAfterDict == 0:
		return "dictionary"
	}
	return "filter"
}

// rowIndexField is the row index column (scan.Options.RowIndex) in the table schema: per
// file, the position of the row in its file.
func rowIndexField(name string) arrowipc.Field {
	return arrowipc.Field{Name: name, Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}}
}

func fieldNames(fs []arrowipc.Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}
