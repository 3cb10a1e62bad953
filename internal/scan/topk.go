package scan

// ORDER BY and top-k (Options.OrderBy). A sorted scan runs in two passes
// over one footer and one index round:
//
//  1. The key pass reads only the sort keys (and the predicate's columns) of the candidate
//     rows. With a limit it visits units — the key column's pages per its column index, or
//     whole row groups per their statistics — best bound first, keeps the best
//     offset+limit rows in a heap, and before each round's requests drops every unit whose
//     bound cannot beat the heap's worst row (a runtime bound, as Polars' dynamic top-k
//     predicate): those pages' bytes are never requested.
//  2. The row pass fetches the projected columns for exactly the rows kept (their pages
//     only, by the offset index), in file order, and the rows are written out sorted.
//
// Without a limit every matching row is kept, bounded by the memory cap.
//
// The order is DuckDB's: NULLS LAST unless NULLS FIRST, NaN above every other float, -0 =
// +0, ties broken by position in the file (so the result is deterministic). Because NaN
// ranks first in DESC order and writers rarely record NaN counts, a float unit bounds a DESC
// key only when its statistics count no NaN or its chunk's dictionary (fetched in the index
// round, needed anyway to decode its pages) holds none.

import (
	"container/heap"
	"math"
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
)

// orderKey is one ORDER BY term.
type orderKey struct {
	path             string
	desc, nullsFirst bool
	col              *decode.Column
	typ              prune.ColumnType
}

