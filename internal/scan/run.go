package scan

import (
	"slices"
	"time"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/httprange"
)

// Next advances the scan. See Scanner.
func (s *Scanner) Next() (step Step) {
	defer func() {
		// The engine must never take its host down: a bug or a hostile input that slips past
		// a check becomes an error step.
		if r := recover(); r != nil {
			step = s.fail(errf.Errorf("%w: %v", ErrInternal, r))
		}
		if step.Kind != NeedRanges && step.Kind != Batch {
			s.asked = s.asked[:0] // a host drops the requests still in flight (pipeline.go)
		}
	}()
	for {
		switch s.st {
		case stTail:
			if s.size == 0 {
				return Step{Kind: NeedRanges, Ranges: []httprange.Range{{Off: -s.opts.TailSize, Len: s.opts.TailSize}}}
			}
			if s.size < 12 {
				return s.fail(errf.Errorf("%w: %d bytes is too small for a Parquet file", ErrNotParquet, s.size))
			}
			if !s.triedCache {
				s.triedCache = true
				hit, err := s.fromCache()
				if err != nil {
					return s.fail(err)
				}
				if hit {
					s.st = stFooter
					continue
				}
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
			t0 := s.now()
			if err := s.readFooter(r); err != nil {
				return s.fail(err)
			}
			s.phase("footer", t0)
			s.st = stIndex
			if s.opts.Metadata && !s.metaSent {
				s.metaSent = true
				fi, err := s.fileInfo()
				if err != nil {
					return s.fail(err)
				}
				return Step{Kind: Metadata, Meta: fi}
			}
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
			if !s.proved {
				second, err := s.secondProofs()
				if err != nil {
					return s.fail(err)
				}
				s.second, s.proved = second, true
			}
			// A held-back bloom filter of unrecorded length asks for its bitset once its
			// header is in (bloomBitsets).
			if st, ok := s.need(append(slices.Clip(s.second), s.bloomBitsets()...)...); !ok {
				return st
			}
			t0 := s.now()
			if err := s.applyIndexes(); err != nil {
				return s.fail(err)
			}
			s.phase("index", t0)
			s.st = stWindow
			if s.opts.Explain {
				s.explain()
				s.st = stDone
			}
			if s.opts.PlanUnits > 0 {
				s.st = stDone
			}
		case stWindow:
			if s.tight != nil {
				st, ok, err := s.applyTighten()
				if err != nil {
					return s.fail(err)
				}
				if !ok {
					return st
				}
			}
			if s.tk != nil {
				st, next, err := s.topkWindowStep()
				if err != nil {
					return s.fail(err)
				}
				if st.Kind != 0 {
					return st
				}
				if next {
					continue
				}
			}
			if len(s.plan) == 0 || s.limitLeft == 0 {
				s.st = stDone
				s.markStopped()
				if s.opts.Count {
					return s.emitCount()
				}
				if s.mm != nil {
					return s.emitMinMax()
				}
				if !s.emitted {
					// An empty result still carries the schema.
					return s.emit(0)
				}
				continue
			}
			if err := s.nextWindow(); err != nil {
				return s.fail(err)
			}
			s.st, s.filteredAt, s.early = stFetchA, 0, nil
			if s.pred != nil && s.pred.pre != nil {
				s.st = stPre
			}
		case stPre:
			st, ok, err := s.preFilter()
			if err != nil {
				return s.fail(err)
			}
			if !ok {
				return st
			}
			s.st = stFetchA
		case stFetchA:
			cfs, err := s.fetchesA()
			var miss []httprange.Range
			if err == nil {
				miss, err = s.fetchesMissing(cfs)
			}
			if err != nil {
				return s.fail(err)
			}
			if len(miss) > 0 && s.streams() {
				// No filter: decode the row groups whose bytes are in while the rest of
				// the window arrives (pipeline.go).
				st, ok, err := s.streamArrived(cfs, miss)
				if err != nil {
					return s.fail(err)
				}
				if !ok {
					return st
				}
				continue
			}
			if len(miss) > 0 {
				// Some bytes are still on their way: filter the row groups whose bytes are
				// in, and ask for their output pages with the rest (pipeline.go).
				st, err := s.filterArrived(cfs)
				if err != nil {
					return s.fail(err)
				}
				if st.Kind != 0 {
					return st
				}
				continue
			}
			s.markFetched(cfs)
			t0 := s.now()
			if err := s.filterWindow(); err != nil {
				return s.fail(err)
			}
			s.phase("filter", t0)
			s.st = stFetchB
			if s.opts.Count {
				s.countWindow()
				s.st = stWindow
			}
		case stFetchB:
			cfs, st, ok := s.fetchRound(s.fetchesB)
			if !ok {
				// Output pages asked early (filterArrived) may still be in flight: the host
				// keeps them (every state of this round asks again for what is missing).
				st.AsArrived = st.Kind == NeedRanges && s.pred != nil
				return st
			}
			s.markFetched(cfs)
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
			t0 := s.now()
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

// emitNext reads the next batch of matching rows of the window and emits it; ok is false
// when the window is exhausted.
func (s *Scanner) emitNext() (Step, bool, error) {
	for s.emitAt < len(s.window) {
		g := s.window[s.emitAt]
		if s.runAt >= len(g.match) {
			for _, cr := range s.readers {
				s.report.ValuesSkipped += cr.ValuesSkipped
			}
			s.emitAt, s.runAt, s.runOff, s.readers = s.emitAt+1, 0, 0, nil
			continue
		}
		if s.readers == nil {
			s.readers = []*decode.ColumnReader{} // opened (also with no leaf: a row index alone)
			sel := rowRuns(g.match)
			for _, l := range s.leaves {
				cf, err := s.fetchFor(g, l, g.match)
				if err != nil {
					return Step{}, false, err
				}
				cr, err := s.openReader(&cf, s.dictLeaf[l.Node.Leaf])
				if err != nil {
					return Step{}, false, errf.Errorf("row group %d: %w", g.idx, err)
				}
				// Late materialization inside pages: only the matching rows are read.
				cr.SetSelection(sel, s.opts.LateMaterializationThreshold)
				s.readers = append(s.readers, cr)
			}
			if s.pred == nil && (s.tk == nil || s.tk.phase != 2) { // a sort's row pass re-reads rows counted
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
		s.place()
		rows := 0
		for rows < s.opts.BatchRows && s.runAt < len(g.match) {
			run := g.match[s.runAt]
			start := run.Start + s.runOff
			n := min(run.End-start, int64(s.opts.BatchRows-rows))
			for i, cr := range s.readers {
				if err := cr.Skip(start); err != nil {
					return Step{}, false, errf.Errorf("row group %d: %w", g.idx, err)
				}
				if err := cr.Read(int(n), s.batch(s.leaves[i])); err != nil {
					return Step{}, false, errf.Errorf("row group %d: %w", g.idx, err)
				}
			}
			if s.opts.RowIndex != "" || s.tk != nil {
				for i := range n {
					s.batchRows = append(s.batchRows, s.rgStarts[g.idx]+start+i)
				}
			}
			rows += int(n)
			s.runOff += n
			if start+n == run.End {
				s.runAt, s.runOff = s.runAt+1, 0
			}
		}
		if s.tk != nil && s.tk.phase < 3 {
			if err := s.topkSink(rows); err != nil {
				return Step{}, false, err
			}
			continue
		}
		if s.mm != nil {
			if err := s.foldBatch(rows); err != nil {
				return Step{}, false, err
			}
			continue
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
	s.markDone(g)
	if g.cont {
		return // the rest of the row group is read next: keep its dictionaries and pages
	}
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

// phase adds the time since t0 to a phase of the report, in milliseconds.
// Without a clock (SetClock) no phase is timed and the report is deterministic.
func (s *Scanner) phase(name string, t0 time.Time) {
	if s.clock == nil {
		return
	}
	if s.report.Phases == nil {
		s.report.Phases = map[string]float64{}
	}
	s.report.Phases[name] += float64(s.clock().Sub(t0).Microseconds()) / 1000
}

// now reads the host's clock, or gives the zero time without one.
func (s *Scanner) now() time.Time {
	if s.clock == nil {
		return time.Time{}
	}
	return s.clock()
}

// SetClock gives the engine a clock for the report's phase timings (Report.Phases). The
// sans-IO core reads no clock of its own: hosts that want timings inject one (the wasm module
// and the native engine of package pqscan pass time.Now), tests get deterministic reports.
func (s *Scanner) SetClock(now func() time.Time) { s.clock = now }

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
