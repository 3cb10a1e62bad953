package tablescan

// SELECT min(col), max(col) over a table (Options.MinMax):
// the table's answer folds its files' answers, each found as cheaply as it can be proven.
//
//   - A file the partition values or table statistics rule out contributes nothing and costs
//     nothing (files.go), as for any scan.
//   - A file that needs no residual predicate (its partition values and statistics prove
//     every row matches) is answered from the table log when the log proves it: for a
//     partition column its partition value, when the log states the file has rows (Delta
//     numRecords; a Hive file's row count is only in its footer); for a file column the
//     log's minValues/maxValues when both are exact (delta.Stats marks string bounds, which
//     writers truncate, and millisecond timestamp bounds inexact) and, for floats, the log
//     proves no NaN (it cannot: Delta records no NaN count, so float columns are always
//     read) — or nullCount says every value is null. Such a file fetches nothing, not even
//     its footer.
//   - Every other file runs the engine's own min/max mode with its residual predicate
//     (row groups from exact chunk statistics, the rest read), or, for a partition column,
//     the engine's count mode: the file contributes its partition value when a row matches.
//
// Each file's answer is in its own column type; widening is exact and order-preserving
// (widen.go), so the answer is widened and folded in the table's type. NaN sorts above
// every float as in a file's min/max (prune.Extremes).

import (
	"slices"

	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/scan"
)

// tableMinMax is the running answer of a table's MinMax.
type tableMinMax struct {
	ext prune.Extremes
}

// minMaxFields are the answer's columns: min and max of the table column's type.
func (t *Table) minMaxFields() []arrowipc.Field {
	f := t.table[0]
	f.Nullable, f.Metadata = true, nil
	lo, hi := f, f
	lo.Name, hi.Name = "min", "max"
	return []arrowipc.Field{lo, hi}
}

// minMaxFromLog answers f from the table log when it needs no residual predicate and the log
// proves its min and max (see the package comment above); the file then fetches nothing.
func (t *Table) minMaxFromLog(f *fileState) {
	o := &t.opts
	if o.MinMax == "" || f.done || f.Rows <= 0 || o.NoPrune || slices.Contains(o.Disable, scan.LevelStatistics) {
		return
	}
	if f.deleted != nil && t.partColumn() < 0 {
		return // the log's bounds cover deleted rows: not the live rows' min and max
	}
	if t.where.resExpr != nil && !f.allMatch {
		return
	}
	if p := t.partColumn(); p >= 0 {
		if v := t.parts.Values[f.idx][p]; !v.Null {
			t.mm.ext.Add(v.V)
		}
	} else {
		cs, ok := f.Stats[o.MinMax]
		switch {
		case !ok:
			return
		case cs.NullCount == f.Rows:
			// every value is null: nothing to fold
		case cs.HasMin && cs.HasMax && cs.MinExact && cs.MaxExact && cs.Min.Kind != prune.Float && cs.NaNCount == 0:
			t.mm.ext.AddBounds(cs.Min, cs.Max)
		default:
			return
		}
	}
	f.done, f.skipped = true, "metadata"
	t.report.RowsCountedFromMetadata += f.Rows
}

// partColumn is the partition column index of the min/max column, or -1.
func (t *Table) partColumn() int {
	if t.parts == nil {
		return -1
	}
	return t.parts.Column(t.opts.MinMax)
}

// startMinMax opens f's session: the engine's min/max mode on the file's column with the
// file's residual predicate (o.Where), or its count mode for a partition column or one the
// file fills (File.Fill). A file without the column otherwise contributes nothing and reads
// no further.
func (t *Table) startMinMax(f *fileState, o scan.Options, fs *fileShape) error {
	c := fs.cols[0]
	f.mm = &c
	switch {
	case c.part >= 0, c.src < 0 && c.fill != nil && !c.fill.Null:
		// Every row holds the partition or fill value: it counts when a row matches.
		o.MinMax = ""
		return t.startCount(f, o)
	case c.src < 0:
		f.done = true
		t.report.Files[f.idx].SkippedBy = "schema"
		return nil
	}
	o.MinMax, o.Columns = fs.scanCols[c.src], nil
	s, err := scan.NewCached(o, t.footers)
	if err != nil {
		return err
	}
	s.SetDeleted(f.deleted)
	f.data = s
	return nil
}

// foldFile folds the answer of f's finished session into the table's.
func (t *Table) foldFile(f *fileState) error {
	c := f.mm
	if c.part >= 0 {
		if v := t.parts.Values[f.idx][c.part]; f.data.Counted() > 0 && !v.Null {
			t.mm.ext.Add(v.V)
		}
		return nil
	}
	if c.src < 0 {
		if f.data.Counted() > 0 {
			t.mm.ext.Add(c.fill.V)
		}
		return nil
	}
	e := f.data.Extremes()
	if c.cast && e.Has {
		var err error
		if e.Min, err = widenValue(e.Min, c.from, c.field.Type); err != nil {
			return err
		}
		if e.Max, err = widenValue(e.Max, c.from, c.field.Type); err != nil {
			return err
		}
	}
	t.mm.ext.Merge(e)
	return nil
}

// widenValue is v, a value of type from, as a value of type to (widens is true for them):
// the cast widen performs on arrays, for one value.
func widenValue(v prune.Value, from, to arrowipc.DataType) (prune.Value, error) {
	if from.ID == arrowipc.Int && v.Kind == prune.Uint {
		v = prune.IntValue(int64(v.U)) // widens: a wider signed type holds it
		from = arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}
	}
	f, ok1 := leafType(from)
	t, ok2 := leafType(to)
	if ok1 && ok2 {
		if r, ok := schema.CastValue(v, f, t); ok {
			return r, nil
		}
	}
	return prune.Value{}, errf.Errorf("%w: widening %s to %s", scan.ErrInternal, typeName(from), typeName(to))
}

// minMaxStep returns the table's one-row min/max batch.
func (t *Table) minMaxStep() scan.Step {
	lo, hi, ok := t.mm.ext.Result()
	fields := t.minMaxFields()
	var arrays []*arrowipc.Array
	for _, v := range []prune.Value{lo, hi} {
		a, err := scan.ValueArray(v, ok, fields[0].Type)
		if err != nil {
			return t.fail(err)
		}
		arrays = append(arrays, a)
	}
	b, err := arrowipc.WriteStream(nil, &arrowipc.Schema{Fields: fields}, 1, arrays)
	if err != nil {
		return t.fail(errf.Errorf("%w: min/max batch: %v", scan.ErrInternal, err))
	}
	t.countOut = true
	t.report.RowsReturned = 1
	return scan.Step{Kind: scan.Batch, IPC: b}
}
