package tablescan

import (
	"math"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
)

// The residual predicate names table columns; each file's scan evaluates it on the file's
// columns, so it is rewritten per file (fileWhere):
//   - a column is renamed to the file column that feeds it (by position, or another case);
//   - a column the file lacks and fills (File.Fill) holds that value in every row: its
//     comparisons are decided on the value, TRUE or not, before the file is opened;
//   - any other column the file lacks is null in every row, so its comparisons are unknown and its
//     IS NULL is true: the predicate is rewritten in SQL's three-valued logic into "is the
//     predicate TRUE", which often folds to a constant (a file without the column of
//     "c > 5" has no matching row and is not scanned; one with "c IS NULL" gets no filter);
//   - a float literal compared with a float column that the table widens to double is
//     compared as the table does, in double: "x < 0.1" on float32 values is "x <= the largest
//     float32 below 0.1", and "x = 0.1" matches no float32 value at all;
//   - a numeric literal compared with an integer column the table widens to double is
//     rounded to the double first, as the table binds it (x >= 2.0000000000000000001 is
//     x >= 2 in double);
//   - a date-time literal compared with a date column the table widens to a timestamp
//     without zone is read as the table reads it, as a wall-clock time: a zone written in it
//     is dropped (on a date column the engine would convert it to UTC).
//
// Every widening (widen.go) is exact and order-preserving, and the engine binds a literal
// exactly in the file column's type (integers, decimals, dates and timestamps by exact
// rational rounding), so the predicate, the statistics, dictionaries and bloom filters of
// the file are evaluated in the file's type with the table's answer.

// litMode is how the literals compared with one column are rewritten for a file.
type litMode uint8

const (
	litExact     litMode = iota // bound in the file's type as the table binds it
	litFloat32                  // a float column the table widens to double
	litDouble                   // an integer column the table widens to double
	litWallClock                // a date column the table widens to a timestamp without zone
)

// fileExpr is a rewritten predicate: an expression, or a constant (k = kTrue / kFalse).
type fileExpr struct {
	e prune.Expr
	k int8
}

const (
	kExpr int8 = iota
	kTrue
	kFalse
)

// fileWhere rewrites the residual conjunction e for one file. name maps each table column
// the predicate names to its file column ("" when the file lacks it); mode says, by the
// predicate's column path, how the literals compared with a widened column are rewritten.
// fill holds the value of each column the file lacks and fills (nil: none).
// It returns the predicate text for the file's scan ("" when every row matches) and whether
// any row can match.
func fileWhere(e prune.Expr, name map[string]string, mode map[string]litMode, fill map[string]filled) (where string, any bool, err error) {
	if e == nil {
		return "", true, nil
	}
	rw := &rewriter{name: name, mode: mode, fill: fill}
	plain := true
	for _, c := range prune.Columns(e) {
		if col := topColumn(c, name); name[col] == "" || mode[c] != litExact {
			plain = false
		}
	}
	if plain {
		return rw.rename(e).String(), true, nil
	}
	r := rw.truth(e, true)
	switch {
	case rw.err != nil:
		return "", false, rw.err
	case r.k == kTrue:
		return "", true, nil
	case r.k == kFalse:
		return "", false, nil
	}
	return r.e.String(), true, nil
}

type rewriter struct {
	name map[string]string
	mode map[string]litMode
	fill map[string]filled
	err  error // a comparison the file cannot evaluate exactly (colCmp)
}

// colCmp is "x is TRUE" (want) or "x is FALSE" for a comparison of two columns, one or both of
// which the file lacks: a column the file lacks and does not fill is null, so the comparison
// is unknown; a filled value stands in as a literal (then truth decides the comparison of the
// other column with it, filled or not).
func (rw *rewriter) colCmp(x *prune.ColCmp, want bool) fileExpr {
	_, okL := rw.col(x.Left)
	_, okR := rw.col(x.Right)
	if okL && okR {
		return rw.leaf(x, want)
	}
	col, side, op := x.Right, x.Left, x.Op.Flip()
	if okL {
		col, side, op = x.Left, x.Right, x.Op
	}
	c, filled := rw.fill[side]
	if !filled || c.v.Null {
		return truthConst(false) // unknown: neither TRUE nor FALSE
	}
	lit, ok := literalOf(c.t, c.v.V)
	if !ok {
		rw.err = errf.Errorf("%w: %s: the value %s of the column a file lacks has no exact literal", prune.ErrIncomparable, x, c.t)
		return truthConst(false)
	}
	return rw.truth(&prune.Cmp{Op: op, Col: col, Value: lit}, want)
}

// filled is the value a file's missing column holds in every row, with its type.
type filled struct {
	t prune.ColumnType
	v hive.Value
}

// truth is "e is TRUE" (want) or "e is FALSE" on the one value of the column e names: a
// constant, in SQL's three-valued logic (unknown is neither). A leaf the value's type cannot
// bind (a literal of another type) is left out of the decision: TRUE, so that no file is
// skipped on it.
func (c filled) truth(e prune.Expr, want bool) fileExpr {
	if !want {
		e = &prune.Not{Arg: e}
	}
	b, err := prune.Bind(e, func(string) (prune.ColumnType, bool) { return c.t, true })
	if err != nil {
		return truthConst(true)
	}
	sel := []bool{false}
	vec := valueVector(c.t, c.v)
	if err := b.Filter(func(string) *prune.Vector { return vec }, 1, sel); err != nil {
		return truthConst(true)
	}
	return truthConst(sel[0])
}

