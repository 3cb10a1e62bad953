package schema

import (
	"math"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/pvalue"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// AllNull is the statistics of a column a file does not have: every one of its numRows rows
// is null. With numRows unknown (< 0) it uses the "any equal non-negative pair" form that
// prune.ColStats documents, which still proves "all null".
func AllNull(numRows int64) prune.ColStats {
	if numRows < 0 {
		numRows = 1
	}
	return prune.ColStats{NullCount: numRows, NumValues: numRows, NaNCount: 0}
}

// Stats returns the statistics of table column path (dot-separated through structs, e.g.
// "a.b") for this file, taking the file's own statistics from fileStats (called with the
// file's path of the source column) and sending them through the column's cast, so that a
// predicate in the table's types is evaluated correctly over the file. numRows is the row
// count the statistics cover (a row group's), or -1. ok is false when nothing is known.
//
// A missing column gives AllNull. A widened bound stays a bound: integer and float widening
// and decimal rescaling are exact; a timestamp made coarser keeps a floored min and a ceiled
// max and marks both inexact; a value that overflows the table's type drops that bound.
func (m *Mapping) Stats(path string, numRows int64, fileStats func(filePath string) (prune.ColStats, bool)) (prune.ColStats, bool) {
	cols := m.Columns
	var filePath []string
	names := strings.Split(path, ".")
	for depth, name := range names {
		var c *Column
		for i := range cols {
			if cols[i].Name == name {
				c = &cols[i]
				break
			}
		}
		if c == nil {
			return prune.ColStats{}, false
		}
		if c.Missing() {
			return AllNull(numRows), true
		}
		filePath = append(filePath, c.SourceName)
		if depth == len(names)-1 {
			if c.To.Kind == Struct || c.To.Kind == List || c.To.Kind == Map {
				return prune.ColStats{}, false
			}
			s, ok := fileStats(strings.Join(filePath, "."))
			if !ok {
				return prune.ColStats{}, false
			}
			return CastStats(s, c.From, c.To), true
		}
		if c.To.Kind != Struct {
			return prune.ColStats{}, false
		}
		cols = c.Children
	}
	return prune.ColStats{}, false
}

// CastStats sends one column's statistics from the file type to the table type. For a pair
// that does not widen (Widens is false) the bounds are dropped: unknown, never wrong.
func CastStats(s prune.ColStats, from, to Type) prune.ColStats {
	if from == to {
		return s
	}
	if !Widens(from, to) {
		s.HasMin, s.HasMax, s.MinExact, s.MaxExact = false, false, false, false
		return s
	}
	var okMin, okMax bool
	if s.HasMin {
		s.Min, s.MinExact, okMin = castValue(s.Min, s.MinExact, from, to, false)
		s.HasMin = okMin
	}
	if s.HasMax {
		s.Max, s.MaxExact, okMax = castValue(s.Max, s.MaxExact, from, to, true)
		s.HasMax = okMax
	}
	if from.Kind != Float32 && from.Kind != Float64 && to.Kind == Float64 {
		s.NaNCount = 0 // integers have no NaN
	}
	return s
}

// CastValue is v, a value of type from, as a value of type to (Widens(from, to) for leaf
// types): exact for every widening but a timestamp made coarser, which floors. ok is false
// when the pair does not widen or v overflows the table's type.
func CastValue(v prune.Value, from, to Type) (prune.Value, bool) {
	if from == to {
		return v, true
	}
	if !Widens(from, to) {
		return prune.Value{}, false
	}
	r, _, ok := castValue(v, true, from, to, false)
	return r, ok
}

// castValue converts one bound; upper says it is a max (rounding goes up).
func castValue(v prune.Value, exact bool, from, to Type, upper bool) (prune.Value, bool, bool) {
	switch {
	case intRank(from.Kind) > 0 && intRank(to.Kind) > 0, from.Kind == Float32 && to.Kind == Float64,
		from.Kind == String && to.Kind == Binary:
		return v, exact, true
	case intRank(from.Kind) > 0 && to.Kind == Float64:
		if v.Kind != prune.Int {
			return prune.Value{}, false, false
		}
		return prune.FloatValue(float64(v.I)), exact, true
	case intRank(from.Kind) > 0 && to.Kind == Decimal:
		if v.Kind != prune.Int {
			return prune.Value{}, false, false
		}
		u := exactnum.NewInt(v.I).Mul(exactnum.Pow10(int(to.Scale)))
		return prune.DecimalExact(u), exact, true
	case from.Kind == Decimal && to.Kind == Decimal:
		if v.Kind != prune.Decimal {
			return prune.Value{}, false, false
		}
		u := decimalInt(v).Mul(exactnum.Pow10(int(to.Scale - from.Scale)))
		return prune.DecimalExact(u), exact, true
	case from.Kind == Date && to.Kind == Timestamp:
		if v.Kind != prune.Date {
			return prune.Value{}, false, false
		}
		r, ok := mulCheck(v.I, 86400*pvalue.PerSecond(to.Unit))
		return prune.TimestampValue(r), exact, ok
	case from.Kind == Timestamp && to.Kind == Timestamp:
		if v.Kind != prune.Timestamp {
			return prune.Value{}, false, false
		}
		pf, pt := pvalue.PerSecond(from.Unit), pvalue.PerSecond(to.Unit)
		if pf == 0 || pt == 0 {
			return prune.Value{}, false, false
		}
		if pt >= pf {
			r, ok := mulCheck(v.I, pt/pf)
			return prune.TimestampValue(r), exact, ok
		}
		d := pf / pt
		q := floorDiv(v.I, d)
		if upper && q*d != v.I {
			q++
		}
		return prune.TimestampValue(q), exact && q*d == v.I, true
	}
	return prune.Value{}, false, false
}

func mulCheck(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt64/b || a < math.MinInt64/b {
		return 0, false
	}
	return a * b, true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// decimalInt decodes a Decimal value (I, or big-endian two's complement B).
func decimalInt(v prune.Value) exactnum.Int {
	if v.B == nil {
		return exactnum.NewInt(v.I)
	}
	return exactnum.FromTwos(v.B)
}
