package scan

// The passes of a sorted scan (topk.go): units of the key pass, its windows and runtime
// bound, the sinks that take decoded batches instead of emitting them, and the sorted output.

import (
	"slices"
	"sort"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/pqstats"
)

// topkStart begins the key pass once the index round is done: the scan's columns become the
// sort keys, and with a limit the plan becomes units ordered best bound first.
func (s *Scanner) topkStart() {
	t := s.tk
	t.phase = 1
	t.cols, t.leaves, t.read = s.cols, s.leaves, s.readLeaves
	s.cols, s.leaves = nil, nil
	for _, k := range t.keys {
		if !slices.Contains(s.cols, k.col) {
			s.cols = append(s.cols, k.col)
			s.leaves = append(s.leaves, k.col)
		}
	}
	s.readLeaves = readLeavesOf(s.leaves, s.pred)
	for _, g := range s.plan {
		t.rgs[g.idx] = g
		// Keep the key pass's pages: the row pass reads the projected key columns from
		// them instead of fetching them again.
		g.cont = true
	}
	if t.k == 0 {
		return
	}
	s.topkNaN()
	var units []*rgState
	k := t.first()
	li := k.col.Node.Leaf
	col := statsOf(k.col, k.typ, s.writer, s.meta.ColumnOrders)
	for _, g := range s.plan {
		oi, ci := g.oi[li], g.ci[li]
		if oi == nil || ci == nil || s.opts.NoPrune {
			u := *g
			u.cont = true
			cs := pqstats.Chunk(s.meta.RowGroups[g.idx].Columns[li].MetaData, col)
			if s.opts.NoPrune || s.opts.off(LevelStatistics) {
				cs = prune.ColStats{NullCount: -1, NumValues: -1, NaNCount: -1}
			}
			t.bound[&u] = t.unitBound(cs, g.rows, t.nanFree[g.idx])
			units = append(units, &u)
			continue
		}
		first := firstRows(oi)
		for p := range first {
			end := g.rows
			if p+1 < len(first) {
				end = first[p+1]
			}
			sel := g.cand.Intersect(prune.RowSelection{{Start: first[p], End: end}})
			if sel.Count() == 0 {
				continue
			}
			u := *g
			u.cand, u.cont, u.match = sel, true, nil
			if s.pred == nil {
				u.match = sel
			}
			t.bound[&u] = t.unitBound(pqstats.Page(ci, p, col), end-first[p], t.nanFree[g.idx])
			units = append(units, &u)
		}
	}
	sort.SliceStable(units, func(i, j int) bool { return t.cmpBound(t.bound[units[i]], t.bound[units[j]]) < 0 })
	s.plan = units
}

// topkPrune drops the units of the key pass that cannot beat the heap's worst row, before
// the next round's requests go out.
func (s *Scanner) topkPrune() {
	t := s.tk
	if t.phase != 1 || t.k == 0 {
		return
	}
	kept := s.plan[:0]
	for _, g := range s.plan {
		if t.canBeat(t.bound[g]) {
			kept = append(kept, g)
			continue
		}
		s.report.TopKSkipped++
	}
	s.plan = kept
}

// topkWindow takes the next units of the key pass: while the heap is not full, the best
// units whose candidate rows cover the rows missing (the fewest that can fill it); then one
// unit, twice as many each round, so that the bound learned from the best units prunes the
// rest before they are requested.
func (s *Scanner) topkWindow() error {
	t := s.tk
	n := min(t.room, len(s.plan))
	if need := t.k - int64(len(t.rows)); need > 0 {
		n = 0
		for rows := int64(0); n < len(s.plan) && rows < need; n++ {
			rows += s.plan[n].cand.Count()
		}
	} else {
		t.room = min(2*t.room, 1<<30) // (a long key pass must not overflow it)
		n = s.topkCapBytes(n)
	}
	s.window = append(s.window[:0], s.plan[:n]...)
	s.plan = s.plan[n:]
	return s.chooseLateMat()
}

// topkCapBytes shortens a window of the key pass to the first n units whose bytes still to
// fetch stay within one round trip's worth (at least one unit): a unit read in the same
// round as a better one cannot be pruned by the bound that one sets, so speculative bytes
// beyond what another round trip would cost are not worth it. Units of whole row groups
// (files without a page index: 62 row groups of 64K rows) are ~100 KB each, and doubling alone
// would take 8 at once where the bound would have pruned half of them.
func (s *Scanner) topkCapBytes(n int) int {
	var total int64
	for i, g := range s.plan[:n] {
		var b int64
		for _, l := range s.readLeaves {
			cf, err := s.fetchFor(g, l, g.cand)
			if err != nil {
				return n // the window's fetch reports it
			}
			for _, r := range cf.ranges() {
				if r.Len > 0 {
					b += httprange.Total(s.cache.Missing(r))
				}
			}
		}
		if i > 0 && total+b > s.opts.RoundTripBytes {
			return i
		}
		total += b
	}
	return n
}

// topkWindowStep is the window state of a sorted scan: it starts the key pass, applies the
// runtime bound, takes the key pass's windows and moves between passes. st is a step to
// return (a sorted batch); next says the state changed and the loop goes on; neither: the
// plain window logic runs (the row pass, or a sort's key pass).
func (s *Scanner) topkWindowStep() (st Step, next bool, err error) {
	t := s.tk
	if t.phase == 0 {
		s.topkStart()
	}
	s.topkPrune()
	if len(s.plan) == 0 {
		st, ok, err := s.topkNext()
		if err != nil || st.Kind != 0 {
			return st, true, err
		}
		if !ok {
			s.st = stDone
			s.markStopped()
		}
		return Step{}, true, nil
	}
	if t.phase == 1 && t.k > 0 {
		if err := s.topkWindow(); err != nil {
			return Step{}, false, err
		}
		s.st, s.filteredAt, s.early = stFetchA, 0, nil
		return Step{}, true, nil
	}
	return Step{}, false, nil
}

