package prune

import (
	"bytes"
	"math"

	"github.com/pqscan/pqscan/internal/geo"
)

// ColStats is what the engine knows about one column over a set of rows: a row group's
// column chunk (Statistics) or one page (ColumnIndex). Every field may be missing; missing
// information only ever keeps data.
//
//   - Min/Max are bounds in the column's domain (see Value), valid when HasMin/HasMax. Fill
//     them only when the statistics' sort order matches the column (signed vs unsigned
//     integers, byte-wise for strings; never the deprecated min/max of a writer that sorted
//     wrongly). MinExact/MaxExact say the bound is an actual value; a truncated bound
//     (is_min_value_exact = false, or a prefix from a ColumnIndex) is only a bound.
//   - NullCount is the number of nulls and NumValues the number of values including nulls;
//     -1 means unknown. For a ColumnIndex null page, set NullCount = NumValues (the page's
//     row count, or any equal non-negative pair) and no Min/Max.
//   - NaNCount counts NaNs in a float column (-1 unknown; writers rarely record it, and NaN
//     values may then be present whatever Min/Max say). OnlyNaN says every non-null value
//     is NaN (IEEE_754_TOTAL_ORDER statistics tell it by NaN bounds); Min/Max are then unset.
//
// The evaluators assume one value (possibly null) per row, i.e. non-repeated leaf columns.
type ColStats struct {
	HasMin, HasMax     bool
	Min, Max           Value
	MinExact, MaxExact bool
	NullCount          int64
	NumValues          int64
	NaNCount           int64
	OnlyNaN            bool
	// Geo is a GEOMETRY/GEOGRAPHY chunk's geospatial bounding box (nil: unknown); only
	// spatial predicates use it.
	Geo *geo.Rect
}

// Sets of possible truth values, as bits: the evaluators over statistics, dictionaries and
// Bloom filters compute, for each node, which of FALSE/NULL/TRUE some row may produce.
// Combining children pairwise is an over-approximation (rows are not independent across
// children), which is what makes it safe: a chunk is skipped only if TRUE is impossible.
const (
	sFalse uint8 = 1 << tFalse
	sNull  uint8 = 1 << tNull
	sTrue  uint8 = 1 << tTrue
	sAll         = sFalse | sNull | sTrue
)

// combine returns the possible outcomes of AND (or OR) over children with possible sets a, b.
func combine(a, b uint8, and bool) uint8 {
	var out uint8
	for x := tFalse; x <= tTrue; x++ {
		if a&(1<<x) == 0 {
			continue
		}
		for y := tFalse; y <= tTrue; y++ {
			if b&(1<<y) != 0 {
				if and {
					out |= 1 << min(x, y)
				} else {
					out |= 1 << max(x, y)
				}
			}
		}
	}
	return out
}

// negate maps a set through NOT: TRUE and FALSE swap, NULL stays.
func negate(s uint8) uint8 { return s&sNull | (s&sFalse)<<2 | (s&sTrue)>>2 }

// evalSets walks the tree with leaf supplying each leaf's possible outcomes; sub, when not
// nil, may answer for a whole subtree (used by dictionaries) and reports whether it did.
func evalSets(nd *bnode, leaf func(*bnode) uint8, sub func(*bnode) (uint8, bool)) uint8 {
	if sub != nil {
		if s, ok := sub(nd); ok {
			return s
		}
	}
	switch nd.op {
	case bAnd, bOr:
		s := evalSets(nd.kids[0], leaf, sub)
		for _, k := range nd.kids[1:] {
			s = combine(s, evalSets(k, leaf, sub), nd.op == bAnd)
		}
		return s
	case bNot:
		return negate(evalSets(nd.kids[0], leaf, sub))
	}
	return leaf(nd)
}

// MayMatch reports whether some row described by the statistics may satisfy the predicate;
// false proves that none does, so the row group or page can be skipped. stats returns the
// statistics of a column path, or false when there are none (then anything may match).
//
// Safeguards: a NaN bound or literal never prunes, and NaN values are assumed present unless
// NaNCount == 0; inexact bounds are never taken as values; IS NULL prunes only when
// NullCount == 0, IS NOT NULL when NullCount == NumValues; a comparison on an all-null column
// is never true; NOT is evaluated in three-valued logic, so NOT (x > 5) keeps a chunk that
// may hold nulls only if it may also hold non-null x <= 5 or NaN.
func (b *Bound) MayMatch(stats func(path string) (ColStats, bool)) bool {
	return b.statsOutcomes(stats)&sTrue != 0
}

