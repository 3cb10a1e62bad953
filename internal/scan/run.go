package scan

import (
	"fmt"
	"time"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
)

// Next advances the scan. See Scanner.
func (s *Scanner) Next() (step Step) {
	defer func() {
		// The engine must never take its host down: a bug or a hostile input that slips past
		// a check becomes an error step.
		if r := recover(); r != nil {
			step = s.fail(fmt.Errorf("%w: %v", ErrInternal, r))
		}
	}()
	for {
		switch s.st {
		case stTail:
			if s.size == 0 {
				return Step{Kind: NeedRanges, Ranges: []httprange.Range{{Off: -s.opts.TailSize, Len: s.opts.TailSize}}}
			}
			if s.size < 12 {
				return s.fail(fmt.Errorf("%w: %d bytes is too small for a Parquet file", ErrNotParquet, s.size))
			}
			tl := min(s.opts.TailSize, s.size)
			if st, ok := s.need(httprange.Range{Off: s.size - tl, Len: tl}); !ok {
				return st
			}
			if err := s.readTail(); err != nil {
				return s.fail(err)
			}
		case stFooter:
			r := httprange.Range{Off: s.metaStart, Len: s.size - 8 - s.metaStart}
			if st, ok := s.need(r); !ok {
				return st
			}
			t0 := time.Now()
			if err := s.readFooter(r); err != nil {
				return s.fail(err)
			}
			s.phase("footer", t0)
			s.st = stIndex
		case stIndex:
			if !s.indexed {
				if st, ok := s.need(s.indexRanges()...); !ok {
					return st
				}
				s.indexed = true
			}
			if st, ok := s.need(s.bloomBitsets()...); !ok {
				return st
			}
			t0 := time.Now()
			if err := s.applyIndexes(); err != nil {
				return s.fail(err)
			}
			s.phase("index", t0)
			s.st = stWindow
			if s.opts.Explain {
				s.explain()
				s.st = stDone
			}
		case stWindow:
			if len(s.plan) == 0 || s.limitLeft == 0 {
				s.st = stDone
				if !s.emitted {
					// An empty result still carries the schema.
					return s.emit(0)
				}
				continue
			}
			if err := s.nextWindow(); err != nil {
				return s.fail(err)
			}
			s.st = stFetchA
		case stFetchA:
			if _, st, ok := s.fetchRound(s.fetchesA); !ok {
				return st
			}
			t0 := time.Now()
			if err := s.filterWindow(); err != nil {
				return s.fail(err)
			}
			s.phase("filter", t0)
			s.st = stFetchB
		case stFetchB:
			cfs, st, ok := s.fetchRound(s.fetchesB)
			if !ok {
				return st
			}
			for _, cf := range cfs {
				if cf.pages != nil {
					s.report.PagesAfterLateMat += len(cf.pages)
					if r := s.rgReport(cf.g.idx); r != nil {
						r.PagesRead += len(cf.pages)
					}
				}
			}
			s.emitAt, s.runAt, s.runOff, s.readers = 0, 0, 0, nil
			s.st = stEmit
		case stEmit:
			t0 := time.Now()
			st, ok, err := s.emitNext()
			s.phase("decode", t0)
			if err != nil {
				return s.fail(err)
			}
			if ok {
				return st
			}
			for _, g := range s.window {
				s.release(g)
			}
			s.window = nil
			s.st = stWindow
		case stDone:
			return Step{Kind: Done}
		case stFailed:
			return Step{Kind: Error, Err: s.err}
		}
	}
}

