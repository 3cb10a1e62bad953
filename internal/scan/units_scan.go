package scan

import (
	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/prune"
)

// The Scanner's side of scan units (units.go): a session restricted to a unit's rows
// (Options.RowsFrom, RowsTo) and a planning session that cuts the scan into units
// (Options.PlanUnits, Units).

// PlannedBytes and Units are functions, not methods: the module links every exported method
// of a type it boxes (reflect), and only native hosts split scans.

// unit reports whether the session is one unit of a split scan.
func (o *Options) unit() bool { return o.RowsFrom > 0 || o.RowsTo > 0 }

// checkUnit refuses a unit (or a unit plan) of a scan whose answer is not the concatenation
// of its units' answers: a count, a min/max and a sort combine rows across the whole file.
func (o *Options) checkUnit() error {
	if !o.unit() && o.PlanUnits == 0 {
		return nil
	}
	if o.RowsFrom < 0 || o.RowsTo < 0 || o.PlanUnits < 0 || (o.RowsTo > 0 && o.RowsTo <= o.RowsFrom) {
		return errf.Errorf("%w: unit rows [%d, %d)", ErrOptions, o.RowsFrom, o.RowsTo)
	}
	if o.Count || o.MinMax != "" || o.OrderBy != "" {
		return errf.Errorf("%w: a count, minMax or orderBy scan is not split into units", ErrOptions)
	}
	return nil
}

// cutsRowGroup reports whether the unit takes part of row group rg, not all of it (its pages
// are then chosen with the offset index).
func (o *Options) cutsRowGroup(starts []int64, meta *format.FileMetaData, rg int) bool {
	if !o.unit() {
		return false
	}
	a, b := starts[rg], starts[rg]+meta.RowGroups[rg].NumRows
	return o.RowsFrom > a || (o.RowsTo > 0 && o.RowsTo < b)
}

// mayCut reports whether a PlanUnits session may cut row group rg (its columns read hold at
// least one and a half units), so that the index round fetches their offset indexes.
func (o *Options) mayCut(meta *format.FileMetaData, rg int, read []*decode.Column) bool {
	if o.PlanUnits <= 0 {
		return false
	}
	return splitsRowGroup(chunkBytes(meta, rg, read), o.PlanUnits)
}

// chunkBytes is the compressed size of row group rg's chunks of the columns read.
func chunkBytes(meta *format.FileMetaData, rg int, read []*decode.Column) int64 {
	var n int64
	for _, l := range read {
		n += meta.RowGroups[rg].Columns[l.Node.Leaf].MetaData.TotalCompressedSize
	}
	return n
}

// inUnit reports whether row group rg holds a row of the unit.
func (s *Scanner) inUnit(rg int) bool {
	if !s.opts.unit() {
		return true
	}
	a, b := s.rgStarts[rg], s.rgStarts[rg]+s.meta.RowGroups[rg].NumRows
	return b > s.opts.RowsFrom && (s.opts.RowsTo == 0 || a < s.opts.RowsTo)
}

// unitRows narrows rows (of row group rg, relative to its first row) to the unit's.
func (s *Scanner) unitRows(rg int, rows prune.RowSelection) prune.RowSelection {
	if !s.opts.unit() {
		return rows
	}
	a := s.rgStarts[rg]
	n := s.meta.RowGroups[rg].NumRows
	lo, hi := max(0, s.opts.RowsFrom-a), n
	if s.opts.RowsTo > 0 {
		hi = min(n, s.opts.RowsTo-a)
	}
	if lo >= hi {
		return nil
	}
	return rows.Intersect(prune.RowSelection{{Start: lo, End: hi}})
}

// PlannedBytes is, once the footer is decoded (from the Metadata step on), the compressed
// bytes of the columns read in the row groups the slice and statistics levels kept (without
// a predicate, the part of them a limit takes, by rows): about what the data phase reads at
// most, so that a preview of a large row group is not split.
func PlannedBytes(s *Scanner) int64 {
	var n int64
	left := int64(-1)
	if s.pred == nil && s.opts.Limit > 0 {
		left = s.opts.Limit
	}
	for _, g := range s.plan {
		b := chunkBytes(s.meta, g.idx, s.readLeaves)
		if left >= 0 {
			r := min(left, g.rows)
			b, left = b*r/max(1, g.rows), left-r
		}
		n += b
	}
	return n
}

// Units is, at the Done step of a PlanUnits session, the scan cut into units of about
// Options.PlanUnits bytes (PlanUnits): the row groups left after the index round, each over
// the span of its candidate rows, with the page starts of every column read.
func Units(s *Scanner) []Unit {
	if s.st != stDone || s.opts.PlanUnits <= 0 || s.meta == nil {
		return nil
	}
	rgs := make([]UnitRowGroup, 0, len(s.plan))
	for _, g := range s.plan {
		if len(g.cand) == 0 {
			continue
		}
		u := UnitRowGroup{Index: g.idx, Start: s.rgStarts[g.idx], From: g.cand[0].Start, To: g.cand[len(g.cand)-1].End, Rows: g.rows}
		if s.pred == nil && len(g.cand) == 1 {
			// Every row of the span is returned, in batches from its first row (run.go).
			u.Align = int64(s.opts.BatchRows)
		}
		chunk := chunkBytes(s.meta, g.idx, s.readLeaves)
		for _, l := range s.readLeaves {
			var first []int64
			if oi := g.oi[l.Node.Leaf]; oi != nil {
				first = firstRows(oi)
			}
			u.Pages = append(u.Pages, first)
		}
		u.Bytes = chunk * (u.To - u.From) / max(1, g.rows)
		rgs = append(rgs, u)
	}
	return PlanUnits(rgs, s.opts.PlanUnits)
}

// TakeIPC gives the caller the buffer of the batch the last Next returned (Step.IPC), to keep
// past the next call, and makes the scanner write the next batch into spare (nil: a new
// buffer): a host that holds batches back (a unit's, until its turn) keeps them without a
// copy, and hands back buffers it is done with as spares.
func TakeIPC(s *Scanner, spare []byte) []byte {
	b := s.ipc
	s.ipc, s.placeAt = spare[:0], 0
	return b
}
