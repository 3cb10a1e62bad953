package prune

import (
	"cmp"
	"github.com/pqscan/pqscan/internal/errf"

	"slices"
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/geo"
)

// Bound is an Expr resolved against a schema: every literal is coerced to its column's type
// (or folded to a constant when the comparison cannot depend on the value), so evaluation
// never re-interprets literals. One Bound is evaluated over rows (Filter), statistics
// (MayMatch), dictionaries (MayMatchDict) and Bloom filters (MayMatchBloom).
//
// A Bound is immutable after Bind and safe for concurrent use.
type Bound struct {
	root *bnode
	cols []boundCol
}

type boundCol struct {
	path string
	typ  ColumnType
}

// bop is the operation of a bound node.
type bop uint8

const (
	bAnd     bop = iota
	bOr          // kids
	bNot         // kids[0]
	bCmp         // col cmp val
	bIn          // col IN vals (sorted, distinct, NaN removed)
	bIsNull      // col IS NULL
	bNotNull     // col IS NOT NULL
	bConst       // non-null rows: konst; null rows: unknown
	bLike        // col LIKE pat (ILIKE when fold)
	bSpatial     // col (WKB) rel env
	bCols        // col cmp col2 (colCmp compares their values)
)

type bnode struct {
	op     bop
	kids   []*bnode
	col    int // index into Bound.cols for leaves
	only   int // the single column this subtree references, or -1
	cmp    Op
	val    Value
	vals   []Value
	nanLit bool // the leaf involves a NaN literal: statistics never prune on it
	konst  bool
	pat    []byte
	prefix []byte   // pat up to the first wildcard
	exact  bool     // pat has no wildcard: LIKE is an equality
	segs   [][]byte // pat split at '%' when likeSegments allows it (filter.go)
	fold   bool     // ILIKE: pat is in lower case, values are lowered before matching
	// bCols
	col2   int
	colCmp func(a, b Value) (int, bool)
	// bSpatial
	env       geo.Rect
	rel       geo.Rel
	spherical bool
}

// Bind resolves e against a schema. lookup returns the type of a column path.
//
// Coercion rules (each is exact; "constant" means TRUE/FALSE for non-null rows, NULL for null
// rows, so three-valued logic and NOT stay right):
//   - Int/Uint columns: integer or decimal literals compare exactly: x > 2.5 is x >= 3,
//     x = 2.5 is constant FALSE; a literal outside the physical range (INT32, INT64, their
//     unsigned forms) folds, e.g. x < 99999999999 on INT32 is constant TRUE and a uint
//     column compared with a negative literal folds likewise.
//   - Float columns: the literal is rounded to the nearest DOUBLE (nearest FLOAT for 32-bit
//     columns), as SQL casts a literal to the column type. The strings 'NaN', 'Inf',
//     '-Inf', 'Infinity' and '-Infinity' are accepted.
//   - Decimal columns: the literal is scaled exactly; extra fractional digits make = constant
//     FALSE and ranges round (x < 1.005 on scale 2 is x <= 1.00).
//   - Date columns: DATE literals, or strings/TIMESTAMP literals parsed as ISO 8601; a
//     date-time compares exactly against midnight of each day (d < '2024-01-01T12:00' is
//     d <= 2024-01-01); a zone, if written, is converted to UTC.
//   - Timestamp columns: TIMESTAMP/DATE literals or ISO 8601 strings. On a UTC-adjusted
//     column a zoned literal is converted to UTC and a naive one is taken as UTC; on a
//     local (not UTC-adjusted) column the literal's wall-clock reading is used and any zone
//     ignored. Sub-unit fractions round exactly as for decimals.
//   - Time columns: strings 'hh:mm[:ss[.fff]]'.
//   - Bytes columns: string literals (raw UTF-8 bytes). Bool columns: TRUE/FALSE.
//
// An unknown path wraps ErrUnknownColumn; a literal of the wrong kind wraps ErrIncomparable
// and names the column and both types; an unparsable date/time string wraps ErrBadLiteral.
func Bind(e Expr, lookup func(path string) (ColumnType, bool)) (*Bound, error) {
	b := &Bound{}
	root, err := b.bind(e, lookup, 0)
	if err != nil {
		return nil, err
	}
	b.root = root
	return b, nil
}

// Columns returns the column paths the bound expression reads, in order of first appearance.
func (b *Bound) Columns() []string {
	out := make([]string, len(b.cols))
	for i, c := range b.cols {
		out[i] = c.path
	}
	return out
}

func (b *Bound) column(path string, lookup func(string) (ColumnType, bool)) (int, ColumnType, error) {
	for i, c := range b.cols {
		if c.path == path {
			return i, c.typ, nil
		}
	}
	t, ok := lookup(path)
	if !ok {
		return 0, t, errf.Errorf("%w %q", ErrUnknownColumn, path)
	}
	if err := checkType(t); err != nil {
		return 0, t, errf.Errorf("%w: column %q: %s", ErrBadType, path, err)
	}
	b.cols = append(b.cols, boundCol{path: path, typ: t})
	return len(b.cols) - 1, t, nil
}

