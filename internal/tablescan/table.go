// Package tablescan reads many Parquet files as one table, sans-IO, on top of package scan:
// the table session plans across files and the host still only moves bytes (DESIGN.md §7).
//
// A scan proceeds in this order: partition values (Hive key=value
// directories) decide files before any byte is read; then the footers of the surviving files
// are read in one round of requests (one NeedData step spanning every file); then each file's
// own scan (statistics, dictionaries, bloom filters, page index, late materialization) runs,
// several files in lockstep so that one round trip serves all of them, and batches come out in
// file order, mapped onto the table schema (see shape.go). With a limit or an offset, files are
// read one after the other and the scan stops as soon as the limit is met: no footer of a later
// file is fetched.
//
// Each file is scanned by a scan.Scanner of its own; the footer cache (scan.FooterCache) keeps
// a file's decoded footer and tail bytes from the footer round to its data scan.
//
// A host that read a table log (Delta) gives the table schema, the partition columns and each
// file's partition values and statistics (Options.PartitionColumns, File.Partition and
// File.Stats); files are then skipped by partition values, then by statistics (files.go).
//
// Schema resolution (by name or position, union, widening, predicates on missing columns) is
// in resolve.go, widen.go and filewhere.go.
//
// Not yet: listings (globs, folders) inside the engine, nested column paths in Columns. A
// Delta log is replayed by its own engine session (internal/dataset/deltasession), which ends
// with these Options.
package tablescan

import (
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/scan"
)

// fileState is one file of the table.
type fileState struct {
	File
	idx     int
	key     string
	skipped string // "partition": decided before its footer
	// footOnly: a file outside the session's unit (Options.FilesFrom) whose footer the table
	// schema is taken from; its data is not read.
	footOnly bool
	// The footer session (until its Metadata step), then the data session.
	foot   *scan.Scanner
	fields []arrowipc.Field // the file's top-level schema, from the footer session
	// own is the file's schema as written when fields is its view through a column-mapped
	// table schema (mapping.go); nil otherwise.
	own  []arrowipc.Field
	data *scan.Scanner
	// pending are the ranges a session asked for and the host has not pushed yet: its Next is
	// not called again before (a second Next would count the request twice).
	pending []scan.Range
	held    *scan.Step // a Batch waiting for the files before it to finish
	done    bool
	// allMatch: the partition values and file statistics prove every row matches, so the
	// file's scan gets no predicate (files.go); residual is the predicate its scan got.
	allMatch bool
	residual string
	report   scan.Report
	mm       *column            // Options.MinMax: where the file's column comes from (minmax.go)
	deleted  prune.RowSelection // File.Deleted, given to every data session of the file
}

// Table is the table session (scan.TableSession).
type Table struct {
	opts    Options
	footers *scan.FooterCache
	files   []*fileState
	parts   *hive.Partitions
	where   *where
	all     []arrowipc.Field // the whole table schema; nil until the first footer
	mapped  bool             // the host's schema maps columns to file columns (mapping.go)
	table   []arrowipc.Field // the projected table schema
	proj    []int            // the index in all of each column of table
	nPart   int              // partition columns at its end
	head    int              // the first file not finished
	err     error
	metaOut bool // the Metadata step was returned
	asked   bool // the last step was NeedData: its ranges are pushed now
	// offsetLeft and limitLeft follow the table's offset and limit across files (-1: none).
	offsetLeft, limitLeft int64
	counted               int64       // Options.Count: the files' counts so far (count.go)
	countOut              bool        // the count's (or min/max's) batch was returned
	mm                    tableMinMax // Options.MinMax: the files' answers so far (minmax.go)
	tk                    *tableTopK  // Options.OrderBy (topk.go)
	report                scan.Report
	rowGroupLines         int // row-group lines kept in report.Files (scan.MaxTableRowGroups)
}

var _ scan.TableSession = (*Table)(nil)

