package scan

// Answers from metadata (Options.MinMax): SELECT min(col), max(col) WHERE Where. A row group
// that every row of matches (no predicate, or statistics proving it all-match) and whose
// chunk statistics for col are trusted and exact (package pqstats's rules: column order,
// is_min/max_value_exact, truncated binary bounds, writer bugs; for floats a recorded
// nan_count of 0, since NaN is never in the bounds) gives its bounds without a data byte.
// Every other row group is scanned as a one-column scan would read it (statistics, bloom
// filters, page index, late materialization all apply), and its matching values are folded
// into the running min/max instead of being emitted.

import (
	"encoding/binary"
	"math"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/pqstats"
)

// minMaxState is the running answer of an Options.MinMax scan.
type minMaxState struct {
	col *decode.Column
	t   prune.ColumnType
	ext prune.Extremes
}

// checkMinMax rejects options that make no sense with MinMax.
func (o *Options) checkMinMax() error {
	if o.MinMax == "" {
		return nil
	}
	if o.Count || o.RowIndex != "" || o.OrderBy != "" || o.Limit > 0 || o.Offset > 0 {
		return errf.Errorf("%w: minMax does not combine with count, rowIndex, orderBy, limit or offset", ErrOptions)
	}
	return nil
}

// CheckMinMax is checkMinMax for a table's options (package tablescan), which refuses them
// before any file is planned.
func (o *Options) CheckMinMax() error { return o.checkMinMax() }

// minMaxColumn binds Options.MinMax to a flat leaf column whose values can be ordered, and
// sets the output schema: one row, columns "min" and "max" of the column's type.
func (s *Scanner) minMaxColumn(schema *decode.Schema) ([]*decode.Column, error) {
	c, ok := schema.Find(s.opts.MinMax)
	if !ok {
		return nil, errf.Errorf("%w: minMax: no column %q", ErrOptions, s.opts.MinMax)
	}
	if c.Kind != decode.KindLeaf || c.Node.RepLevel > 0 {
		return nil, errf.Errorf("%w: minMax: %q is not a flat column", ErrOptions, s.opts.MinMax)
	}
	t, ok := pruneType(c)
	if !ok || c.Field.Type.ID == arrowipc.Float && c.Field.Type.BitWidth == 16 {
		return nil, errf.Errorf("%w: minMax: the type %v of %q is not supported", ErrOptions, int(c.Field.Type.ID), s.opts.MinMax)
	}
	s.mm = &minMaxState{col: c, t: t}
	return []*decode.Column{c}, nil
}

// minMaxFields are the result's columns.
func (m *minMaxState) fields() []arrowipc.Field {
	f := m.col.Field
	f.Nullable, f.Metadata = true, nil
	lo, hi := f, f
	lo.Name, hi.Name = "min", "max"
	return []arrowipc.Field{lo, hi}
}

// minMaxWhole answers row group rg from its chunk statistics when they suffice, and reports
// whether they did. The caller has checked that every row of rg matches.
func (s *Scanner) minMaxWhole(rg int) bool {
	m := s.mm
	row := &s.meta.RowGroups[rg]
	cm := row.Columns[m.col.Node.Leaf].MetaData
	cs := pqstats.Chunk(cm, statsOf(m.col, m.t, s.writer, s.meta.ColumnOrders))
	switch {
	case row.NumRows == 0 || cs.NullCount == row.NumRows:
		// nothing but nulls: no value to fold
	case cs.HasMin && cs.HasMax && cs.MinExact && cs.MaxExact && (m.t.Kind != prune.Float || cs.NaNCount == 0):
		m.ext.AddBounds(cs.Min, cs.Max)
	default:
		return false
	}
	s.addCounted(row.NumRows)
	s.report.RowGroupsFromMetadata++
	if r := s.rgReport(rg); r != nil {
		r.SkippedBy, r.RowsMatched = "metadata", row.NumRows
	}
	s.logf("row group %d: min/max of %s from its statistics", rg, s.opts.MinMax)
	return true
}