// planStats applies the slice level (offset and limit, when there is no filter) and the
// row-group statistics level.
func (s *Scanner) planStats() error {
	skip, take := s.offsetLeft, s.limitLeft
	if n := len(s.meta.RowGroups); n <= maxRowGroupReports {
		s.report.RowGroups = make([]RowGroupReport, n)
		for i := range s.report.RowGroups {
			s.report.RowGroups[i] = RowGroupReport{Index: i, Rows: s.meta.RowGroups[i].NumRows, SkippedBy: "slice"}
		}
	}
	for i := range s.meta.RowGroups {
		rg := &s.meta.RowGroups[i]
		if rg.NumRows == 0 {
			s.skipped(i, "empty")
			continue
		}
		if s.pred == nil {
			if skip >= rg.NumRows {
				skip -= rg.NumRows
				continue
			}
			if take == 0 {
				break
			}
			if take > 0 {
				take = max(0, take-(rg.NumRows-skip))
			}
			if len(s.plan) == 0 {
				// Row groups wholly before the offset are gone; the rest of the offset
				// applies within this first kept row group (sliceUnfiltered).
				s.offsetLeft = skip
			}
			skip = 0
		}
		s.report.RowGroupsAfterSlice++
		if s.pred != nil && !s.opts.NoPrune && !s.pred.bound.MayMatch(func(path string) (prune.ColStats, bool) {
			l := s.pred.leaf[path]
			return s.chunkStats(rg.Columns[l.Node.Leaf].MetaData, l, s.pred.types[path]), true
		}) {
			s.logf("row group %d: skipped by statistics", i)
			s.skipped(i, "statistics")
			continue
		}
		s.skipped(i, "")
		s.plan = append(s.plan, &rgState{idx: i, rows: rg.NumRows})
	}
	s.report.RowGroupsAfterStats = len(s.plan)
	return nil
}