// topColumn is the table column a predicate path is in: the path itself, or its part before
// the first dot (a field of a struct column).
func topColumn(path string, name map[string]string) string {
	if _, ok := name[path]; ok {
		return path
	}
	if i := strings.IndexByte(path, '.'); i > 0 {
		return path[:i]
	}
	return path
}

func (rw *rewriter) col(path string) (string, bool) {
	top := topColumn(path, rw.name)
	f := rw.name[top]
	if f == "" {
		return "", false
	}
	return f + path[len(top):], true
}

// rename returns e with every column renamed to the file's (all of them present).
func (rw *rewriter) rename(e prune.Expr) prune.Expr {
	switch x := e.(type) {
	case *prune.And:
		return &prune.And{Args: rw.renameAll(x.Args)}
	case *prune.Or:
		return &prune.Or{Args: rw.renameAll(x.Args)}
	case *prune.Not:
		return &prune.Not{Arg: rw.rename(x.Arg)}
	case *prune.Cmp:
		y := *x
		y.Col, _ = rw.col(x.Col)
		return &y
	case *prune.ColCmp:
		y := *x
		y.Left, _ = rw.col(x.Left)
		y.Right, _ = rw.col(x.Right)
		return &y
	case *prune.Between:
		y := *x
		y.Col, _ = rw.col(x.Col)
		return &y
	case *prune.In:
		y := *x
		y.Col, _ = rw.col(x.Col)
		return &y
	case *prune.IsNull:
		y := *x
		y.Col, _ = rw.col(x.Col)
		return &y
	case *prune.Like:
		y := *x
		y.Col, _ = rw.col(x.Col)
		return &y
	}
	return e
}

func (rw *rewriter) renameAll(args []prune.Expr) []prune.Expr {
	out := make([]prune.Expr, len(args))
	for i, a := range args {
		out[i] = rw.rename(a)
	}
	return out
}

// truth returns the predicate "e is TRUE" (want) or "e is FALSE" (!want), two-valued in the
// sense that it is TRUE exactly for those rows: AND, OR and NOT distribute over them.
func (rw *rewriter) truth(e prune.Expr, want bool) fileExpr {
	switch x := e.(type) {
	case *prune.And:
		return rw.combine(x.Args, want, want)
	case *prune.Or:
		return rw.combine(x.Args, want, !want)
	case *prune.Not:
		return rw.truth(x.Arg, !want)
	case *prune.ColCmp:
		return rw.colCmp(x, want)
	}
	cols := prune.Columns(e)
	if len(cols) != 1 {
		return rw.leaf(e, want)
	}
	if _, ok := rw.col(cols[0]); !ok {
		if c, ok := rw.fill[cols[0]]; ok {
			return c.truth(e, want)
		}
		// Every value is null: IS NULL is true, IS NOT NULL false, anything else unknown
		// (neither TRUE nor FALSE).
		if n, ok := e.(*prune.IsNull); ok {
			return truthConst(n.Not != want)
		}
		return truthConst(false)
	}
	switch rw.mode[cols[0]] {
	case litFloat32:
		if r, ok := rw.float32Leaf(e, want); ok {
			return r
		}
	case litDouble:
		return rw.leaf(mapLiterals(e, doubleLit), want)
	case litWallClock:
		return rw.leaf(mapLiterals(e, wallClockLit), want)
	}
	return rw.leaf(e, want)
}

// mapLiterals is the leaf e with f applied to each of its literals.
func mapLiterals(e prune.Expr, f func(prune.Literal) prune.Literal) prune.Expr {
	switch x := e.(type) {
	case *prune.Cmp:
		y := *x
		y.Value = f(x.Value)
		return &y
	case *prune.Between:
		y := *x
		y.Low, y.High = f(x.Low), f(x.High)
		return &y
	case *prune.In:
		y := *x
		y.Values = make([]prune.Literal, len(x.Values))
		for i, v := range x.Values {
			y.Values[i] = f(v)
		}
		return &y
	}
	return e
}

// doubleLit is a numeric literal rounded to the nearest double, written so that an integer
// column binds it exactly: the shortest decimal of the double lies between the same two
// integers as the double (or is the double, when it is an integer). Beyond the double range
// the literal is left as written: it lies beyond every integer as the infinity does.
func doubleLit(l prune.Literal) prune.Literal {
	if l.Kind != prune.LitInt && l.Kind != prune.LitFloat {
		return l
	}
	d, err := strconv.ParseFloat(l.Text, 64)
	if err != nil || math.IsInf(d, 0) {
		return l
	}
	return prune.FloatLit(strconv.FormatFloat(d, 'g', -1, 64))
}