// topkNext moves a sorted scan to its next pass when the plan of the current one is done;
// ok is false when the scan's rows are all written.
func (s *Scanner) topkNext() (Step, bool, error) {
	t := s.tk
	switch t.phase {
	case 1:
		s.topkRowPass()
		return Step{}, true, nil
	case 2:
		t.phase = 3
		t.order = make([]int, 0, len(t.rows))
		for _, r := range t.rows {
			i, _ := slices.BinarySearch(t.accPos, r.pos)
			t.order = append(t.order, i)
		}
		fallthrough
	case 3:
		if t.at >= len(t.order) && (t.at > 0 || s.emitted) {
			return Step{}, false, nil
		}
		n := min(len(t.order)-t.at, s.opts.BatchRows)
		s.arrays = s.arrays[:0]
		for j, c := range s.cols {
			a := newArray(&c.Field.Type)
			for _, i := range t.order[t.at : t.at+n] {
				appendRows(a, &c.Field.Type, t.acc[j], i, 1)
			}
			s.arrays = append(s.arrays, a)
		}
		s.batchRows = s.batchRows[:0]
		for _, i := range t.order[t.at : t.at+n] {
			s.batchRows = append(s.batchRows, t.accPos[i])
		}
		t.at += n
		st := s.write(n)
		return st, true, st.Err
	}
	return Step{}, false, nil
}

// topkRowPass ends the key pass: the rows kept, sorted, minus the offset, become the plan of
// the row pass (their row groups, exactly their rows, already filtered).
func (s *Scanner) topkRowPass() {
	t := s.tk
	// sort.Slice, not slices.SortFunc: each instantiation of the latter is ~17 KB of the module.
	sort.Slice(t.rows, func(i, j int) bool { return t.cmpRows(&t.rows[i], &t.rows[j]) < 0 })
	off := min(int64(len(t.rows)), s.opts.Offset)
	t.rows = t.rows[off:]
	if s.opts.Limit > 0 && int64(len(t.rows)) > s.opts.Limit {
		t.rows = t.rows[:s.opts.Limit]
	}
	pos := make([]int64, len(t.rows))
	for i, r := range t.rows {
		pos[i] = r.pos
	}
	slices.Sort(pos)
	s.plan = nil
	for _, p := range pos {
		rg := sort.Search(len(s.rgStarts), func(i int) bool { return s.rgStarts[i] > p }) - 1
		r := p - s.rgStarts[rg]
		if n := len(s.plan); n > 0 && s.plan[n-1].idx == rg {
			g := s.plan[n-1]
			g.cand = g.cand.Add(r, r+1)
			g.match = g.cand
			continue
		}
		src := t.rgs[rg]
		g := &rgState{idx: rg, rows: src.rows, oi: src.oi, ci: src.ci, dict: src.dict, filtered: true}
		g.cand = g.cand.Add(r, r+1)
		g.match = g.cand
		s.plan = append(s.plan, g)
	}
	s.cols, s.leaves, s.readLeaves = t.cols, t.leaves, t.read
	for _, c := range s.cols {
		t.acc = append(t.acc, newArray(&c.Field.Type))
	}
	s.pred = nil
	t.phase = 2
}

// topkSink takes a decoded batch of n rows instead of emitting it: the key pass offers its
// rows to the heap, the row pass copies them aside.
func (s *Scanner) topkSink(n int) error {
	t := s.tk
	defer func() { s.batchRows = s.batchRows[:0] }()
	arrays := make([]*arrowipc.Array, len(s.cols))
	for j, c := range s.cols {
		a, err := decode.Assemble(c, n, func(leaf int) *decode.LeafBatch { return s.batches[leaf] })
		if err != nil {
			return err
		}
		arrays[j] = a
	}
	if t.phase == 2 {
		for j, c := range s.cols {
			appendRows(t.acc[j], &c.Field.Type, arrays[j], 0, n)
			t.bytes += arrayBytes(t.acc[j])
		}
		t.accPos = append(t.accPos, s.batchRows...)
		var held int64
		for _, a := range t.acc {
			held += arrayBytes(a)
		}
		if held > s.opts.MemoryCap {
			return errf.Errorf("%w: orderBy: the sorted rows exceed the memory cap of %d bytes (add a limit or fewer columns)", ErrMemoryCap, s.opts.MemoryCap)
		}
		return nil
	}
	rows := make([]tkRow, n)
	for i := range rows {
		rows[i] = tkRow{vals: make([]prune.Value, len(t.keys)), null: make([]bool, len(t.keys)), pos: s.batchRows[i]}
	}
	for ki, k := range t.keys {
		j := slices.Index(s.cols, k.col)
		err := vector(arrays[j], k.typ, k.col.Field.Type).Each(k.typ, func(i int, v prune.Value, ok bool) {
			if v.B != nil {
				v.B = append([]byte(nil), v.B...)
			}
			rows[i].vals[ki], rows[i].null[ki] = v, !ok
		})
		if err != nil {
			return errf.Errorf("%w: orderBy %s: %v", ErrInternal, k.path, err)
		}
	}
	for _, r := range rows {
		if err := t.add(r, s.opts.MemoryCap); err != nil {
			return err
		}
	}
	return nil
}