// statsOutcomes is the set of truth values some row described by the statistics may give.
func (b *Bound) statsOutcomes(stats func(path string) (ColStats, bool)) uint8 {
	type entry struct {
		s      ColStats
		ok, in bool
	}
	cache := make([]entry, len(b.cols))
	leaf := func(nd *bnode) uint8 {
		e := &cache[nd.col]
		if !e.in {
			e.s, e.ok = stats(b.cols[nd.col].path)
			e.in = true
		}
		if !e.ok {
			return sAll
		}
		if nd.op == bCols {
			f := &cache[nd.col2]
			if !f.in {
				f.s, f.ok = stats(b.cols[nd.col2].path)
				f.in = true
			}
			if !f.ok {
				return sAll
			}
			return colsStats(nd, b.cols[nd.col].typ.Kind == Float, &e.s, &f.s)
		}
		return statsLeaf(nd, b.cols[nd.col].typ, &e.s)
	}
	return evalSets(b.root, leaf, nil)
}

// colsStats returns the possible outcomes of a comparison of two columns whose statistics
// over the same rows are s and u: from the nulls either may hold and from where their ranges
// lie against each other (a < b cannot hold where every a is at least every b). Rows are not
// matched across the columns, so only ranges decide.
func colsStats(nd *bnode, float bool, s, u *ColStats) uint8 {
	var out uint8
	if s.NullCount != 0 || u.NullCount != 0 {
		out |= sNull
	}
	allNull := func(c *ColStats) bool { return c.NullCount >= 0 && c.NumValues >= 0 && c.NullCount == c.NumValues }
	if allNull(s) || allNull(u) {
		return out
	}
	if float && (s.NaNCount != 0 || u.NaNCount != 0 || s.OnlyNaN || u.OnlyNaN) {
		out |= truthSet(nd.cmp == OpNe) // a NaN row
		if s.OnlyNaN || u.OnlyNaN {
			return out
		}
	}
	// c(x, y) compares two bounds; ok is false when either is missing or incomparable.
	c := func(hasX bool, x Value, hasY bool, y Value) (int, bool) {
		if !hasX || !hasY {
			return 0, false
		}
		return nd.colCmp(x, y)
	}
	for _, cs := range []*ColStats{s, u} {
		if cs.HasMin && cs.HasMax {
			if k, ok := Compare(cs.Min, cs.Max); !ok || k > 0 {
				return out | sTrue | sFalse // NaN or inverted bounds: unknown
			}
		}
	}
	// The relations the bounds prove of every pair of values (a from s, b from u).
	minMax, ok1 := c(s.HasMin, s.Min, u.HasMax, u.Max) // min a against max b
	maxMin, ok2 := c(s.HasMax, s.Max, u.HasMin, u.Min) // max a against min b
	allGE := ok1 && minMax >= 0                        // every a >= every b
	allGT := ok1 && minMax > 0
	allLE := ok2 && maxMin <= 0
	allLT := ok2 && maxMin < 0
	// A point is a value only where the bounds say they are values (as rangeOutcomes has it).
	allEq := allGE && allLE && s.MinExact && s.MaxExact && u.MinExact && u.MaxExact
	var t, f bool // TRUE possible, FALSE possible
	switch nd.cmp {
	case OpLt:
		t, f = !allGE, !allLT
	case OpLe:
		t, f = !allGT, !allLE
	case OpGt:
		t, f = !allLE, !allGT
	case OpGe:
		t, f = !allLT, !allGE
	case OpEq:
		t, f = !allLT && !allGT, !allEq
	default:
		t, f = !allEq, !allLT && !allGT
	}
	if t {
		out |= sTrue
	}
	if f {
		out |= sFalse
	}
	return out
}

// statsLeaf returns the possible outcomes of a leaf over a chunk with statistics s.
func statsLeaf(nd *bnode, t ColumnType, s *ColStats) uint8 {
	mayNull := s.NullCount != 0 // unknown (-1) counts as possible
	mayValue := !(s.NullCount >= 0 && s.NumValues >= 0 && s.NullCount == s.NumValues)
	var out uint8
	switch nd.op {
	case bIsNull, bNotNull:
		if mayNull {
			out |= sTrue
		}
		if mayValue {
			out |= sFalse
		}
		if nd.op == bNotNull {
			out = negate(out)
		}
		return out
	}
	if mayNull {
		out |= sNull
	}
	if !mayValue {
		return out
	}
	if nd.op == bConst {
		if nd.nanLit {
			return out | sTrue | sFalse
		}
		return out | truthSet(nd.konst)
	}
	return out | rangeOutcomes(nd, t, s)
}