// checkType rejects types whose evaluation would be ambiguous.
func checkType(t ColumnType) error {
	switch t.Kind {
	case Bool, Int, Uint, Float, Bytes, Date:
	case Timestamp, Time:
		if t.Unit.perSecond() == 0 {
			return errf.Errorf("%s without a unit", t.Kind)
		}
	case Decimal:
		if t.Scale < 0 || t.Scale > 76 {
			return errf.Errorf("decimal scale %d outside 0..76", t.Scale)
		}
		if t.Physical == FixedLenByteArray && (t.TypeLength < 1 || t.TypeLength > 64) {
			return errf.Errorf("decimal FIXED_LEN_BYTE_ARRAY length %d outside 1..64", t.TypeLength)
		}
	default:
		return errf.Errorf("kind %s", t.Kind)
	}
	return nil
}

func (b *Bound) bind(e Expr, lookup func(string) (ColumnType, bool), depth int) (*bnode, error) {
	if depth >= maxDepth {
		return nil, errf.Errorf("%w: expression nested too deeply", ErrSyntax)
	}
	switch e := e.(type) {
	case *And:
		return b.bindKids(bAnd, e.Args, lookup, depth)
	case *Or:
		return b.bindKids(bOr, e.Args, lookup, depth)
	case *Not:
		return b.bindKids(bNot, []Expr{e.Arg}, lookup, depth)
	case *Cmp:
		ci, t, err := b.column(e.Col, lookup)
		if err != nil {
			return nil, err
		}
		return coerce(ci, e.Col, t, e.Op, e.Value)
	case *ColCmp:
		ci, t, err := b.column(e.Left, lookup)
		if err != nil {
			return nil, err
		}
		cj, u, err := b.column(e.Right, lookup)
		if err != nil {
			return nil, err
		}
		f, err := columnComparer(t, u)
		if err != nil {
			return nil, errf.Errorf("%w: column %q of type %s cannot be compared with column %q of type %s: %s", ErrIncomparable, e.Left, t, e.Right, u, err)
		}
		only := ci
		if ci != cj {
			only = -1
		}
		return &bnode{op: bCols, col: ci, col2: cj, only: only, cmp: e.Op, colCmp: f}, nil
	case *Between:
		ci, t, err := b.column(e.Col, lookup)
		if err != nil {
			return nil, err
		}
		lo, err := coerce(ci, e.Col, t, OpGe, e.Low)
		if err != nil {
			return nil, err
		}
		hi, err := coerce(ci, e.Col, t, OpLe, e.High)
		if err != nil {
			return nil, err
		}
		return &bnode{op: bAnd, kids: []*bnode{lo, hi}, only: ci}, nil
	case *In:
		ci, t, err := b.column(e.Col, lookup)
		if err != nil {
			return nil, err
		}
		return bindIn(ci, e.Col, t, e.Values)
	case *IsNull:
		ci, _, err := b.column(e.Col, lookup)
		if err != nil {
			return nil, err
		}
		if e.Not {
			return &bnode{op: bNotNull, col: ci, only: ci}, nil
		}
		return &bnode{op: bIsNull, col: ci, only: ci}, nil
	case *Like:
		ci, t, err := b.column(e.Col, lookup)
		if err != nil {
			return nil, err
		}
		if t.Kind != Bytes {
			return nil, errf.Errorf("%w: column %q of type %s cannot be matched with %s", ErrIncomparable, e.Col, t, likeWord(e.Fold))
		}
		pat := []byte(e.Pattern)
		if e.Fold {
			// Neither a byte range nor a Bloom filter holds every case variant: no prefix,
			// not exact; dictionaries and rows compare lower case.
			pat = foldCase(nil, pat)
			return &bnode{op: bLike, col: ci, only: ci, pat: pat, fold: true, segs: likeSegments(pat)}, nil
		}
		cut := strings.IndexAny(e.Pattern, "%_")
		n := &bnode{op: bLike, col: ci, only: ci, pat: pat, prefix: pat, exact: cut < 0, segs: likeSegments(pat)}
		if cut >= 0 {
			n.prefix = pat[:cut]
		}
		return n, nil
	case *Spatial:
		return b.bindSpatial(e, lookup)
	case nil:
		return nil, errf.Errorf("%w: nil expression", ErrSyntax)
	}
	return nil, errf.Errorf("%w: unsupported expression %s", ErrSyntax, e)
}