// foldBatch folds the n rows just read for the window into the running min/max.
func (s *Scanner) foldBatch(n int) error {
	m := s.mm
	if n == 0 {
		return nil
	}
	a, err := decode.Assemble(m.col, n, func(leaf int) *decode.LeafBatch { return s.batches[leaf] })
	if err != nil {
		return err
	}
	if err := m.ext.AddVector(vector(a, m.t, m.col.Field.Type), m.t, n); err != nil {
		return errf.Errorf("%w: minMax: %v", ErrInternal, err)
	}
	return nil
}

// emitMinMax writes the result's one-row batch.
func (s *Scanner) emitMinMax() Step {
	m := s.mm
	lo, hi, ok := m.ext.Result()
	dt := m.col.Field.Type
	var arrays []*arrowipc.Array
	for _, v := range []prune.Value{lo, hi} {
		a, err := valueArray(v, ok, dt)
		if err != nil {
			return s.fail(err)
		}
		arrays = append(arrays, a)
	}
	ipc, err := arrowipc.WriteStream(s.ipc[:0], s.emitSchema(), 1, arrays)
	if err != nil {
		return s.fail(errf.Errorf("%w: %v", ErrInternal, err))
	}
	s.ipc, s.emitted = ipc, true
	s.report.RowsReturned = 1
	return Step{Kind: Batch, IPC: ipc}
}

// valueArray is a one-element array of type dt holding v (null when !ok).
func valueArray(v prune.Value, ok bool, dt arrowipc.DataType) (*arrowipc.Array, error) {
	a := &arrowipc.Array{Len: 1}
	if !ok {
		a.NullCount, a.Validity = 1, []byte{0}
	}
	le := binary.LittleEndian
	switch dt.ID {
	case arrowipc.Bool:
		a.Data = []byte{byte(v.I & 1)}
	case arrowipc.Int, arrowipc.Date32, arrowipc.Time, arrowipc.Timestamp:
		bw := dt.BitWidth
		switch dt.ID {
		case arrowipc.Date32:
			bw = 32
		case arrowipc.Timestamp:
			bw = 64
		}
		x := uint64(v.I)
		if v.Kind == prune.Uint {
			x = v.U
		}
		a.Data = le.AppendUint64(nil, x)[:bw/8]
	case arrowipc.Float:
		if dt.BitWidth == 32 {
			a.Data = le.AppendUint32(nil, math.Float32bits(float32(v.F)))
		} else {
			a.Data = le.AppendUint64(nil, math.Float64bits(v.F))
		}
	case arrowipc.Utf8, arrowipc.Binary:
		a.Offsets, a.Data = []int32{0, int32(len(v.B))}, v.B
	case arrowipc.FixedSizeBinary:
		a.Data = make([]byte, dt.ByteWidth)
		copy(a.Data, v.B)
	case arrowipc.Decimal:
		w := dt.BitWidth / 8
		a.Data = make([]byte, w)
		if v.B == nil { // an int64 unscaled value
			fill := byte(0)
			if v.I < 0 {
				fill = 0xff
			}
			for i := range a.Data {
				a.Data[i] = fill
			}
			le.PutUint64(a.Data, uint64(v.I))
			break
		}
		if len(v.B) > w {
			return nil, errf.Errorf("%w: minMax: a %d-byte decimal in a %d-byte column", ErrCorrupt, len(v.B), w)
		}
		fill := byte(0)
		if len(v.B) > 0 && v.B[0]&0x80 != 0 {
			fill = 0xff
		}
		for i := range a.Data { // big-endian two's complement to little-endian, sign-extended
			a.Data[i] = fill
			if i < len(v.B) {
				a.Data[i] = v.B[len(v.B)-1-i]
			}
		}
	default:
		return nil, errf.Errorf("%w: minMax: type %v", ErrInternal, int(dt.ID))
	}
	return a, nil
}

// Extremes is the running min/max of an Options.MinMax scan, final once it has returned its
// batch: a table (package tablescan) folds its files' answers into its own.
func (s *Scanner) Extremes() prune.Extremes {
	if s.mm == nil {
		return prune.Extremes{}
	}
	return s.mm.ext
}

// ValueArray is a one-element array of type dt holding v (null when !ok): a table's min/max
// row is written as a file's is.
func ValueArray(v prune.Value, ok bool, dt arrowipc.DataType) (*arrowipc.Array, error) {
	return valueArray(v, ok, dt)
}