func truthSet(b bool) uint8 {
	if b {
		return sTrue
	}
	return sFalse
}

// rangeOutcomes returns the outcomes possible for non-null values within [Min, Max] (plus
// NaN values for float columns unless NaNCount == 0).
func rangeOutcomes(nd *bnode, t ColumnType, s *ColStats) uint8 {
	if nd.nanLit {
		return sTrue | sFalse
	}
	if t.Kind == Float && s.OnlyNaN {
		// NaN compares false with every number, and != true (IN lists hold no NaN).
		if nd.op == bCmp && nd.cmp == OpNe {
			return sTrue
		}
		return sFalse
	}
	var out uint8
	if t.Kind == Float && s.NaNCount != 0 {
		if nd.op == bCmp && nd.cmp == OpNe {
			out |= sTrue
		} else {
			out |= sFalse
		}
	}
	hasMin, hasMax := s.HasMin, s.HasMax
	if hasMin && hasMax {
		if c, ok := Compare(s.Min, s.Max); !ok || c > 0 {
			return sTrue | sFalse // NaN, wrong kind or inverted bounds: unknown
		}
	}
	// cmin/cmax compare the bounds with a literal; an incomparable bound means unknown.
	cmpBound := func(has bool, bound, v Value) (int, bool) {
		if !has {
			return 0, true
		}
		return Compare(bound, v)
	}
	// pointEq: every value equals v (both bounds exact and equal to v).
	pointEq := func(v Value) bool {
		if !(hasMin && hasMax && s.MinExact && s.MaxExact) {
			return false
		}
		c1, ok1 := Compare(s.Min, v)
		c2, ok2 := Compare(s.Max, v)
		return ok1 && ok2 && c1 == 0 && c2 == 0
	}
	switch nd.op {
	case bCmp:
		cmin, ok1 := cmpBound(hasMin, s.Min, nd.val)
		cmax, ok2 := cmpBound(hasMax, s.Max, nd.val)
		if !ok1 || !ok2 {
			return sTrue | sFalse
		}
		lowOK := func(pass bool) bool { return !hasMin || pass }
		highOK := func(pass bool) bool { return !hasMax || pass }
		var mayT, mayF bool
		switch nd.cmp {
		case OpEq, OpNe:
			inRange := lowOK(cmin <= 0) && highOK(cmax >= 0)
			all := pointEq(nd.val)
			mayT, mayF = inRange, !all
			if nd.cmp == OpNe {
				mayT, mayF = mayF, mayT
			}
		case OpLt:
			mayT, mayF = lowOK(cmin < 0), highOK(cmax >= 0)
		case OpLe:
			mayT, mayF = lowOK(cmin <= 0), highOK(cmax > 0)
		case OpGt:
			mayT, mayF = highOK(cmax > 0), lowOK(cmin <= 0)
		case OpGe:
			mayT, mayF = highOK(cmax >= 0), lowOK(cmin < 0)
		}
		if mayT {
			out |= sTrue
		}
		if mayF {
			out |= sFalse
		}
		return out
	case bIn:
		mayF := true
		for _, v := range nd.vals {
			cmin, ok1 := cmpBound(hasMin, s.Min, v)
			cmax, ok2 := cmpBound(hasMax, s.Max, v)
			if !ok1 || !ok2 {
				return sTrue | sFalse
			}
			if (!hasMin || cmin <= 0) && (!hasMax || cmax >= 0) {
				out |= sTrue
			}
			if pointEq(v) {
				mayF = false
			}
		}
		if mayF {
			out |= sFalse
		}
		return out
	case bSpatial:
		return out | spatialStats(nd, s)
	case bLike:
		out |= sFalse
		if len(nd.prefix) == 0 {
			return out | sTrue
		}
		if (hasMin && s.Min.Kind != Bytes) || (hasMax && s.Max.Kind != Bytes) {
			return out | sTrue
		}
		upper, bounded := PrefixSuccessor(nd.prefix)
		if (!hasMax || bytes.Compare(s.Max.B, nd.prefix) >= 0) &&
			(!hasMin || !bounded || bytes.Compare(s.Min.B, upper) < 0) {
			out |= sTrue
		}
		return out
	}
	return sTrue | sFalse
}

// isNaNValue reports whether v is a float NaN.
func isNaNValue(v Value) bool { return v.Kind == Float && math.IsNaN(v.F) }
