package scan

// Overlapping the exact filter with the I/O of its round.
//
// A host may push each range of a NeedRanges step as it arrives and call Next before the
// whole round is in (Session's doc). The predicate round then does not wait for its last
// byte: filterArrived filters, in window order, the row groups whose predicate bytes are all
// present and asks for their output pages at once, together with what the round still
// misses (the ranges in flight: the host fetches only the parts it has not asked for yet).
// So the output requests of the first row groups go out while the later ones are still
// arriving or being filtered, and the step after the last predicate range has only that
// range's row groups to filter. A host that pushes a whole round before calling Next sees
// the same steps as with whole rounds: every row group is complete at once.

import (
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
)

// filterArrived runs in stFetchA when some of the round's bytes are missing (cfs: the
// round's fetches). It filters the row groups whose bytes are all present — with an offset
// or a limit still to apply only the longest such prefix of the window (they count rows in
// window order), else any — and returns the NeedRanges of the rest of the round plus the
// output pages (earlyOutput) of the row groups filtered so far.
func (s *Scanner) filterArrived(cfs []colFetch) (Step, error) {
	var want []httprange.Range
	t0 := s.now()
	ordered := s.offsetLeft > 0 || s.limitLeft >= 0
	prefix := true
	at := 0 // cfs are in window order
	for i, g := range s.window {
		end := at
		for end < len(cfs) && cfs[end].g == g {
			end++
		}
		own := cfs[at:end]
		at = end
		if i < s.filteredAt || s.early[i] {
			continue
		}
		miss, err := s.fetchesMissing(own)
		if err != nil {
			return Step{}, err
		}
		if len(miss) > 0 || s.pred == nil || ordered && !prefix {
			prefix = false
			want = append(want, miss...)
			continue
		}
		s.markFetched(own)
		if err := s.filterGroup(g); err != nil {
			return Step{}, err
		}
		if prefix {
			s.filteredAt = i + 1
		} else {
			if s.early == nil {
				s.early = map[int]bool{}
			}
			s.early[i] = true
		}
	}
	s.phase("filter", t0)
	if !s.opts.Count && s.pred != nil {
		out, err := s.earlyOutput()
		if err != nil {
			return Step{}, err
		}
		miss, err := s.fetchesMissing(out)
		if err != nil {
			return Step{}, err
		}
		want = append(want, miss...)
	}
	st, _ := s.need(want...)
	// Without a filter nothing moves before the whole round is in: asked again after every
	// arrival, the engine would only plan the same round again.
	st.AsArrived = st.Kind == NeedRanges && s.pred != nil
	return st, nil
}

// streams says whether the window's row groups may be decoded as their bytes arrive: a scan
// without a filter (whose data round is its only round), emitting in window order, and not
// one whose windows another state shapes (top-k), or that emits no rows (count, min/max).
func (s *Scanner) streams() bool {
	return s.pred == nil && s.tk == nil && s.mm == nil && !s.opts.Count
}

// streamArrived runs in stFetchA of a scan without a filter (streams) when some of the
// window's bytes are missing (cfs: the window's fetches, in window order; miss: what
// fetchesMissing found missing). The longest prefix of the window whose bytes are all in
// becomes the window, to be decoded now; the rest goes back to the front of the plan, its
// requests still in flight, and the next window asks for it again (a host subtracts what is
// in flight). So with many row groups per window, the first ones are decoded while the
// later ones arrive instead of after the last byte: a round of many small ranges takes a
// browser long enough that decoding after it costs as much again. A Batch step does not end
// an AsArrived round (protocol.go). ok is false when no row group is complete:
// st asks for the missing ranges, as they arrive.
func (s *Scanner) streamArrived(cfs []colFetch, miss []httprange.Range) (st Step, ok bool, err error) {
	k, at := 0, 0
	for _, g := range s.window {
		end := at
		for end < len(cfs) && cfs[end].g == g {
			end++
		}
		m, err := s.fetchesMissing(cfs[at:end])
		if err != nil {
			return Step{}, false, err
		}
		if len(m) > 0 {
			break
		}
		k, at = k+1, end
	}
	if k == 0 || k == len(s.window) {
		st, _ = s.need(miss...)
		st.AsArrived = st.Kind == NeedRanges
		return st, false, nil
	}
	s.plan = append(append([]*rgState(nil), s.window[k:]...), s.plan...)
	s.window = s.window[:k]
	return Step{}, true, nil
}

// earlyOutput plans the output pages of the window's row groups filtered so far, by
// fetchesB's rule (outputPlan) with every row group not filtered yet counted at its
// candidate rows, a bound of its matches: so fetchesB, which counts the matches, never cuts a
// row group asked for here (its totals up to there are at most these).
func (s *Scanner) earlyOutput() ([]colFetch, error) {
	cfs, _, err := s.outputPlan(func(k int, g *rgState) (prune.RowSelection, bool) {
		if k < s.filteredAt || s.early[k] || g.filtered {
			return g.match, true
		}
		return g.cand, false
	})
	return cfs, err
}

// countAsked adds a NeedRanges step's ranges to the report: only the parts not asked for by
// an earlier step whose bytes are still on their way, and a round trip only when nothing was
// (a host that pushes each round whole before calling Next never has any in flight).
func (s *Scanner) countAsked(plan []httprange.Range) {
	fresh := plan
	if len(s.asked) > 0 {
		fresh = httprange.Subtract(plan, s.asked)
	}
	if len(fresh) == 0 {
		return
	}
	if len(s.asked) == 0 {
		s.report.RoundTrips++
	}
	s.report.Requests += len(fresh)
	s.report.BytesRequested += httprange.Total(fresh)
	s.asked = append(s.asked, fresh...)
}