// New plans a table scan. It does no I/O. footers is the engine's footer cache (nil: a
// private one, which the footer round and the data scans of this session share).
func New(opts Options, footers *scan.FooterCache) (*Table, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if footers == nil {
		footers = scan.NewFooterCache(64 << 20)
	}
	t := &Table{opts: opts, footers: footers, offsetLeft: opts.Offset, limitLeft: -1, mapped: mapped(opts.Table)}
	if opts.Limit > 0 {
		t.limitLeft = opts.Limit
	}
	paths := make([]string, len(opts.Files))
	for i, f := range opts.Files {
		paths[i] = relPath(opts.Root, f.Path)
		if f.Key != "" {
			paths[i] = f.Key
		}
		del, err := f.deletedRows()
		if err != nil {
			return nil, err
		}
		t.files = append(t.files, &fileState{File: f, idx: i, key: errf.Sprintf("%s\x00%s\x00%d", f.Path, f.Version, f.Size), deleted: del})
	}
	if err := t.planFiles(paths); err != nil {
		return nil, err
	}
	if opts.OrderBy != "" {
		if err := t.setupTopK(); err != nil {
			return nil, err
		}
	}
	if opts.Table != nil {
		// The host's schema (a Delta log's, or an earlier session's): the Metadata step
		// needs no footer, so opening a table reads none, whatever a predicate skips.
		if err := t.setTable(nil); err != nil {
			return nil, err
		}
	}
	if opts.FilesFrom > 0 || opts.FilesTo > 0 {
		t.keepUnit()
	}
	t.report.Files = make([]scan.FileReport, len(t.files))
	for i, f := range t.files {
		t.report.Files[i] = scan.FileReport{Path: f.Path, SkippedBy: f.skipped}
		if f.footOnly {
			t.report.Files[i].SkippedBy = "unit"
		}
	}
	return t, nil
}

// sequential is true when files must be read one after the other: an offset or a limit
// depends on how many rows the files before matched.
// A count applies them to the summed count instead (count.go), so its files run together.
// So does ORDER BY (topk.go), which applies them to the merged rows.
func (t *Table) sequential() bool {
	return !t.opts.Count && t.tk == nil && (t.opts.Offset > 0 || t.opts.Limit > 0)
}

func (t *Table) fail(err error) scan.Step {
	if t.err == nil {
		t.err = err
	}
	return scan.Step{Kind: scan.Error, Err: t.err}
}

