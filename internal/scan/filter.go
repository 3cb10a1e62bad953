package scan

// The exact row filter over a window's candidate rows.

import (
	"fmt"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/prune"
)

// filterWindow evaluates the predicate exactly over the candidate rows of each row group of
// the window and keeps the matching rows (then offset and limit) in g.match.
func (s *Scanner) filterWindow() error {
	if s.pred == nil {
		return nil
	}
	p := s.pred
	var leaves []*decode.Column
	for _, path := range p.paths {
		l := p.leaf[path]
		dup := false
		for _, x := range leaves {
			dup = dup || x == l
		}
		if !dup {
			leaves = append(leaves, l)
		}
	}
	for _, g := range s.window {
		if g.filtered {
			continue
		}
		g.match = nil
		if s.limitLeft == 0 {
			continue
		}
		readers := make([]*decode.ColumnReader, len(leaves))
		for i, l := range leaves {
			if g.allMatch {
				break // no reader: the candidate rows are the matches
			}
			cf, err := s.fetchFor(g, l, g.cand)
			if err != nil {
				return err
			}
			if readers[i], err = s.openReader(&cf, false); err != nil {
				return fmt.Errorf("row group %d: %w", g.idx, err)
			}
		}
		exact, proved := g.cand, prune.RowSelection(nil)
		if g.full != nil && !g.allMatch {
			// Pages whose statistics prove every row matches need no filter.
			proved = g.cand.Intersect(g.full)
			exact = g.cand.Intersect(g.full.Complement(g.rows))
			s.report.RowsAllMatch += proved.Count()
		}
		for _, run := range exact {
			if g.allMatch {
				g.match = g.match.Add(run.Start, run.End)
				continue
			}
			for start := run.Start; start < run.End; {
				n := min(run.End-start, int64(s.opts.BatchRows))
				for i, cr := range readers {
					if err := cr.Skip(start); err != nil {
						return fmt.Errorf("row group %d: %w", g.idx, err)
					}
					b := s.batch(leaves[i])
					b.Reset(leaves[i].Conv.OutWidth)
					if err := cr.Read(int(n), b); err != nil {
						return fmt.Errorf("row group %d: %w", g.idx, err)
					}
				}
				sel, err := s.evaluate(int(n), s.rgStarts[g.idx]+start)
				if err != nil {
					return fmt.Errorf("row group %d: %w", g.idx, err)
				}
				for i, ok := range sel {
					if ok {
						g.match = g.match.Add(start+int64(i), start+int64(i)+1)
					}
				}
				s.report.RowsScanned += n
				start += n
			}
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
	}
	return nil
}

// evaluate runs the row filter over the predicate leaves' current batches, whose first row is
// at position first in the file (the row index's value).
func (s *Scanner) evaluate(n int, first int64) ([]bool, error) {
	p := s.pred
	vecs := make(map[string]*prune.Vector, len(p.paths)+1)
	if p.rowIndex != "" {
		vecs[p.rowIndex] = s.rowIndexVector(first, n)
	}
	for _, path := range p.paths {
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
	err := p.bound.Filter(func(path string) *prune.Vector { return vecs[path] }, n, sel)
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
