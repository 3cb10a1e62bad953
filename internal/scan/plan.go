package scan

// Planning the row groups to read: the slice and statistics levels, then windows of row
// groups sized to the memory budget.

import (
	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/prune"
)

// planStats applies the slice level (offset and limit, when there is no filter) and the
// row-group statistics level (selectRowGroups), and records the verdicts in the report.
func (s *Scanner) planStats() error {
	if err := s.checkDeleted(); err != nil {
		return err
	}
	off, lim := s.offsetLeft, s.limitLeft
	if (s.deleted != nil || s.opts.unit()) && s.pred == nil {
		// num_rows counts deleted rows: the offset and limit slice the live rows instead
		// (sliceUnfiltered), so no row group is dropped by them here.
		off, lim = 0, -1
	}
	c := selectRowGroups(s.meta, s.writer, s.pred, off, lim, !s.opts.off(LevelStatistics))
	if n := len(s.meta.RowGroups); n <= maxRowGroupReports {
		s.report.RowGroups = make([]RowGroupReport, n)
		for i := range s.report.RowGroups {
			s.report.RowGroups[i] = RowGroupReport{Index: i, Rows: s.meta.RowGroups[i].NumRows, SkippedBy: c.skippedBy[i]}
		}
	}
	for i, by := range c.skippedBy {
		if by == "statistics" {
			s.logf("row group %d: skipped by statistics", i)
		}
	}
	if (s.deleted == nil && !s.opts.unit()) || s.pred != nil {
		s.offsetLeft = c.offsetLeft
	}
	s.report.RowGroupsAfterSlice = c.afterSlice
	for _, i := range c.kept {
		if !s.inUnit(i) {
			s.skipped(i, "unit")
			continue
		}
		gone := s.deletedIn(i)
		if gone == s.meta.RowGroups[i].NumRows {
			s.skipped(i, "deleted")
			continue
		}
		if s.opts.Count && (s.pred == nil || c.allMatch[i]) {
			s.countWhole(i)
			continue
		}
		// Chunk statistics cover deleted rows too: bounds, not the live rows' min and max.
		if s.mm != nil && gone == 0 && !s.opts.off(LevelStatistics) && (s.pred == nil || c.allMatch[i]) && s.minMaxWhole(i) {
			continue
		}
		s.plan = append(s.plan, &rgState{idx: i, rows: s.meta.RowGroups[i].NumRows, allMatch: c.allMatch[i]})
	}
	s.report.RowGroupsAllMatch = len(c.allMatch)
	s.report.RowGroupsAfterStats = len(c.kept)
	return nil
}

// sliceUnfiltered narrows the first and last row groups to the rows Offset and Limit select,
// so that with an offset index only their pages are fetched.
func (s *Scanner) sliceUnfiltered() {
	if s.pred != nil {
		return
	}
	for _, g := range s.plan {
		all := g.cand.Count() // the row group's live rows
		g.cand = g.cand.Slice(s.offsetLeft, s.limitLeft)
		n := g.cand.Count()
		s.offsetLeft = max(0, s.offsetLeft-all)
		if s.limitLeft > 0 {
			s.limitLeft -= n
		}
		g.match = g.cand
	}
	s.offsetLeft, s.limitLeft = 0, -1
}

// countPages fills the page counters from the offset indexes of the leaves read.
func (s *Scanner) countPages() {
	for _, g := range s.plan {
		for _, l := range s.readLeaves {
			if oi := g.oi[l.Node.Leaf]; oi != nil {
				s.report.PagesTotal += len(oi.PageLocations)
				s.report.PagesAfterPageIndex += len(prune.PagesFor(g.cand, firstRows(oi), g.rows))
				if r := s.rgReport(g.idx); r != nil {
					r.PagesTotal += len(oi.PageLocations)
				}
			}
		}
	}
	s.markPages()
}