// Next advances the table scan (see scan.Session and scan.NeedData).
func (t *Table) Next() scan.Step {
	if t.err != nil {
		return scan.Step{Kind: scan.Error, Err: t.err}
	}
	if t.asked {
		// The host pushed what the last NeedData asked for; each session asks again for
		// anything still missing (and the driver's stall guard stops a host that never sends it).
		for _, f := range t.files {
			f.pending = nil
		}
		t.asked = false
	}
	for iter := 0; ; iter++ {
		if iter > 1<<20 {
			return t.fail(errf.Errorf("%w: the table scan made no progress", scan.ErrInternal))
		}
		if t.limitLeft == 0 {
			t.head = len(t.files)
		}
		for t.head < len(t.files) && t.files[t.head].done {
			t.head++
		}
		if t.tk != nil {
			if err := t.pickFile(); err != nil {
				return t.fail(err)
			}
		}
		// Footers: every surviving file's at once, or only the head's when reading in order.
		for i := t.head; i < len(t.files); i++ {
			f := t.files[i]
			if f.done || f.fields != nil || f.foot != nil || (t.tk != nil && !t.wantsFooter(f) && !f.footOnly) {
				continue
			}
			if t.sequential() && i != t.head && !t.unionPending() {
				break
			}
			if err := t.startFooter(f); err != nil {
				return t.fail(err)
			}
		}
		if err := t.advanceAll(); err != nil {
			return t.fail(err)
		}
		if t.unionPending() && t.footersRead() {
			// The union's errors name their file themselves.
			if err := t.setTable(nil); err != nil {
				return t.fail(err)
			}
			continue
		}
		for t.head < len(t.files) && t.files[t.head].done {
			t.head++
		}
		if t.table != nil && t.opts.Metadata && !t.metaOut {
			t.metaOut = true
			return t.metadataStep()
		}
		if t.head < len(t.files) && t.files[t.head].held != nil {
			f := t.files[t.head]
			st := *f.held
			f.held = nil
			return st
		}
		var reqs []scan.FileRange
		for _, f := range t.files {
			for _, r := range f.pending {
				reqs = append(reqs, scan.FileRange{File: f.idx, Range: r})
			}
		}
		if len(reqs) > 0 {
			t.report.RoundTrips++
			t.report.Requests += len(reqs)
			for _, r := range reqs {
				t.report.BytesRequested += r.Len
			}
			t.asked = true
			return scan.Step{Kind: scan.NeedData, Reqs: reqs}
		}
		if t.head >= len(t.files) {
			if t.table == nil && t.opts.Table != nil {
				// Every file was skipped before its footer, and the host gave the schema.
				if err := t.setTable(nil); err != nil {
					return t.fail(err)
				}
				continue
			}
			if t.table == nil && t.opts.Metadata && !t.metaOut && len(t.files) > 0 && !t.files[0].footOnly {
				// Every file was skipped before its footer and the host gave no schema: the
				// first file's footer gives it (as an unskipped first file's would), for an
				// answer with no rows.
				f := t.files[0]
				f.done, f.footOnly, t.head = false, true, 0
				continue
			}
			if t.opts.Count && !t.countOut {
				return t.countStep()
			}
			if t.opts.MinMax != "" && !t.countOut {
				return t.minMaxStep()
			}
			if t.tk != nil && !t.tk.done {
				if st, ok := t.sortedStep(); ok {
					return st
				}
			}
			return scan.Step{Kind: scan.Done}
		}
		// Nothing pending, nothing to emit, files left: a file finished or was skipped, go
		// round again (the loop makes progress: head moves or new sessions start).
		if !t.progressPossible() {
			return t.fail(errf.Errorf("%w: the table scan made no progress", scan.ErrInternal))
		}
	}
}

// Fields returns the whole table schema (file columns, then partition columns) once the
// first footer is read, for Options.Table of later sessions; nil before.
func (t *Table) Fields() []arrowipc.Field { return t.all }

// stepFooter advances a footer session to its Metadata step or its next request.
func (t *Table) stepFooter(f *fileState) error {
	st := f.foot.Next()
	switch st.Kind {
	case scan.NeedRanges:
		f.pending = st.Ranges
		return nil
	case scan.Metadata:
		f.fields = slices.Clone(f.foot.OutputSchema().Fields)
		if t.mapped {
			if err := t.mapFile(f); err != nil {
				return err
			}
		}
		if ri := t.opts.RowIndex; ri != "" {
			// Each file's data session adds its own row index (positions within the file).
			f.fields = append([]arrowipc.Field{rowIndexField(ri)}, f.fields...)
			if f.own != nil {
				f.own = append([]arrowipc.Field{rowIndexField(ri)}, f.own...)
			}
		}
		t.report.Files[f.idx].Rows = st.Meta.NumRows
		if t.tk != nil {
			t.tk.metas[f.idx] = f.foot.Metadata() // the file's bound (topk.go)
		}
		addFooterCounters(&f.report, f.foot.Report())
		f.foot = nil
		if t.table == nil && !t.unionPending() && (t.tk != nil || t.schemaFile(f)) {
			return t.setTable(f)
		}
		return nil
	case scan.Error:
		return st.Err
	}
	return errf.Errorf("%w: footer session step %v", scan.ErrInternal, st.Kind)
}

