package scan

import (
	"math"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/pqstats"
)

// The pass-fraction estimate behind the predicate order (order.go). Statistics say what
// values a page holds at most, not how many rows pass; cutting a page's [min, max] into
// buckets and asking the statistics evaluator (MayMatch, the same code that prunes) about
// each turns them into a share, under the assumption that values spread uniformly. It only
// orders work: a wrong estimate costs time, never a wrong row.

// estimateBuckets is how many pieces a page's numeric range is cut into.
const estimateBuckets = 16

// passFraction estimates how many of the exact candidate rows of row group g pass stage st.
func (s *Scanner) passFraction(g *rgState, st stage, exact prune.RowSelection) float64 {
	all := float64(exact.Count())
	if len(st.paths) == 0 && s.pred.rowIndex != "" { // the row index alone: exact, as a slice
		may, _ := selectPages(st.bound, g.rows, []pageIndexColumn{rowIndexColumn(s.pred, s.rgStarts[g.idx], g.rows)})
		return float64(may.Intersect(exact).Count())
	}
	if len(st.paths) != 1 || s.opts.off(LevelStatistics) && s.opts.off(LevelPageIndex) {
		return all
	}
	path := st.paths[0]
	sc := s.pred.statsColumn(path, s.writer, s.meta.ColumnOrders)
	li := s.pred.leaf[path].Node.Leaf
	if ci := g.ci[li]; ci != nil && !s.opts.off(LevelPageIndex) {
		first := firstRows(g.oi[li])
		var est float64
		for p := range first {
			end := g.rows
			if p+1 < len(first) {
				end = first[p+1]
			}
			w := prune.RowSelection{{Start: first[p], End: end}}.Intersect(exact).Count()
			if w > 0 {
				est += float64(w) * bucketShare(st.bound, path, pqstats.Page(ci, p, sc))
			}
		}
		return est
	}
	if s.opts.off(LevelStatistics) {
		return all
	}
	cm := s.meta.RowGroups[g.idx].Columns[li].MetaData
	return all * bucketShare(st.bound, path, pqstats.Chunk(cm, sc))
}

// bucketShare is the share of the buckets of cs's range (numeric bounds) that b may match,
// or 0 or 1 from cs as a whole when the range cannot be cut.
func bucketShare(b *prune.Bound, path string, cs prune.ColStats) float64 {
	whole := func(c prune.ColStats) bool {
		return b.MayMatch(func(p string) (prune.ColStats, bool) { return c, p == path })
	}
	if !whole(cs) {
		return 0
	}
	if !cs.HasMin || !cs.HasMax || cs.Min.Kind != cs.Max.Kind {
		return 1
	}
	cut := func(lo, hi prune.Value) bool {
		c := cs
		c.Min, c.Max, c.MinExact, c.MaxExact = lo, hi, false, false
		return whole(c)
	}
	hit, n := 0, 0
	switch lo, hi := cs.Min, cs.Max; {
	case lo.Kind == prune.Float && !math.IsNaN(lo.F) && !math.IsNaN(hi.F) && !math.IsInf(hi.F-lo.F, 0) && hi.F > lo.F:
		step := (hi.F - lo.F) / estimateBuckets
		for k := range estimateBuckets {
			a, z := lo, lo
			a.F, z.F = lo.F+float64(k)*step, lo.F+float64(k+1)*step
			n++
			if cut(a, z) {
				hit++
			}
		}
	case lo.Kind != prune.Float && lo.Kind != prune.Uint && lo.B == nil && hi.B == nil && hi.I > lo.I:
		span := uint64(hi.I - lo.I) // hi > lo: no overflow in uint64
		pieces := uint64(estimateBuckets)
		step := span / pieces
		if span < pieces {
			pieces, step = span+1, 1 // a bucket per value
		}
		for k := range pieces {
			a, z := lo, lo
			a.I = lo.I + int64(step*k)
			z.I = a.I + int64(step) - 1
			if k+1 == pieces {
				z.I = hi.I
			}
			n++
			if cut(a, z) {
				hit++
			}
		}
	default:
		return 1
	}
	if n == 0 {
		return 1
	}
	return float64(hit) / float64(n)
}
