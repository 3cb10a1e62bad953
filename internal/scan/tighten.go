package scan

// Runtime filters: a running scan accepts more conjuncts (Tighten), as
// Polars re-checks a range learned while the scan runs before each row-group fetch and
// Impala pushes a join's build side (a min/max range or an IN set) into the probe scan.
//
// A tightened conjunct is ANDed to the predicate and applied at the next round boundary,
// before that round's requests go out:
//
//   - before the footer is decoded it simply joins Options.Where;
//   - before the index round it joins the predicate the index round is planned with, so the
//     statistics, bloom, dictionary and page-index levels all see it;
//   - later it is applied when the window being read ends, to the row groups (and row-group
//     parts) not yet read: their statistics first, then one index round for what the new
//     conjuncts need and the first index round did not fetch (column and offset indexes, bloom
//     filters, dictionaries of the new predicate columns; nothing when it is cached), then the
//     bloom, dictionary and page-index levels over the combined predicate; the rows left are
//     filtered exactly by it.
//
// Rows already emitted stay emitted, and so do the rows of the round in flight when the
// tighten arrives (their pages were requested and their filter may have run): a tighten never
// asks for bytes the scan already has, never re-reads a round, and never adds rows. A limit
// keeps counting: with a WHERE it counts the rows that passed every conjunct in force when they
// were filtered; without one the offset and limit were applied by position when the scan was
// planned, and a tighten only removes rows from that slice.

import (
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/pqstats"
)

// PageRuntime is the page letter (ColumnPages.Pages) of a page a runtime filter (Tighten)
// excluded before it was requested.
const PageRuntime = 'T'

// tightening is a tighten waiting for the current round to end.
type tightening struct {
	pred  *predicate
	stage int // 0: not started; 1: index ranges asked; 2: bloom bitsets asked
}

// Tightener is implemented by the sessions that accept runtime filters (Scanner, the wasm
// module's sessions); see Scanner.Tighten.
type Tightener interface {
	Tighten(where string) error
}

var _ Tightener = (*Scanner)(nil)

// Tighten ANDs where (the WHERE syntax: comparisons, ranges, IN lists of any size, ...) to the
// scan's predicate for the rows not yet read (see the comment at the top of tighten.go). A
// conjunct that does not parse or bind (an unknown column, a literal of the wrong type) is an
// error and leaves the scan as it was; so is a tighten of a count, minMax or sorted scan
// whose data phase has begun (their answer would mix rows filtered two ways). After the scan
// ended it does nothing. Before the footer is decoded only its syntax can be checked: one that
// names an unknown column then fails the scan at the footer, as a bad Options.Where does.
func (s *Scanner) Tighten(where string) error {
	if strings.TrimSpace(where) == "" {
		return errf.Errorf("%w: tighten: empty predicate", ErrOptions)
	}
	e, err := prune.Parse(where)
	if err != nil {
		return errf.Errorf("%w: tighten: %w", ErrOptions, err)
	}
	switch {
	case s.st == stDone || s.st == stFailed:
		return nil
	case s.meta == nil:
		s.extra = append(s.extra, e)
		s.report.RuntimeFilters++
		if s.tightenHook != nil {
			s.tightenHook(true, nil)
		}
		return nil
	case s.opts.Count || s.opts.MinMax != "" || s.opts.OrderBy != "":
		return errf.Errorf("%w: tighten: a count, minMax or orderBy scan takes its whole predicate at the start", ErrOptions)
	}
	p, err := bindPredicateExpr(s.schema, s.whereExprs(e), s.opts.RowIndex)
	if err != nil {
		return errf.Errorf("%w: tighten: %w", ErrOptions, err)
	}
	s.extra = append(s.extra, e)
	s.report.RuntimeFilters++
	if !s.indexed {
		// The index round is still to come: plan it with the combined predicate.
		s.pred = p
		s.readLeaves = readLeavesOf(s.leaves, p)
		s.plan, s.offsetLeft = nil, s.opts.Offset
		if s.tightenHook != nil {
			s.tightenHook(true, nil)
		}
		return s.planStats()
	}
	s.tight = &tightening{pred: p}
	return nil
}

// whereExprs is Options.Where and every conjunct tightened so far, plus more, as one AND.
func (s *Scanner) whereExprs(more ...prune.Expr) prune.Expr {
	var args []prune.Expr
	if strings.TrimSpace(s.opts.Where) != "" {
		e, err := prune.Parse(s.opts.Where)
		if err != nil {
			return nil // New's caller sees the same error from bindWhere
		}
		args = append(args, e)
	}
	args = append(append(args, s.extra...), more...)
	switch len(args) {
	case 0:
		return nil
	case 1:
		return args[0]
	}
	return &prune.And{Args: args}
}

