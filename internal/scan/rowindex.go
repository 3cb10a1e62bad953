package scan

// The row index (Options.RowIndex, Polars' with_row_index): an int64 column holding each row's
// position in the file. Its values are known from the footer alone, so it costs no read: the
// emitted values come from the positions of the rows returned (which every level of skipping
// keeps exact), and a predicate on it is answered like a slice, from exact statistics of
// row ranges, before any byte of the rows it excludes is fetched.

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/prune"
)

// rowIndexType is the row index's domain for the predicate.
var rowIndexType = prune.ColumnType{Kind: prune.Int, Physical: prune.Int64}

// rowIndexField is its output column.
func rowIndexField(name string) arrowipc.Field {
	return arrowipc.Field{Name: name, Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}}
}

// rowStarts returns the position in the file of each row group's first row.
func rowStarts(meta *format.FileMetaData) []int64 {
	out := make([]int64, len(meta.RowGroups))
	var n int64
	for i := range meta.RowGroups {
		out[i] = n
		n += meta.RowGroups[i].NumRows
	}
	return out
}

// rowIndexStats are the exact statistics of the row index over the file's rows [a, b).
func rowIndexStats(a, b int64) prune.ColStats {
	return prune.ColStats{HasMin: true, HasMax: true, Min: prune.IntValue(a), Max: prune.IntValue(b - 1),
		MinExact: true, MaxExact: true, NullCount: 0, NumValues: b - a, NaNCount: 0}
}

// rowIndexColumn is the row index as a page index column of a row group of rows rows whose
// first row is at position first: its "pages" are cut at every value the predicate compares it
// with (v and v+1), so that within each segment every such comparison is constant and the
// page-level evaluation (selectPages) selects exactly the rows a slice would.
func rowIndexColumn(p *predicate, first, rows int64) pageIndexColumn {
	cuts := []int64{0}
	for _, v := range p.bound.Literals(p.rowIndex) {
		if v.Kind != prune.Int {
			continue
		}
		for _, c := range []int64{v.I - first, v.I - first + 1} {
			if c > 0 && c < rows {
				cuts = append(cuts, c)
			}
		}
	}
	slices.Sort(cuts)
	return pageIndexColumn{path: p.rowIndex, first: slices.Compact(cuts),
		seg: func(a, b int64) prune.ColStats { return rowIndexStats(first+a, first+b) }}
}

// rowIndexVector is the row index of the rows at the positions of pieces (in order) of a row
// group whose first row is at position first in the file, for the row filter.
func (s *Scanner) rowIndexVector(first int64, pieces []prune.RowRange) *prune.Vector {
	s.riVals = s.riVals[:0]
	for _, pc := range pieces {
		for x := pc.Start; x < pc.End; x++ {
			s.riVals = append(s.riVals, first+x)
		}
	}
	return &prune.Vector{Kind: prune.Int, Len: len(s.riVals), I64: s.riVals}
}

// rowIndexArray is the emitted row index column of the current batch.
func (s *Scanner) rowIndexArray() *arrowipc.Array {
	a := &arrowipc.Array{Len: len(s.batchRows), Data: make([]byte, 0, 8*len(s.batchRows))}
	for _, v := range s.batchRows {
		a.Data = binary.LittleEndian.AppendUint64(a.Data, uint64(v))
	}
	s.batchRows = s.batchRows[:0]
	return a
}

// checkRowIndex rejects a row index name that is a column of the file, and drops the name
// from the projection: the row index comes where Columns names it, else first.
func (s *Scanner) checkRowIndex() error {
	name := s.opts.RowIndex
	if name == "" {
		return nil
	}
	s.rowIndexAt = -1
	for _, c := range s.schema.Root.Children {
		if c.Name == name {
			return errf.Errorf("%w: rowIndex %q is a column of the file", ErrOptions, name)
		}
	}
	cols := s.opts.Columns[:0:0]
	tops := map[string]bool{} // top-level columns before the row index (its output position)
	for _, c := range s.opts.Columns {
		if c == name {
			s.rowIndexAt = len(tops)
			continue
		}
		cols = append(cols, c)
		if s.rowIndexAt < 0 {
			tops[strings.SplitN(c, ".", 2)[0]] = true
		}
	}
	s.rowIndexAt = max(s.rowIndexAt, 0)
	if len(s.opts.Columns) > 0 && len(cols) == 0 {
		cols = []string{}
		s.onlyRowIndex = true
	}
	s.opts.Columns = cols
	return nil
}