// sliceUnfiltered narrows the first and last row groups to the rows Offset and Limit select,
// so that with an offset index only their pages are fetched.
func (s *Scanner) sliceUnfiltered() {
	if s.pred != nil {
		return
	}
	for _, g := range s.plan {
		g.cand = g.cand.Slice(s.offsetLeft, s.limitLeft)
		n := g.cand.Count()
		s.offsetLeft = max(0, s.offsetLeft-g.rows)
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
}

// nextWindow takes row groups from the plan while their estimated bytes fit the prefetch
// budget (a quarter of the memory cap), so a scan of many small row groups costs few round
// trips and memory stays bounded.
func (s *Scanner) nextWindow() error {
	budget := s.opts.MemoryCap / 4
	var total int64
	s.window = s.window[:0]
	for len(s.plan) > 0 {
		g := s.plan[0]
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
		s.lateMat = other > s.opts.RoundTripBytes
		choice := "off: other columns fetched with the predicate columns"
		if s.lateMat {
			choice = "on: other columns fetched after the filter"
		}
		s.report.LateMaterialization = fmt.Sprintf("%s (%d bytes of other columns over candidate rows, round trip = %d bytes)", choice, other, s.opts.RoundTripBytes)
	}
	return nil
}

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
	var cfs []colFetch
	budget := s.opts.MemoryCap / 4
	var total int64
	for k, g := range s.window {
		if len(g.match) == 0 {
			continue
		}
		var rg []colFetch
		var b int64
		for _, l := range s.leaves {
			cf, err := s.fetchFor(g, l, g.match)
			if err != nil {
				return nil, err
			}
			b += cf.bytes()
			rg = append(rg, cf)
		}
		if total > 0 && total+b > budget {
			// Too many matching rows to hold every row group's pages at once: the rest of
			// the window goes back to the plan with its matches; it is not filtered again.
			rest := s.window[k:]
			for _, r := range rest {
				r.filtered = true
			}
			s.plan = append(append([]*rgState(nil), rest...), s.plan...)
			s.window = s.window[:k]
			break
		}
		total += b
		for _, cf := range rg {
			cfs = append(cfs, cf)
		}
	}
	return cfs, nil
}

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
			cf, err := s.fetchFor(g, l, g.cand)
			if err != nil {
				return err
			}
			if readers[i], err = s.openReader(&cf, false); err != nil {
				return fmt.Errorf("row group %d: %w", g.idx, err)
			}
		}
		for _, run := range g.cand {
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
				sel, err := s.evaluate(int(n))
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
		m := g.match.Count()
		s.report.RowsMatched += m
		if r := s.rgReport(g.idx); r != nil {
			r.RowsMatched = m
			if m == 0 {
				r.SkippedBy = "filter"
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

// evaluate runs the row filter over the predicate leaves' current batches.
func (s *Scanner) evaluate(n int) ([]bool, error) {
	p := s.pred
	vecs := make(map[string]*prune.Vector, len(p.paths))
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

// emitNext reads the next batch of matching rows of the window and emits it; ok is false
// when the window is exhausted.
func (s *Scanner) emitNext() (Step, bool, error) {
	for s.emitAt < len(s.window) {
		g := s.window[s.emitAt]
		if s.runAt >= len(g.match) {
			s.emitAt, s.runAt, s.runOff, s.readers = s.emitAt+1, 0, 0, nil
			continue
		}
		if s.readers == nil {
			for _, l := range s.leaves {
				cf, err := s.fetchFor(g, l, g.match)
				if err != nil {
					return Step{}, false, err
				}
				cr, err := s.openReader(&cf, s.dictLeaf[l.Node.Leaf])
				if err != nil {
					return Step{}, false, fmt.Errorf("row group %d: %w", g.idx, err)
				}
				s.readers = append(s.readers, cr)
			}
			if s.pred == nil {
				s.report.RowsScanned += g.match.Count()
				s.report.RowsMatched += g.match.Count()
				if r := s.rgReport(g.idx); r != nil {
					r.RowsMatched = g.match.Count()
				}
			}
		}
		for _, l := range s.leaves {
			w := l.Conv.OutWidth
			if s.dictLeaf[l.Node.Leaf] {
				w = 4
			}
			s.batch(l).Reset(w)
		}
		rows := 0
		for rows < s.opts.BatchRows && s.runAt < len(g.match) {
			run := g.match[s.runAt]
			start := run.Start + s.runOff
			n := min(run.End-start, int64(s.opts.BatchRows-rows))
			for i, cr := range s.readers {
				if err := cr.Skip(start); err != nil {
					return Step{}, false, fmt.Errorf("row group %d: %w", g.idx, err)
				}
				if err := cr.Read(int(n), s.batch(s.leaves[i])); err != nil {
					return Step{}, false, fmt.Errorf("row group %d: %w", g.idx, err)
				}
			}
			rows += int(n)
			s.runOff += n
			if start+n == run.End {
				s.runAt, s.runOff = s.runAt+1, 0
			}
		}
		st := s.emit(rows)
		if st.Kind == Error {
			return Step{}, false, st.Err
		}
		return st, true, nil
	}
	return Step{}, false, nil
}

// release drops a row group's cached chunk and page bytes: one range spanning every chunk
// read (releasing chunk by chunk would copy the surviving edge of a large piece each time).
func (s *Scanner) release(g *rgState) {
	var span httprange.Range
	for _, l := range s.readLeaves {
		r, err := s.chunkRange(g.idx, l)
		if err != nil {
			continue
		}
		if span.Len == 0 {
			span = r
			continue
		}
		lo, hi := min(span.Off, r.Off), max(span.End(), r.End())
		span = httprange.Range{Off: lo, Len: hi - lo}
	}
	s.cache.Release(span)
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

// phase adds the time since t0 to a phase of the report, in milliseconds.
func (s *Scanner) phase(name string, t0 time.Time) {
	if s.report.Phases == nil {
		s.report.Phases = map[string]float64{}
	}
	s.report.Phases[name] += float64(time.Since(t0).Microseconds()) / 1000
}

// maxRowGroupReports bounds the per-row-group report (files with more row groups get none).
const maxRowGroupReports = 10000

// skipped records which level removed row group i ("" = read).
func (s *Scanner) skipped(i int, by string) {
	if i < len(s.report.RowGroups) {
		s.report.RowGroups[i].SkippedBy = by
	}
}

// rgReport returns row group i's report line, or nil.
func (s *Scanner) rgReport(i int) *RowGroupReport {
	if i < len(s.report.RowGroups) {
		return &s.report.RowGroups[i]
	}
	return nil
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