// wallClockLit is a date-time literal without the zone written in it (Z, ±hh, ±hhmm,
// ±hh:mm after the time of day): a timestamp without zone reads it as a wall-clock time.
func wallClockLit(l prune.Literal) prune.Literal {
	if (l.Kind != prune.LitString && l.Kind != prune.LitTimestamp) || len(l.Text) <= 11 {
		return l
	}
	if i := strings.IndexAny(l.Text[11:], "Zz+-"); i >= 0 {
		l.Text = l.Text[:11+i]
	}
	return l
}

// leaf is "e is TRUE" (e renamed) or "e is FALSE" (NOT e: true exactly when e is false).
func (rw *rewriter) leaf(e prune.Expr, want bool) fileExpr {
	r := rw.rename(e)
	if !want {
		r = &prune.Not{Arg: r}
	}
	return fileExpr{e: r}
}

func truthConst(b bool) fileExpr {
	if b {
		return fileExpr{k: kTrue}
	}
	return fileExpr{k: kFalse}
}

// combine is the AND (and=true) or OR of truth(arg, want) over args, folding constants.
func (rw *rewriter) combine(args []prune.Expr, want, and bool) fileExpr {
	var kept []prune.Expr
	for _, a := range args {
		r := rw.truth(a, want)
		switch {
		case r.k == kExpr:
			kept = append(kept, r.e)
		case (r.k == kFalse) == and:
			return r // FALSE in an AND, TRUE in an OR decides it
		}
	}
	switch {
	case len(kept) == 0:
		return truthConst(and)
	case len(kept) == 1:
		return fileExpr{e: kept[0]}
	case and:
		return fileExpr{e: &prune.And{Args: kept}}
	}
	return fileExpr{e: &prune.Or{Args: kept}}
}

// float32Leaf rewrites a comparison of a float32 file column widened to double with numeric
// literals into float32 literals with the same answer on every float32 value (see above);
// ok is false for leaves it leaves alone (IS NULL, string literals such as 'NaN').
func (rw *rewriter) float32Leaf(e prune.Expr, want bool) (fileExpr, bool) {
	// none is "the column equals no value": FALSE on every non-null value.
	none := func(col string) fileExpr {
		if want {
			return truthConst(false)
		}
		return rw.leaf(&prune.IsNull{Col: col, Not: true}, true)
	}
	switch x := e.(type) {
	case *prune.Cmp:
		lit, op, exact, ok := float32Lit(x.Value, x.Op)
		switch {
		case !ok:
			return fileExpr{}, false
		case !exact && x.Op == prune.OpEq:
			return none(x.Col), true
		case !exact && x.Op == prune.OpNe: // TRUE on every non-null value
			if want {
				return rw.leaf(&prune.IsNull{Col: x.Col, Not: true}, true), true
			}
			return truthConst(false), true
		}
		return rw.leaf(&prune.Cmp{Op: op, Col: x.Col, Value: lit}, want), true
	case *prune.Between:
		lo, _, _, ok1 := float32Lit(x.Low, prune.OpGe)
		hi, _, _, ok2 := float32Lit(x.High, prune.OpLe)
		if !ok1 || !ok2 {
			return fileExpr{}, false
		}
		return rw.leaf(&prune.Between{Col: x.Col, Low: lo, High: hi}, want), true
	case *prune.In:
		var vals []prune.Literal
		for _, v := range x.Values {
			lit, _, exact, ok := float32Lit(v, prune.OpEq)
			if !ok {
				return fileExpr{}, false
			}
			if exact {
				vals = append(vals, lit)
			}
		}
		if len(vals) == 0 {
			return none(x.Col), true
		}
		return rw.leaf(&prune.In{Col: x.Col, Values: vals}, want), true
	}
	return fileExpr{}, false
}

// float32Lit is the float32 literal and operator that compare with float32 values as the
// double value of lit does under op: x < d is x <= (the largest float32 below d), x > d is
// x >= (the smallest above); exact says d is a float32 value (then op is unchanged). ok is
// false for literals it leaves to the engine (non-numeric, NaN, beyond float32's range).
func float32Lit(lit prune.Literal, op prune.Op) (prune.Literal, prune.Op, bool, bool) {
	if lit.Kind != prune.LitInt && lit.Kind != prune.LitFloat {
		return lit, op, false, false
	}
	d, err := strconv.ParseFloat(lit.Text, 64)
	if err != nil || math.IsNaN(d) || math.IsInf(d, 0) {
		return lit, op, false, false
	}
	f := float32(d)
	if math.IsInf(float64(f), 0) {
		return lit, op, false, false
	}
	text := func(f float32) prune.Literal { return prune.FloatLit(strconv.FormatFloat(float64(f), 'g', -1, 32)) }
	if float64(f) == d {
		return text(f), op, true, true
	}
	switch op {
	case prune.OpLt, prune.OpLe:
		if float64(f) > d { // f is the nearest float32, on either side of d
			f = math.Nextafter32(f, float32(math.Inf(-1)))
		}
		op = prune.OpLe
	case prune.OpGt, prune.OpGe:
		if float64(f) < d {
			f = math.Nextafter32(f, float32(math.Inf(1)))
		}
		op = prune.OpGe
	}
	return text(f), op, false, true
}