// applyTighten runs a pending tighten at the start of a window (Next's stWindow): ok is false
// while it needs the index bytes st asks for.
func (s *Scanner) applyTighten() (st Step, ok bool, err error) {
	t := s.tight
	if t.stage == 0 {
		if s.tightenHook != nil {
			s.tightenHook(false, s.plan)
		}
		s.pred = t.pred
		s.readLeaves = readLeavesOf(s.leaves, s.pred)
		s.tightenStats()
		t.stage = 1
		if st, ok := s.need(s.planIndexOfPlan(false)...); !ok {
			return st, false, nil
		}
	}
	if t.stage == 1 {
		// bloomBitsets extends a guessed bloom range once its header is present; asking
		// again is a no-op when every bitset is cached.
		if st, ok := s.need(s.bloomBitsets()...); !ok {
			t.stage = 2
			return st, false, nil
		}
	}
	if err := s.tightenIndexes(); err != nil {
		return Step{}, false, err
	}
	s.tight = nil
	return Step{}, true, nil
}

// tightenStats re-plans the row groups not yet read under the tightened predicate: rows whose
// filter already ran are filtered again (the new predicate implies the old), and row groups
// whose statistics exclude it are dropped before anything of theirs is requested.
func (s *Scanner) tightenStats() {
	kept := s.plan[:0]
	for _, g := range s.plan {
		if g.filtered && s.limitLeft >= 0 {
			s.limitLeft += g.match.Count() // filtered again below: counted again then
		}
		if g.filtered || s.prevUnfiltered(g) {
			g.cand, g.match, g.filtered = g.match, nil, false
		}
		may, must := s.rowGroupStats(g.idx)
		if !may {
			s.runtimeSkip(g, g.cand.Count())
			continue
		}
		g.allMatch, g.full = must, nil
		kept = append(kept, g)
	}
	s.plan = kept
}

// prevUnfiltered: the scan had no predicate before this tighten, so g's rows were selected by
// position (sliceUnfiltered) and are all to be filtered now.
func (s *Scanner) prevUnfiltered(g *rgState) bool { return g.match != nil && !g.filtered }

// rowGroupStats evaluates the predicate over row group i's statistics (as selectRowGroups).
func (s *Scanner) rowGroupStats(i int) (may, must bool) {
	if s.opts.off(LevelStatistics) || s.opts.NoPrune {
		return true, false
	}
	rg := &s.meta.RowGroups[i]
	p := s.pred
	stats := func(path string) (prune.ColStats, bool) {
		if path == p.rowIndex {
			return rowIndexStats(s.rgStarts[i], s.rgStarts[i]+rg.NumRows), true
		}
		cm := rg.Columns[p.leaf[path].Node.Leaf].MetaData
		return pqstats.Chunk(cm, p.statsColumn(path, s.writer, s.meta.ColumnOrders)), true
	}
	return p.bound.MayMatch(stats), p.bound.MustMatch(stats)
}

// tightenIndexes applies the bloom, dictionary and page-index levels of the tightened
// predicate to the row groups not yet read, once their index bytes are present.
func (s *Scanner) tightenIndexes() error {
	kept := s.plan[:0]
	for _, g := range s.plan {
		before := g.cand
		if err := s.loadPageIndex(g); err != nil {
			return err
		}
		if !s.opts.NoPrune {
			ok, err := s.dictMayMatch(g)
			if err != nil {
				return err
			}
			if !ok || !s.bloomMayMatch(g) {
				s.runtimeSkip(g, before.Count())
				continue
			}
			may, all := s.pageIndexSelect(g)
			g.cand, g.full = g.cand.Intersect(may), all
		}
		if len(g.cand) == 0 {
			s.runtimeSkip(g, before.Count())
			continue
		}
		s.runtimePages(g, before)
		s.report.RowsSkippedRuntime += before.Count() - g.cand.Count()
		kept = append(kept, g)
	}
	s.plan = kept
	s.markNewLeaves()
	return nil
}

// runtimeSkip drops a planned row group (or part) a runtime filter excluded.
func (s *Scanner) runtimeSkip(g *rgState, rows int64) {
	s.logf("row group %d: %d rows skipped by a runtime filter", g.idx, rows)
	s.report.RowsSkippedRuntime += rows
	s.report.RowGroupsSkippedRuntime++
	if r := s.rgReport(g.idx); r != nil && r.RowsMatched == 0 && !g.cont && r.SkippedBy == "" {
		r.SkippedBy = "runtime"
	}
	s.runtimePages(g, g.cand)
	g.cand = nil
}

// runtimePages marks the planned pages of g that held candidate rows before the tighten and
// hold none now.
func (s *Scanner) runtimePages(g *rgState, before prune.RowSelection) {
	for li, m := range s.marks[g.idx] {
		oi := g.oi[li]
		if oi == nil {
			continue
		}
		first := firstRows(oi)
		now := map[int]bool{}
		for _, p := range prune.PagesFor(g.cand, first, g.rows) {
			now[p] = true
		}
		for _, p := range prune.PagesFor(before, first, g.rows) {
			if p < len(m) && m[p] == PagePlanned && !now[p] {
				m[p] = PageRuntime
			}
		}
	}
}

// markNewLeaves starts the page letters of leaves a tighten added to the scan's reads.
func (s *Scanner) markNewLeaves() { s.startMarks(PageRuntime, true) }
