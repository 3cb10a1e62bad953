package scan

// The exact row filter over a window's candidate rows.

import (
	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/prune"
)

// filterWindow evaluates the predicate exactly over the candidate rows of each row group of
// the window and keeps the matching rows (then offset and limit) in g.match. The predicate's
// stages (order.go) run one after the other, each over the rows the earlier ones passed.
func (s *Scanner) filterWindow() error {
	if s.pred == nil {
		return nil
	}
	for i := s.filteredAt; i < len(s.window); i++ {
		if s.early[i] {
			continue // filtered as its bytes arrived (filterArrived)
		}
		if err := s.filterGroup(s.window[i]); err != nil {
			return err
		}
	}
	s.filteredAt, s.early = len(s.window), nil
	return nil
}

// filterGroup runs the exact filter over row group g's candidate rows (see filterWindow). Row
// groups are filtered in window order, whether all at once or one by one as their bytes
// arrive (filterArrived), so that offset and limit count the same rows either way.
func (s *Scanner) filterGroup(g *rgState) error {
	if g.filtered {
		return nil
	}
	g.match = nil
	if s.limitLeft == 0 {
		return nil
	}
	exact, proved := g.cand, prune.RowSelection(nil)
	if g.full != nil && !g.allMatch {
		// Pages whose statistics prove every row matches need no filter.
		proved = g.cand.Intersect(g.full)
		exact = g.cand.Intersect(g.full.Complement(g.rows))
		s.report.RowsAllMatch += proved.Count()
	}
	if g.allMatch {
		g.match = exact // no reader: the candidate rows are the matches
	} else {
		s.report.RowsScanned += exact.Count()
		order := s.stageOrder(g, exact)
		if r := s.rgReport(g.idx); r != nil && len(order) > 1 {
			r.PredicateOrder = r.PredicateOrder[:0]
			for _, k := range order {
				r.PredicateOrder = append(r.PredicateOrder, s.pred.stages[k].name)
			}
		}
		rows := exact
		for _, k := range order {
			if len(rows) == 0 {
				break
			}
			var err error
			if rows, err = s.evalStage(g, &s.pred.stages[k], rows); err != nil {
				return errf.Errorf("row group %d: %w", g.idx, err)
			}
		}
		g.match = rows
	}
	g.match = g.match.Union(proved)
	m := g.match.Count()
	s.report.RowsMatched += m
	if r := s.rgReport(g.idx); r != nil {
		// A row group cut by a limit probe is filtered in parts: counts add up.
		r.RowsMatched += m
		switch {
		case r.RowsMatched == 0:
			r.SkippedBy = "filter"
		case r.SkippedBy == "filter":
			r.SkippedBy = ""
		}
	}
	g.match = g.match.Slice(s.offsetLeft, s.limitLeft)
	s.offsetLeft = max(0, s.offsetLeft-m)
	if s.limitLeft > 0 {
		s.limitLeft -= g.match.Count()
	}
	return nil
}

// evalStage evaluates one stage of the predicate over rows of row group g and returns the
// rows that pass. Its columns are read over those rows only: whole pages outside them are
// not opened, and inside a page the values of runs of failed rows are skipped
// (ColumnReader.SetSelection). Batches gather up to BatchRows rows across runs.
func (s *Scanner) evalStage(g *rgState, st *stage, rows prune.RowSelection) (prune.RowSelection, error) {
	leaves := s.pred.leavesOf(st.paths)
	readers := make([]*decode.ColumnReader, len(leaves))
	sel := rowRuns(rows)
	for i, l := range leaves {
		cf, err := s.fetchFor(g, l, rows)
		if err != nil {
			return nil, err
		}
		if readers[i], err = s.openReader(&cf, false); err != nil {
			return nil, err
		}
		readers[i].SetSelection(sel, s.opts.LateMaterializationThreshold)
	}
	var pass prune.RowSelection
	run, off := 0, int64(0)
	for run < len(rows) {
		for i, l := range leaves {
			s.batch(l).Reset(leaves[i].Conv.OutWidth)
		}
		// The batch's rows as pieces of the runs ({Start, End} of positions, in batch order):
		// a batch is a few runs, so the matches are mapped back per piece instead of through
		// a position per row (that loop was a fifth of Q2's filter in V8, BENCHMARKS.md).
		pieces := s.pieces[:0]
		n := 0
		for n < s.opts.BatchRows && run < len(rows) {
			start := rows[run].Start + off
			k := min(rows[run].End-start, int64(s.opts.BatchRows-n))
			for i, cr := range readers {
				if err := cr.Skip(start); err != nil {
					return nil, err
				}
				if err := cr.Read(int(k), s.batch(leaves[i])); err != nil {
					return nil, err
				}
			}
			pieces = append(pieces, prune.RowRange{Start: start, End: start + k})
			n += int(k)
			off += k
			if start+k == rows[run].End {
				run, off = run+1, 0
			}
		}
		s.pieces = pieces
		ok, err := s.evaluate(st, n, pieces, s.rgStarts[g.idx])
		if err != nil {
			return nil, err
		}
		i := 0
		for _, pc := range pieces {
			k := int(pc.End - pc.Start)
			for j, yes := range ok[i : i+k] {
				if yes {
					pass = pass.Add(pc.Start+int64(j), pc.Start+int64(j)+1)
				}
			}
			i += k
		}
	}
	for _, cr := range readers {
		s.report.ValuesSkipped += cr.ValuesSkipped
	}
	return pass, nil
}

// rowRuns converts a row selection to the decoder's row runs.
func rowRuns(sel prune.RowSelection) []decode.RowRun {
	out := make([]decode.RowRun, len(sel))
	for i, r := range sel {
		out[i] = decode.RowRun{Start: r.Start, End: r.End}
	}
	return out
}

// evaluate runs a stage's filter over the predicate leaves' current batches of n rows, the
// positions of pieces (in order) of a row group starting at position first in the file (the
// row index's values).
func (s *Scanner) evaluate(st *stage, n int, pieces []prune.RowRange, first int64) ([]bool, error) {
	p := s.pred
	vecs := make(map[string]*prune.Vector, len(st.paths)+1)
	if p.rowIndex != "" {
		vecs[p.rowIndex] = s.rowIndexVector(first, pieces)
	}
	for _, path := range st.paths {
		l := p.leaf[path]
		a, err := decode.AssembleLeafForFilter(l, n, func(leaf int) *decode.LeafBatch { return s.batches[leaf] })
		if err != nil {
			return nil, err
		}
		vecs[path] = vector(a, p.types[path], l.Field.Type)
	}
	if cap(s.sel) < n {
		s.sel = make([]bool, n)
	}
	sel := s.sel[:n]
	err := st.bound.Filter(func(path string) *prune.Vector { return vecs[path] }, n, sel)
	return sel, err
}

func (s *Scanner) batch(l *decode.Column) *decode.LeafBatch {
	if s.batches == nil {
		s.batches = map[int]*decode.LeafBatch{}
	}
	b := s.batches[l.Node.Leaf]
	if b == nil {
		b = &decode.LeafBatch{}
		s.batches[l.Node.Leaf] = b
	}
	return b
}
