package tablescan

// SELECT count(*) over a table (Options.Count): the table's
// count is the sum of its files' counts. A file its partition values or table statistics
// rule out counts 0 and costs nothing; every other file runs the engine's count mode with
// its residual predicate, so a file whose partition values and statistics prove that every
// row matches (no residual) is counted from its footer's num_rows, read in the footer round,
// and the others count their row groups and pages from statistics where these decide and
// read the predicate columns only where they do not; a file needing no residual whose row
// count the table log states (File.Rows, Delta numRecords) is counted from it without even a
// footer, so count(*) of a Delta table reads its log alone. The files run together (a count has no
// order to keep); Offset and Limit apply to the sum, as for one file.

import (
	"encoding/binary"
	"slices"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/variant"
)

// countField is the one column of a count's result, as in a file's count (package scan).
var countField = arrowipc.Field{Name: "count", Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}}

// outFields is the schema the session returns: the projected table, a count's column, or a
// min/max's two.
func (t *Table) outFields() []arrowipc.Field {
	switch {
	case t.opts.Count:
		return []arrowipc.Field{countField}
	case t.opts.MinMax != "":
		return t.minMaxFields()
	case t.opts.VariantJSON:
		fs, _ := variant.JSONFields(t.table)
		return fs
	}
	return t.table
}

// countFromLog counts f from File.Rows when it needs no residual predicate (the predicate is
// on partition columns only, or the file statistics prove every row matches), unless
// statistics are switched off. The file then fetches nothing.
func (t *Table) countFromLog(f *fileState) {
	if !t.opts.Count || f.Rows <= 0 || f.done || t.opts.NoPrune || slices.Contains(t.opts.Disable, scan.LevelStatistics) {
		return
	}
	if t.where.resExpr != nil && !f.allMatch {
		return
	}
	f.done, f.skipped = true, "metadata"
	t.counted += f.Rows
	t.report.RowsCountedFromMetadata += f.Rows
	t.report.RowsMatched += f.Rows
}

// startCount opens f's count session with the file's residual predicate (o.Where). The
// file's shape was still formed (startData): a file whose columns cannot be read as the
// table's fails a count as it fails a scan, so that the count is that of the rows a scan
// returns.
func (t *Table) startCount(f *fileState, o scan.Options) error {
	o.Count, o.Columns, o.Offset, o.Limit, o.RowIndex = true, nil, 0, 0, ""
	s, err := scan.NewCached(o, t.footers)
	if err != nil {
		return err
	}
	s.SetDeleted(f.deleted)
	f.data = s
	return nil
}

// countStep returns the table's one-row count batch: the files' counts summed, then the
// table's Offset and Limit.
func (t *Table) countStep() scan.Step {
	n := max(0, t.counted-t.opts.Offset)
	if t.opts.Limit > 0 {
		n = min(n, t.opts.Limit)
	}
	a := &arrowipc.Array{Len: 1, Data: binary.LittleEndian.AppendUint64(nil, uint64(n))}
	b, err := arrowipc.WriteStream(nil, &arrowipc.Schema{Fields: []arrowipc.Field{countField}}, 1, []*arrowipc.Array{a})
	if err != nil {
		return t.fail(errf.Errorf("%w: count batch: %v", scan.ErrInternal, err))
	}
	t.countOut = true
	t.report.RowsReturned = 1
	return scan.Step{Kind: scan.Batch, IPC: b}
}