// nextWindow takes row groups from the plan while their estimated bytes fit the prefetch
// budget (a quarter of the memory cap), so a scan of many small row groups costs few round
// trips and memory stays bounded.
//
// A filtered scan with a limit reads in probes instead (Impala's and Polars' early stop for a
// preview query): each window's predicate bytes are capped by probeTarget, which starts at
// one round trip's worth and doubles per window while the limit is not met; a row group
// larger than the cap is cut at a page boundary, and the rest of it goes back to the front of
// the plan. Every row is still evaluated, in order, unless the limit is met first.
func (s *Scanner) nextWindow() error {
	budget := s.opts.MemoryCap / 4
	probing := s.pred != nil && s.limitLeft > 0 && !s.opts.NoPrune
	if probing {
		if s.probeTarget == 0 {
			s.probeTarget = s.opts.RoundTripBytes
		} else {
			s.probeTarget = min(2*s.probeTarget, budget)
		}
		budget = min(budget, s.probeTarget)
	}
	var total int64
	s.window = s.window[:0]
	for len(s.plan) > 0 {
		g := s.plan[0]
		if probing && !g.filtered && total < budget {
			if err := s.cutProbe(g, budget-total); err != nil {
				return err
			}
		}
		var predB, otherB int64
		for _, l := range s.readLeaves {
			cf, err := s.fetchFor(g, l, g.cand)
			if err != nil {
				return err
			}
			if s.pred == nil || s.isPredLeaf(l) {
				predB += cf.bytes()
			} else {
				otherB += cf.bytes()
			}
		}
		// What the first data round fetches: other columns wait for the filter when they
		// cost more than a round trip (late materialization), and then only their pages
		// that hold matches are fetched (fetchesB trims the window if those are too many).
		b := predB + otherB
		if s.pred != nil && otherB > s.opts.RoundTripBytes {
			b = predB
		}
		if g.filtered {
			b = 0
		}
		if len(s.window) > 0 && total+b > budget {
			break
		}
		total += b
		s.window = append(s.window, g)
		s.plan = s.plan[1:]
	}
	return s.chooseLateMat()
}

// chooseLateMat decides late materialization for the window.
func (s *Scanner) chooseLateMat() error {
	s.lateMat = false
	if s.pred != nil {
		// Late materialization: fetch the other projected columns only for the rows the
		// filter keeps, at the price of one more round trip. Worth it when those columns'
		// pages over the candidate rows cost more than a round trip.
		var other int64
		for _, g := range s.window {
			for _, l := range s.leaves {
				if s.isPredLeaf(l) {
					continue
				}
				cf, err := s.fetchFor(g, l, g.cand)
				if err != nil {
					return err
				}
				other += cf.bytes()
			}
		}
		s.lateMat = other > s.opts.RoundTripBytes && !s.opts.off(LevelLateMaterialization)
		choice := "off: other columns fetched with the predicate columns"
		if s.lateMat {
			choice = "on: other columns fetched after the filter"
		}
		s.report.LateMaterialization = errf.Sprintf("%s (%d bytes of other columns over candidate rows, round trip = %d bytes)", choice, other, s.opts.RoundTripBytes)
	}
	return nil
}

// cutProbe narrows g's candidate rows to the shortest prefix, ending at a page boundary of a
// predicate leaf, whose predicate pages cost at least room bytes (at least one page), and puts
// the rest of g back at the front of the plan. It needs the offset index of every predicate
// leaf (page boundaries and sizes); without one the row group is read whole.
func (s *Scanner) cutProbe(g *rgState, room int64) error {
	var ends []int64 // candidate cut rows: the ends of the first predicate leaf's pages
	var predLeaves []*decode.Column
	for _, l := range s.readLeaves {
		if !s.isPredLeaf(l) {
			continue
		}
		oi := g.oi[l.Node.Leaf]
		if oi == nil {
			return nil
		}
		predLeaves = append(predLeaves, l)
		if ends == nil {
			first := firstRows(oi)
			for p := range first {
				end := g.rows
				if p+1 < len(first) {
					end = first[p+1]
				}
				if g.cand.Intersect(prune.RowSelection{{Start: 0, End: end}}).Count() > 0 {
					ends = append(ends, end)
				}
			}
		}
	}
	cost := func(end int64) (int64, error) {
		head := g.cand.Intersect(prune.RowSelection{{Start: 0, End: end}})
		var b int64
		for _, l := range predLeaves {
			cf, err := s.fetchFor(g, l, head)
			if err != nil {
				return 0, err
			}
			b += cf.bytes()
		}
		return b, nil
	}
	// The first cut whose cost reaches room (costs grow with the cut: binary search).
	lo, hi := 0, len(ends)-1
	for lo < hi {
		mid := (lo + hi) / 2
		c, err := cost(ends[mid])
		if err != nil {
			return err
		}
		if c >= room {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if len(ends) == 0 || ends[lo] >= g.rows {
		return nil
	}
	cut := ends[lo]
	rest := g.cand.Intersect(prune.RowSelection{{Start: cut, End: g.rows}})
	if rest.Count() == 0 {
		return nil
	}
	tail := *g
	tail.cand, tail.match = rest, nil
	g.cand = g.cand.Intersect(prune.RowSelection{{Start: 0, End: cut}})
	g.cont = true
	s.plan = append([]*rgState{g, &tail}, s.plan[1:]...)
	return nil
}
