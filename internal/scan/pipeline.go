package scan

// Overlapping the exact filter with the I/O of its round (issue 14).
//
// A host may push each range of a NeedRanges step as it arrives and call Next before the
// whole round is in (Session's doc). The predicate round then does not wait for its last
// byte: filterArrived filters, in window order, the row groups whose predicate bytes are all
// present and asks for their output pages at once, together with what the round still
// misses (the ranges in flight: the host fetches only the parts it has not asked for yet).
// So the output requests of the first row groups go out while the later ones are still
// arriving or being filtered, and the step after the last predicate range has only that
// range's row groups to filter. A host that pushes a whole round before calling Next sees
// the same steps as before: every row group is complete at once.

import "github.com/pqscan/pqscan/internal/httprange"

// filterArrived runs in stFetchA when some of the round's bytes are missing (cfs: the
// round's fetches). It filters the longest prefix of the window whose row groups have all
// their bytes (the order keeps offset and limit exact), then returns the NeedRanges of the
// rest of the round plus the output pages (outputPlan) of the row groups filtered so far.
func (s *Scanner) filterArrived(cfs []colFetch) (Step, error) {
	var want []httprange.Range
	t0 := s.now()
	prefix := true
	at := 0 // cfs are in window order
	for i, g := range s.window {
		end := at
		for end < len(cfs) && cfs[end].g == g {
			end++
		}
		own := cfs[at:end]
		at = end
		if i < s.filteredAt {
			continue
		}
		miss, err := s.fetchesMissing(own)
		if err != nil {
			return Step{}, err
		}
		if len(miss) > 0 || !prefix || s.pred == nil {
			prefix = false
			want = append(want, miss...)
			continue
		}
		s.markFetched(own)
		if err := s.filterGroup(g); err != nil {
			return Step{}, err
		}
		s.filteredAt = i + 1
	}
	s.phase("filter", t0)
	if !s.opts.Count && s.pred != nil {
		out, _, err := s.outputPlan(s.filteredAt)
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
	st.AsArrived = st.Kind == NeedRanges
	return st, nil
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
