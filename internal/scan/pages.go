package scan

// Per-page outcomes for the report (RowGroupReport.Columns): what became of every data page of
// the columns read, so that a host can draw the plan page by page (the web demo does). The
// counters (PagesAfterPageIndex, PagesAfterLateMaterialization) say how many pages each level
// removed; these say which ones.

import (
	"strings"

	"github.com/pqscan/pqscan/internal/prune"
)

// The letters of ColumnPages.Pages, one per data page in file order.
const (
	PageRead      = 'R' // fetched (and decoded) by a data round
	PagePageIndex = 'I' // skipped by the page index (its column index excluded every row)
	PageLateMat   = 'L' // skipped by late materialization: none of its rows matched the filter
	PageSlice     = 'S' // not needed: outside offset/limit, or the limit was met before it
	PagePlanned   = 'P' // explain: a scan would fetch it (late materialization may still skip it)
)

// maxPageMarks bounds the letters kept per scan (a report stays small for any file).
const maxPageMarks = 1 << 20

// pageMarks holds one row group's letters by leaf index.
type pageMarks map[int][]byte

// markPages starts the letters of every planned row group's leaves with an offset index:
// pages outside the candidate rows are the page index's (or the slice's, without a filter);
// the others are planned until a data round fetches them.
func (s *Scanner) markPages() {
	outside := byte(PagePageIndex)
	if s.pred == nil {
		outside = PageSlice
	}
	s.startMarks(outside, false)
}

// startMarks starts the letters of the planned row groups' leaves with an offset index:
// outside for pages without candidate rows, planned for the others. onlyNew keeps the leaves
// that have letters already (a runtime filter adding predicate columns, tighten.go).
func (s *Scanner) startMarks(outside byte, onlyNew bool) {
	for _, g := range s.plan {
		if s.rgReport(g.idx) == nil {
			continue
		}
		for _, l := range s.readLeaves {
			oi := g.oi[l.Node.Leaf]
			if oi == nil || onlyNew && s.marks[g.idx][l.Node.Leaf] != nil || s.pageMarkCount+len(oi.PageLocations) > maxPageMarks {
				continue
			}
			s.pageMarkCount += len(oi.PageLocations)
			m := []byte(strings.Repeat(string(outside), len(oi.PageLocations)))
			for _, p := range prune.PagesFor(g.cand, firstRows(oi), g.rows) {
				m[p] = PagePlanned
			}
			if s.marks == nil {
				s.marks = map[int]pageMarks{}
			}
			if s.marks[g.idx] == nil {
				s.marks[g.idx] = pageMarks{}
			}
			s.marks[g.idx][l.Node.Leaf] = m
		}
	}
}

// markFetched records the pages a data round fetched.
func (s *Scanner) markFetched(cfs []colFetch) {
	for _, cf := range cfs {
		m := s.marks[cf.g.idx][cf.leaf.Node.Leaf]
		for _, p := range cf.pages {
			if p < len(m) {
				m[p] = PageRead
			}
		}
	}
}

// markDone closes a row group part whose window ended: its candidate pages no data round
// fetched were left out by late materialization. (A page that straddles a probe cut may still
// be fetched for the next part; PageRead then replaces the letter.)
func (s *Scanner) markDone(g *rgState) {
	for li, m := range s.marks[g.idx] {
		oi := g.oi[li]
		if oi == nil {
			continue
		}
		for _, p := range prune.PagesFor(g.cand, firstRows(oi), g.rows) {
			if p < len(m) && m[p] == PagePlanned {
				m[p] = PageLateMat
			}
		}
	}
}

// markStopped turns the pages still planned when a scan ends into the slice's: the limit was
// met before them. An explain keeps them planned.
func (s *Scanner) markStopped() {
	if s.opts.Explain {
		return
	}
	for _, ms := range s.marks {
		for _, m := range ms {
			for p, c := range m {
				if c == PagePlanned {
					m[p] = PageSlice
				}
			}
		}
	}
}

// pageColumns fills the report's per-row-group page letters, in the order of the leaves read.
func (s *Scanner) pageColumns(r *Report) {
	if len(s.marks) == 0 {
		return
	}
	r.RowGroups = append([]RowGroupReport(nil), r.RowGroups...)
	for i := range r.RowGroups {
		ms := s.marks[r.RowGroups[i].Index]
		if ms == nil {
			continue
		}
		var cols []ColumnPages
		for _, l := range s.readLeaves {
			if m, ok := ms[l.Node.Leaf]; ok {
				cols = append(cols, ColumnPages{Column: strings.Join(l.Node.Path, "."), Pages: string(m)})
			}
		}
		r.RowGroups[i].Columns = cols
	}
}