func (b *Bound) bindKids(op bop, args []Expr, lookup func(string) (ColumnType, bool), depth int) (*bnode, error) {
	if len(args) == 0 {
		return nil, errf.Errorf("%w: empty AND/OR", ErrSyntax)
	}
	n := &bnode{op: op, kids: make([]*bnode, len(args))}
	for i, a := range args {
		k, err := b.bind(a, lookup, depth+1)
		if err != nil {
			return nil, err
		}
		n.kids[i] = k
		switch {
		case i == 0:
			n.only = k.only
		case n.only != k.only:
			n.only = -1
		}
	}
	return n, nil
}

// bindIn coerces every IN value as an equality; values that can never be equal (out of range,
// fractional on an integer column, NaN) drop out, and an empty list folds to constant FALSE.
func bindIn(ci int, path string, t ColumnType, lits []Literal) (*bnode, error) {
	n := &bnode{op: bIn, col: ci, only: ci}
	for _, l := range lits {
		k, err := coerce(ci, path, t, OpEq, l)
		if err != nil {
			return nil, err
		}
		n.nanLit = n.nanLit || k.nanLit
		if k.op == bCmp && !k.nanLit {
			n.vals = append(n.vals, k.val)
		}
	}
	// sort.Slice, not slices.SortFunc: one instantiation of the latter is ~17 KB of the
	// wasm module's code (a size budget); IN lists are short and sorted once per bind.
	sort.Slice(n.vals, func(i, j int) bool { c, _ := Compare(n.vals[i], n.vals[j]); return c < 0 })
	n.vals = slices.CompactFunc(n.vals, func(a, b Value) bool { c, ok := Compare(a, b); return ok && c == 0 })
	switch {
	case len(n.vals) == 0:
		return &bnode{op: bConst, col: ci, only: ci, konst: false, nanLit: n.nanLit}, nil
	case len(n.vals) == 1 && !n.nanLit:
		return &bnode{op: bCmp, col: ci, only: ci, cmp: OpEq, val: n.vals[0]}, nil
	}
	return n, nil
}

// Literals returns the values column path is compared with (comparisons and IN lists, as
// coerced to its type), in tree order. A planner that knows a column's values exactly (a row
// index) cuts its ranges at them, so that within each piece every comparison is constant.
func (b *Bound) Literals(path string) []Value {
	ci := b.colIndex(path)
	if ci < 0 {
		return nil
	}
	var out []Value
	var walk func(nd *bnode)
	walk = func(nd *bnode) {
		for _, k := range nd.kids {
			walk(k)
		}
		if nd.col != ci || len(nd.kids) > 0 {
			return
		}
		switch nd.op {
		case bCmp:
			out = append(out, nd.val)
		case bIn:
			out = append(out, nd.vals...)
		}
	}
	walk(b.root)
	return out
}

// columnComparer returns how values of columns of types t and u compare, or why they cannot
// be compared without a cast: the same kind (decimals of one scale, timestamps both UTC or
// both local, in any units), or signed with unsigned integers. Like DuckDB, no implicit cast
// between numbers of other kinds, or between dates and timestamps, is guessed.
func columnComparer(t, u ColumnType) (func(a, b Value) (int, bool), error) {
	switch {
	case t.Kind == Int && u.Kind == Uint:
		return func(a, b Value) (int, bool) { return cmpIntUint(a.I, b.U), true }, nil
	case t.Kind == Uint && u.Kind == Int:
		return func(a, b Value) (int, bool) { return -cmpIntUint(b.I, a.U), true }, nil
	case t.Kind != u.Kind:
		return nil, errf.Errorf("different kinds (%s, %s)", t.Kind, u.Kind)
	case t.Kind == Decimal && t.Scale != u.Scale:
		return nil, errf.Errorf("decimal scales %d and %d differ", t.Scale, u.Scale)
	case t.Kind == Timestamp && t.UTC != u.UTC:
		return nil, errf.Errorf("one is adjusted to UTC and the other is not")
	case (t.Kind == Timestamp || t.Kind == Time) && t.Unit != u.Unit:
		pa, pb := t.Unit.perSecond(), u.Unit.perSecond()
		return func(a, b Value) (int, bool) { return cmpScaled(a.I, pa, b.I, pb), true }, nil
	}
	return Compare, nil
}

// cmpIntUint compares a signed with an unsigned integer.
func cmpIntUint(a int64, b uint64) int {
	if a < 0 {
		return -1
	}
	return cmp.Compare(uint64(a), b)
}

// cmpScaled compares a (pa units per second) with b (pb per second) exactly: the coarser
// value against the finer one floored to its unit, then the remainder, with no product that
// could overflow.
func cmpScaled(a, pa, b, pb int64) int {
	if pa == pb {
		return cmp.Compare(a, b)
	}
	if pa > pb {
		return -cmpScaled(b, pb, a, pa)
	}
	f := pb / pa
	q, r := b/f, b%f
	if r < 0 {
		q, r = q-1, r+f
	}
	if c := cmp.Compare(a, q); c != 0 {
		return c
	}
	if r > 0 {
		return -1
	}
	return 0
}