// startData opens a file's data session with its projection, the residual predicate, the
// table's limit and offset so far, and its shape onto the table schema.
func (t *Table) startData(f *fileState) error {
	fs, err := newFileShape(t.table, t.proj, t.nPart, t.parts, f.idx, f.fields, f.own, f.Path, f.Fill, &t.opts)
	if err != nil {
		return err
	}
	where, any, err := t.fileWhere(f)
	if err != nil {
		return err
	}
	if !any {
		// The predicate is never true on this file (it compares a column the file lacks, or
		// a partition value decides it).
		f.done = true
		t.report.Files[f.idx].SkippedBy = "schema"
		if t.tk != nil {
			delete(t.tk.active, f) // its wave goes on without it (topk.go pickFile)
		}
		return nil
	}
	o := t.opts.Options
	o.FileSize, o.FileKey, o.Metadata = f.Size, f.key, false
	o.Where, f.residual = where, where
	if where == "" && strings.TrimSpace(t.opts.Where) != "" {
		t.report.FilesNoResidual++
	}
	o.Columns = fs.scanCols
	if t.opts.Count {
		return t.startCount(f, o)
	}
	if t.opts.MinMax != "" {
		return t.startMinMax(f, o, fs)
	}
	if len(o.Columns) == 0 {
		// Only partition or missing columns: read one cheap column for the row count.
		o.Columns = []string{f.ownName(0)}
	}
	o.Offset, o.Limit = 0, 0
	if t.sequential() {
		o.Offset = t.offsetLeft
		o.Limit = max(t.limitLeft, 0)
	}
	if t.tk != nil {
		return t.startSorted(f, o, fs)
	}
	s, err := scan.NewCached(o, t.footers)
	if err != nil {
		return err
	}
	s.SetDeleted(f.deleted)
	s.SetShaper(&fs.out, fs.shape)
	f.data = s
	return nil
}

// stepData advances a data session to its next request, batch or end.
func (t *Table) stepData(f *fileState) error {
	st := f.data.Next()
	switch st.Kind {
	case scan.NeedRanges:
		f.pending = st.Ranges
	case scan.Batch:
		if t.opts.Count {
			t.counted += f.data.Counted() // the file's one-row count: summed, not returned
			return nil
		}
		if t.opts.MinMax != "" {
			return t.foldFile(f) // the file's min/max (or count): folded, not returned
		}
		if t.tk != nil {
			return nil // copied aside by the file's shaper (topk.go)
		}
		f.held = &st
	case scan.Done:
		f.done = true
		r := f.data.Report()
		addDataCounters(&f.report, r)
		if t.sequential() {
			// The file's scan skipped min(offset, its matching rows); without a filter every
			// live row matches (the scanner counts RowsMatched only when it filters, and
			// RowsTotal holds the rows the table deletes too).
			matched := r.RowsMatched
			if f.residual == "" {
				matched = r.RowsTotal
				for _, d := range f.deleted {
					matched -= d.End - d.Start
				}
			}
			t.offsetLeft = max(0, t.offsetLeft-matched)
			if t.limitLeft > 0 {
				t.limitLeft -= r.RowsReturned
			}
		}
		t.report.FilesRead++
		fr := &t.report.Files[f.idx]
		fr.BytesRequested, fr.RowsReturned = f.report.BytesRequested, r.RowsReturned
		if t.rowGroupLines+len(r.RowGroups) <= scan.MaxTableRowGroups {
			fr.RowGroups = r.RowGroups
			t.rowGroupLines += len(r.RowGroups)
		}
		if t.opts.Count {
			fr.RowsReturned = f.data.Counted()
		}
		if fr.RowsReturned == 0 && fr.SkippedBy == "" {
			fr.SkippedBy = skippedBy(r)
		}
		if t.tk != nil {
			if err := t.mergeSorted(f); err != nil {
				return err
			}
		}
		f.data = nil
	case scan.Error:
		return st.Err
	default:
		return errf.Errorf("%w: data session step %v", scan.ErrInternal, st.Kind)
	}
	return nil
}