// parseOrderBy parses "col [ASC|DESC] [NULLS FIRST|LAST][, col2 ...]"; a column name may be
// double-quoted.
func parseOrderBy(s string) ([]orderKey, error) {
	var keys []orderKey
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		var k orderKey
		if strings.HasPrefix(term, `"`) {
			end := strings.Index(term[1:], `"`)
			if end < 0 {
				return nil, errf.Errorf("%w: orderBy %q: unterminated quoted name", ErrOptions, s)
			}
			k.path, term = term[1:1+end], term[2+end:]
		} else {
			f := strings.Fields(term)
			if len(f) == 0 {
				return nil, errf.Errorf("%w: orderBy %q: empty term", ErrOptions, s)
			}
			k.path, term = f[0], strings.TrimPrefix(term, f[0])
		}
		f := strings.Fields(strings.ToUpper(term))
		if len(f) > 0 && (f[0] == "ASC" || f[0] == "DESC") {
			k.desc, f = f[0] == "DESC", f[1:]
		}
		if len(f) == 2 && f[0] == "NULLS" && (f[1] == "FIRST" || f[1] == "LAST") {
			k.nullsFirst, f = f[1] == "FIRST", nil
		}
		if len(f) != 0 || k.path == "" {
			return nil, errf.Errorf("%w: orderBy %q: want \"col [ASC|DESC] [NULLS FIRST|LAST], ...\"", ErrOptions, s)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// tkRow is one row of the key pass: its keys (nil Kind: null) and position in the file.
type tkRow struct {
	vals []prune.Value
	null []bool
	pos  int64
}

// topk is the state of a sorted scan.
type topk struct {
	keys  []orderKey
	k     int64 // rows kept: offset+limit; 0 = every row (a sort)
	phase int   // 0 before the key pass, 1 key pass, 2 row pass, 3 writing sorted batches
	rows  []tkRow
	bytes int64 // memory held by rows and acc
	// nanFree: row groups whose key chunk's dictionary proves it holds no NaN.
	nanFree map[int]bool
	dicts   map[int]httprange.Range // their dictionaries, fetched in the index round
	rgs     map[int]*rgState        // the index round's state of each row group
	bound   map[*rgState]ubound     // each unit's best possible first key
	room    int                     // units per window of the key pass (doubles)
	floor   *ubound                 // a table's k-th row so far (SetSortFloor), nil: none
	// The user's projection, set aside during the key pass.
	cols, leaves, read []*decode.Column
	// The row pass's rows in file order, then the order they are written in.
	acc    []*arrowipc.Array
	accPos []int64
	order  []int
	at     int
}

// setupTopK binds Options.OrderBy to the schema (after the projection and the predicate).
func (s *Scanner) setupTopK() error {
	if s.opts.OrderBy == "" {
		return nil
	}
	if s.opts.Count {
		return errf.Errorf("%w: orderBy with count", ErrOptions)
	}
	keys, err := parseOrderBy(s.opts.OrderBy)
	if err != nil {
		return err
	}
	for i := range keys {
		k := &keys[i]
		var c *decode.Column
		for _, top := range s.schema.Columns {
			if top.Field.Name == k.path {
				c = top
			}
		}
		if c == nil || c.Kind != decode.KindLeaf {
			return errf.Errorf("%w: orderBy %q: not a top-level primitive column", ErrOptions, k.path)
		}
		t, ok := pruneType(c)
		if !ok {
			return errf.Errorf("%w: orderBy %q: its type cannot be ordered", ErrOptions, k.path)
		}
		k.col, k.typ = c, t
	}
	s.tk = &topk{keys: keys, room: 1, nanFree: map[int]bool{}, dicts: map[int]httprange.Range{},
		rgs: map[int]*rgState{}, bound: map[*rgState]ubound{}, floor: s.floor}
	if s.opts.Limit > 0 {
		s.tk.k = s.opts.Offset + s.opts.Limit
	}
	for _, k := range keys {
		if !slices.Contains(s.readLeaves, k.col) {
			s.readLeaves = append(s.readLeaves, k.col)
		}
	}
	return nil
}

// first is the key the runtime bound is about.
func (t *topk) first() orderKey { return t.keys[0] }

// cmpValue orders two non-null values of one key ascending, NaN last.
func cmpValue(a, b prune.Value) int {
	if a.Kind == prune.Float {
		an, bn := math.IsNaN(a.F), math.IsNaN(b.F)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
	}
	c, _ := prune.Compare(a, b)
	return c
}

// cmpKey orders one key's values (null or not) in the key's ORDER BY order.
func cmpKey(k orderKey, an bool, a prune.Value, bn bool, b prune.Value) int {
	switch {
	case an && bn:
		return 0
	case an:
		if k.nullsFirst {
			return -1
		}
		return 1
	case bn:
		if k.nullsFirst {
			return 1
		}
		return -1
	}
	c := cmpValue(a, b)
	if k.desc {
		c = -c
	}
	return c
}

// cmpRows orders rows: keys, then position.
func (t *topk) cmpRows(a, b *tkRow) int {
	for i, k := range t.keys {
		if c := cmpKey(k, a.null[i], a.vals[i], b.null[i], b.vals[i]); c != 0 {
			return c
		}
	}
	switch {
	case a.pos < b.pos:
		return -1
	case a.pos > b.pos:
		return 1
	}
	return 0
}

// The heap keeps the worst kept row on top.
func (t *topk) Len() int           { return len(t.rows) }
func (t *topk) Less(i, j int) bool { return t.cmpRows(&t.rows[i], &t.rows[j]) > 0 }
func (t *topk) Swap(i, j int)      { t.rows[i], t.rows[j] = t.rows[j], t.rows[i] }
func (t *topk) Push(x any)         { t.rows = append(t.rows, x.(tkRow)) }
func (t *topk) Pop() any {
	r := t.rows[len(t.rows)-1]
	t.rows = t.rows[:len(t.rows)-1]
	return r
}

// add offers a row to the heap (or, for a sort, keeps it).
func (t *topk) add(r tkRow, memCap int64) error {
	if t.k == 0 {
		t.rows = append(t.rows, r)
		t.bytes += rowBytes(r)
		if t.bytes > memCap {
			return errf.Errorf("%w: orderBy without a limit: the sort keys exceed the memory cap of %d bytes (add a limit)", ErrMemoryCap, memCap)
		}
		return nil
	}
	if int64(len(t.rows)) < t.k {
		heap.Push(t, r)
		if t.bytes += rowBytes(r); t.bytes > memCap {
			return errf.Errorf("%w: orderBy: the sort keys of offset+limit = %d rows exceed the memory cap of %d bytes", ErrMemoryCap, t.k, memCap)
		}
		return nil
	}
	if t.cmpRows(&r, &t.rows[0]) < 0 {
		t.rows[0] = r
		heap.Fix(t, 0)
	}
	return nil
}

func rowBytes(r tkRow) int64 {
	n := int64(48 * len(r.vals))
	for _, v := range r.vals {
		n += int64(len(v.B))
	}
	return n
}

// ubound is a unit's best possible first key: unknown (anything), null, or a value.
type ubound struct {
	unknown, null bool
	v             prune.Value
}

// unitBound is the best first key a unit of rows rows with statistics cs may hold.
func (t *topk) unitBound(cs prune.ColStats, rows int64, nanFree bool) ubound {
	k := t.first()
	if cs.NumValues < 0 && cs.NullCount >= 0 {
		cs.NumValues = rows // a flat column: a value per row
	}
	mayNull := cs.NullCount != 0
	allNull := cs.NullCount >= 0 && cs.NumValues >= 0 && cs.NullCount >= cs.NumValues
	switch {
	case k.nullsFirst && mayNull, allNull:
		return ubound{null: true}
	case k.typ.Kind == prune.Float && cs.OnlyNaN:
		return ubound{v: prune.FloatValue(math.NaN())}
	case k.typ.Kind == prune.Float && k.desc && cs.NaNCount != 0 && !nanFree:
		return ubound{unknown: true}
	case k.desc && cs.HasMax:
		return ubound{v: cs.Max}
	case !k.desc && cs.HasMin:
		return ubound{v: cs.Min}
	}
	return ubound{unknown: true}
}

// cmpBound orders two bounds best first.
func (t *topk) cmpBound(a, b ubound) int {
	switch {
	case a.unknown && b.unknown:
		return 0
	case a.unknown:
		return -1
	case b.unknown:
		return 1
	}
	return cmpKey(t.first(), a.null, a.v, b.null, b.v)
}

// canBeat reports whether a unit with bound b may hold a row that enters the full heap.
func (t *topk) canBeat(b ubound) bool {
	if b.unknown {
		return true
	}
	if f := t.floor; f != nil && cmpKey(t.first(), b.null, b.v, f.null, f.v) > 0 {
		return false // worse than the table's k-th row: it cannot make the table's top rows
	}
	if t.k == 0 || int64(len(t.rows)) < t.k {
		return true
	}
	w := &t.rows[0]
	return cmpKey(t.first(), b.null, b.v, w.null[0], w.vals[0]) <= 0
}

// topkIndex lists the first key's column indexes the index round fetches (those of
// predicate columns are planned already): the page bounds of the key pass.
func (s *Scanner) topkIndex() []httprange.Range {
	t := s.tk
	if t == nil || t.k == 0 || s.opts.NoPrune || s.opts.off(LevelPageIndex) || s.isPredLeaf(t.first().col) {
		return nil
	}
	var out []httprange.Range
	for _, g := range s.plan {
		cc := &s.meta.RowGroups[g.idx].Columns[t.first().col.Node.Leaf]
		if r, ok := s.indexRange(cc.ColumnIndexOffset, cc.ColumnIndexLength); ok {
			out = append(out, r)
		}
	}
	return out
}

// topkDicts lists the key chunks' dictionaries the index round fetches to prove a DESC float
// key free of NaN (see the package comment), and remembers them.
func (s *Scanner) topkDicts() []httprange.Range {
	t := s.tk
	if t == nil || t.k == 0 || s.opts.NoPrune {
		return nil
	}
	k := t.first()
	if k.typ.Kind != prune.Float || !k.desc {
		return nil
	}
	var out []httprange.Range
	for _, g := range s.plan {
		cm := s.meta.RowGroups[g.idx].Columns[k.col.Node.Leaf].MetaData
		if st := cm.Statistics; st != nil && st.NanCount != nil && *st.NanCount == 0 {
			continue
		}
		chunk, err := s.chunkRange(g.idx, k.col)
		if err != nil || !fullyDictionary(cm) {
			continue
		}
		if d, ok := dictRange(cm, chunk); ok && d.Len <= s.opts.MemoryCap {
			t.dicts[g.idx] = d
			out = append(out, d)
		}
	}
	return out
}

// topkNaN decodes the fetched key dictionaries: a chunk whose dictionary holds no NaN holds
// no NaN.
func (s *Scanner) topkNaN() {
	t := s.tk
	k := t.first()
	for rg, r := range t.dicts {
		b, ok := s.cache.Get(r)
		if !ok {
			continue
		}
		cm := s.meta.RowGroups[rg].Columns[k.col.Node.Leaf].MetaData
		vals, err := decode.DictionaryValues(k.col, cm, b, s.readerOptions())
		if err != nil || vals == nil || vals.Width < 0 || vals.Width == 0 {
			continue
		}
		a := &arrowipc.Array{Len: vals.N, Data: vals.Fixed}
		nan := false
		err = vector(a, k.typ, k.col.Field.Type).Each(k.typ, func(_ int, v prune.Value, ok bool) {
			nan = nan || (ok && math.IsNaN(v.F))
		})
		if err == nil && !nan {
			t.nanFree[rg] = true
		}
	}
}
