package scan

// The data rounds of a scan, planned from the window of row groups the index round left: the
// predicate columns over the candidate rows (fetchesA), then the output columns over the
// matching rows within the memory budget (fetchesB, outputPlan), and what Explain reports of
// them without fetching (explain). run.go's states ask for them through fetchRound.

import (
	"slices"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
)

// isPredLeaf reports whether l is a leaf of a predicate column.
func (s *Scanner) isPredLeaf(l *decode.Column) bool {
	if s.pred == nil {
		return false
	}
	for _, p := range s.pred.paths {
		if s.pred.leaf[p].Node.Leaf == l.Node.Leaf {
			return true
		}
	}
	return false
}

// fetchesA: the predicate columns over the candidate rows, plus every projected column when
// late materialization is off (or there is no predicate).
func (s *Scanner) fetchesA() ([]colFetch, error) {
	var cfs []colFetch
	for _, g := range s.window {
		if g.filtered {
			continue // matches known from an earlier window (fetchesB trimmed it)
		}
		for _, l := range s.readLeaves {
			if s.pred != nil && s.lateMat && !s.isPredLeaf(l) {
				continue
			}
			if g.allMatch && !slices.Contains(s.leaves, l) {
				continue // a predicate-only column of a row group that needs no filter
			}
			cf, err := s.fetchFor(g, l, g.cand)
			if err != nil {
				return nil, err
			}
			cfs = append(cfs, cf)
		}
	}
	return cfs, nil
}

// fetchesB: the projected columns over the matching rows (already present unless late
// materialization deferred them).
func (s *Scanner) fetchesB() ([]colFetch, error) {
	cfs, cut, err := s.outputPlan(func(_ int, g *rgState) (prune.RowSelection, bool) { return g.match, true })
	if err != nil || cut < 0 {
		return cfs, err
	}
	// Too many matching rows to hold every row group's pages at once: the rest of the window
	// goes back to the plan with its matches; it is not filtered again.
	rest := s.window[cut:]
	for _, r := range rest {
		r.filtered = true
	}
	s.plan = append(append([]*rgState(nil), rest...), s.plan...)
	s.window = s.window[:cut]
	return cfs, nil
}

// outputPlan plans the projected columns' pages over rows(k, g) of each row group of the
// window, in order, while they fit a quarter of the memory cap, and returns those of the row
// groups rows marks as wanted; cut is the window position of the first row group that did not
// fit (-1: all did). fetchesB counts the matching rows; earlyOutput (pipeline.go) a bound.
func (s *Scanner) outputPlan(rows func(k int, g *rgState) (prune.RowSelection, bool)) (cfs []colFetch, cut int, err error) {
	budget := s.opts.MemoryCap / 4
	var total int64
	for k, g := range s.window {
		sel, wanted := rows(k, g)
		if len(sel) == 0 {
			continue
		}
		var rg []colFetch
		var b int64
		for _, l := range s.leaves {
			cf, err := s.fetchFor(g, l, sel)
			if err != nil {
				return nil, -1, err
			}
			b += cf.bytes()
			rg = append(rg, cf)
		}
		if total > 0 && total+b > budget {
			return cfs, k, nil
		}
		total += b
		if wanted {
			cfs = append(cfs, rg...)
		}
	}
	return cfs, -1, nil
}

// explain fills the report with what the data phase would fetch: the pages (or chunks) of
// every column read over the candidate rows, as one round when late materialization is off.
func (s *Scanner) explain() {
	var bytes int64
	var rs []httprange.Range
	for _, g := range s.plan {
		for _, l := range s.readLeaves {
			cf, err := s.fetchFor(g, l, g.cand)
			if err != nil {
				continue
			}
			for _, r := range cf.ranges() {
				rs = append(rs, s.cache.Missing(r)...)
			}
		}
	}
	plan := httprange.Coalesce(rs, httprange.CoalesceOptions{MaxGap: s.opts.MaxGap})
	bytes = httprange.Total(plan)
	s.report.ExplainDataBytes = bytes
	s.report.ExplainDataRequests = len(plan)
}

// fetchRound plans a data round with plan and asks for what is missing. ok is true when every
// byte is present; otherwise st is the NeedRanges (or Error) step to return.
func (s *Scanner) fetchRound(plan func() ([]colFetch, error)) (cfs []colFetch, st Step, ok bool) {
	cfs, err := plan()
	if err == nil {
		st, ok, err = s.needFetches(cfs)
	}
	if err != nil {
		return nil, s.fail(err), false
	}
	return cfs, st, ok
}
