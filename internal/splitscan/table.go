package splitscan

import (
	"context"
	"runtime"

	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablescan"
	"github.com/pqscan/pqscan/internal/unitpool"
)

// A dataset's scan is split into runs of whole files (tablescan.FileUnits), each a table
// session of its own (tablescan.Options.FilesFrom, FilesTo) with the whole scan's schema and
// pruning, run on the pool like a file's units and returned in table order: the rows of one
// table session. Files skipped by their partition values or table statistics cost nothing, so
// the runs are cut by the bytes of the files that may be read.

// StartTable starts a table session (the Reader's engine's).
type StartTable func(context.Context, tablescan.Options) (scan.TableSession, error)

// tableSplit is what a split table scan runs.
type tableSplit struct {
	units []scan.Unit // Start, End: file indexes
	opts  tablescan.Options
	start StartTable
	files func(i int) (httpclient.Source, string, error)
}

// NewTable returns the split of a table scan with options to, whose session sess has reached
// its Metadata step, when threads (0: runtime.NumCPU) allow it, the scan's answer is its
// files' answers in order (no count, min/max, ORDER BY, explain, limit or offset), every file
// that may be read has a known size and they hold at least two units' worth; else nil. files
// resolves the table's files for the units' drivers.
func NewTable(sess scan.Session, to tablescan.Options, threads int, start StartTable, files func(i int) (httpclient.Source, string, error)) *Scan {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	if threads <= 1 || !splittable(to.Options) || to.Limit != 0 || to.Offset != 0 || len(to.Files) < 2 {
		return nil
	}
	skipped := sess.Report().Files // decided before any footer: partitions, table statistics
	bytes := make([]int64, len(to.Files))
	var total int64
	for i, f := range to.Files {
		if i < len(skipped) && skipped[i].SkippedBy != "" {
			continue
		}
		if f.Size <= 0 {
			return nil
		}
		bytes[i] = f.Size
		total += f.Size
	}
	if total < 2*UnitMinBytes {
		return nil
	}
	units := tablescan.FileUnits(bytes, scan.UnitTarget(total, threads, UnitMinBytes))
	if len(units) < 2 {
		return nil
	}
	uo := to
	uo.Metadata = false
	return &Scan{threads: threads, table: &tableSplit{units: units, opts: uo, start: start, files: files}}
}

// startTable starts the units of a table scan.
func (s *Scan) startTable(ctx context.Context) {
	t := s.table
	s.pool = unitpool.Start(ctx, unitpool.Config{Units: t.units, Threads: s.threads, MemoryCap: t.opts.MemoryCap, Files: t.files,
		Open: func(ctx context.Context, u scan.Unit) (scan.Session, error) {
			o := t.opts
			o.FilesFrom, o.FilesTo = int(u.Start), int(u.End)
			return t.start(ctx, o)
		}})
}

// tableReport is a split table scan's report: the units' merged once one has ended, plus
// what the first session (sess) read before they started (the footer its schema came from,
// and with a deferred schema the first round of footers); the first session's before.
func (s *Scan) tableReport(sess scan.Session) scan.Report {
	first := sess.Report()
	reps := s.pool.Reports()
	for _, r := range reps {
		if r.Files != nil {
			rep := tablescan.MergeUnitReports(s.table.units, reps)
			rep.Requests += first.Requests
			rep.RoundTrips += first.RoundTrips
			rep.BytesRequested += first.BytesRequested
			rep.BytesPushed += first.BytesPushed
			st := s.pool.Stats()
			rep.Units, rep.Threads = st.Units, st.Threads
			return rep
		}
	}
	return first
}
