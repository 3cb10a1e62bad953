package prune

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
)

// The differential property: for random small columns (with nulls, NaN, -0, extremes),
// random predicates and statistics derived from the data (exact, loosened/inexact, partly
// missing, NaN-polluted), every "cannot match" answer from MayMatch, MayMatchDict and
// MayMatchBloom must agree with Filter selecting no row; and Filter must agree with a naive
// reference evaluator that works on the unbound Expr with exact arithmetic.

var diffSchema = map[string]ColumnType{
	"i32": {Kind: Int, Physical: Int32},
	"u64": {Kind: Uint, Physical: Int64},
	"f64": {Kind: Float, Physical: Double},
	"s":   {Kind: Bytes, Physical: ByteArray},
	"dec": {Kind: Decimal, Physical: FixedLenByteArray, TypeLength: 2, Scale: 1, Precision: 4},
	"d":   {Kind: Date, Physical: Int32},
	"b":   {Kind: Bool, Physical: Boolean},
}

var diffCols = []string{"i32", "u64", "f64", "s", "dec", "d", "b"}

type genCol struct {
	vals  []Value // element i; ignored when null[i]
	null  []bool
	vec   *Vector
	stats ColStats
}

type diffCase struct {
	n    int
	cols map[string]*genCol
	expr Expr
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

var alphabet = []string{"", "a", "b", "ab", "ba", "aa", "abc", "b\xff", "\xff", "é", "aé"}

func genValue(r *rand.Rand, col string) Value {
	switch col {
	case "i32":
		if r.IntN(10) == 0 {
			return IntValue(pick(r, int64(math.MinInt32), math.MaxInt32))
		}
		return IntValue(int64(r.IntN(11) - 5))
	case "u64":
		if r.IntN(10) == 0 {
			return UintValue(math.MaxUint64)
		}
		return UintValue(uint64(r.IntN(6)))
	case "f64":
		return FloatValue(pick(r, -2, -1, math.Copysign(0, -1), 0, 0.5, 1, 2, math.NaN(), math.Inf(1), math.Inf(-1)))
	case "s":
		return StringValue(pick(r, alphabet...))
	case "dec":
		return DecimalBytes(bigToTwos(big.NewInt(int64(r.IntN(61) - 30))))
	case "d":
		return DateValue(int32(19720 + r.IntN(7)))
	case "b":
		return BoolValue(r.IntN(2) == 0)
	}
	panic(col)
}

func genLit(r *rand.Rand, col string) Literal {
	switch col {
	case "i32":
		return pick(r, IntLit(fmt.Sprint(r.IntN(13)-6)), FloatLit(fmt.Sprint(r.IntN(13)-6)+".5"),
			IntLit("99999999999"), IntLit("-99999999999"), FloatLit("1e1"), IntLit("2147483647"), IntLit("-2147483648"))
	case "u64":
		return pick(r, IntLit(fmt.Sprint(r.IntN(9)-2)), FloatLit("-0.5"), FloatLit("2.5"),
			IntLit("18446744073709551615"), IntLit("18446744073709551616"))
	case "f64":
		return pick(r, IntLit("-1"), IntLit("0"), FloatLit("-0.0"), FloatLit("0.5"), FloatLit("1.5"), IntLit("2"),
			StrLit("NaN"), StrLit("Inf"), StrLit("-Inf"))
	case "s":
		return StrLit(pick(r, alphabet...))
	case "dec":
		return pick(r, FloatLit("-2.5"), FloatLit("0.15"), IntLit("1"), FloatLit("-0.05"), FloatLit("3.0"),
			IntLit("100000"), FloatLit(fmt.Sprintf("%.1f", float64(r.IntN(61)-30)/10)))
	case "d":
		day := time.Date(2023, 12, 29+r.IntN(9), 0, 0, 0, 0, time.UTC)
		return pick(r, DateLit(day.Format("2006-01-02")), StrLit(day.Format("2006-01-02")),
			TimestampLit(day.Format("2006-01-02")+"T12:00:00Z"), TimestampLit(day.Format("2006-01-02")+"T00:00:00+01:00"))
	case "b":
		return BoolLit(r.IntN(2) == 0)
	}
	panic(col)
}

func genExpr(r *rand.Rand, cols []string, depth int) Expr {
	if depth > 0 && r.IntN(3) > 0 {
		switch r.IntN(3) {
		case 0:
			return &Not{Arg: genExpr(r, cols, depth-1)}
		case 1:
			return &And{Args: []Expr{genExpr(r, cols, depth-1), genExpr(r, cols, depth-1)}}
		default:
			return &Or{Args: []Expr{genExpr(r, cols, depth-1), genExpr(r, cols, depth-1)}}
		}
	}
	col := pick(r, cols...)
	k := r.IntN(10)
	switch {
	case k < 5:
		return &Cmp{Op: pick(r, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe), Col: col, Value: genLit(r, col)}
	case k == 5:
		return &Between{Col: col, Low: genLit(r, col), High: genLit(r, col)}
	case k == 6:
		vals := []Literal{genLit(r, col)}
		for r.IntN(2) == 0 {
			vals = append(vals, genLit(r, col))
		}
		return &In{Col: col, Values: vals}
	case k == 7 && col == "s":
		var p strings.Builder
		for i := r.IntN(4); i > 0; i-- {
			p.WriteString(pick(r, "a", "b", "%", "_", "é", "\xff"))
		}
		return &Like{Col: col, Pattern: p.String()}
	}
	if other := pick(r, cols...); k == 8 && (other == col || col != "f64" && other != "f64" && diffSchema[col].Kind <= Uint && diffSchema[other].Kind <= Uint && col != "b" && other != "b") {
		return &ColCmp{Op: pick(r, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe), Left: col, Right: other}
	}
	return &IsNull{Col: col, Not: r.IntN(2) == 0}
}

func genCase(r *rand.Rand) *diffCase {
	c := &diffCase{n: r.IntN(10), cols: map[string]*genCol{}}
	used := []string{pick(r, diffCols...)}
	switch r.IntN(6) {
	case 0, 1:
		used = append(used, pick(r, diffCols...))
	case 2:
		used = []string{"i32", "u64"} // a signed and an unsigned column compared
	}
	nullRate := pick(r, 0, 0, 3, 10)
	for _, name := range used {
		if c.cols[name] != nil {
			continue
		}
		g := &genCol{vals: make([]Value, c.n), null: make([]bool, c.n)}
		for i := range g.vals {
			g.vals[i] = genValue(r, name)
			g.null[i] = nullRate > 0 && r.IntN(10) < nullRate
		}
		g.vec = buildVector(r, name, g)
		g.stats = buildStats(r, name, g)
		c.cols[name] = g
	}
	c.expr = genExpr(r, used, 3)
	return c
}

func buildVector(r *rand.Rand, name string, g *genCol) *Vector {
	t := diffSchema[name]
	n := len(g.vals)
	v := &Vector{Kind: t.Kind, Len: n}
	if r.IntN(2) == 0 || containsTrue(g.null) {
		v.Valid = make([]byte, (n+7)/8)
		for i, nl := range g.null {
			if !nl {
				v.Valid[i/8] |= 1 << (i % 8)
			}
		}
	}
	useI32 := r.IntN(2) == 0
	v.Offsets = []int32{0}
	for _, x := range g.vals {
		switch t.Kind {
		case Int, Date:
			if useI32 {
				v.I32 = append(v.I32, int32(x.I))
			} else {
				v.I64 = append(v.I64, x.I)
			}
		case Uint:
			v.U64 = append(v.U64, x.U)
		case Float:
			v.F64 = append(v.F64, x.F)
		case Bytes:
			v.Data = append(v.Data, x.B...)
			v.Offsets = append(v.Offsets, int32(len(v.Data)))
		case Decimal:
			b, _ := signExtend(x.B, 2)
			v.Data = append(v.Data, b...)
		}
	}
	if t.Kind == Bool {
		v.Bools = make([]byte, (n+7)/8)
		for i, x := range g.vals {
			if x.I != 0 {
				v.Bools[i/8] |= 1 << (i % 8)
			}
		}
	}
	if t.Kind == Decimal {
		v.Width, v.Offsets = 2, nil
	}
	if t.Kind != Bytes {
		v.Offsets = nil
	}
	return v
}

func containsTrue(b []bool) bool {
	for _, x := range b {
		if x {
			return true
		}
	}
	return false
}

// buildStats derives statistics from the data, then degrades them in one of several ways
// that a real writer may: missing bounds or counts, loosened inexact bounds, NaN bounds.
func buildStats(r *rand.Rand, name string, g *genCol) ColStats {
	s := ColStats{NumValues: int64(len(g.vals)), NaNCount: 0}
	for i, x := range g.vals {
		if g.null[i] {
			s.NullCount++
			continue
		}
		if x.Kind == Float && math.IsNaN(x.F) {
			s.NaNCount++
			continue
		}
		if c, _ := Compare(x, s.Min); !s.HasMin || c < 0 {
			s.Min, s.HasMin = x, true
		}
		if c, _ := Compare(x, s.Max); !s.HasMax || c > 0 {
			s.Max, s.HasMax = x, true
		}
	}
	s.MinExact, s.MaxExact = s.HasMin, s.HasMax
	switch r.IntN(8) {
	case 1:
		s.HasMin = s.HasMin && r.IntN(2) == 0
		s.HasMax = s.HasMax && r.IntN(2) == 0
	case 2:
		s.NullCount, s.NumValues = -1, -1
	case 3:
		s.NaNCount = -1
	case 4:
		if s.HasMin {
			s.Min, s.MinExact = loosen(r, s.Min, -1), false
		}
		if s.HasMax {
			s.Max, s.MaxExact = loosen(r, s.Max, 1), false
		}
	case 5:
		if name == "f64" {
			if r.IntN(2) == 0 {
				s.Min, s.HasMin = FloatValue(math.NaN()), true
			} else {
				s.Max, s.HasMax = FloatValue(math.NaN()), true
			}
		}
	case 6:
		s.MinExact, s.MaxExact = false, false
	}
	return s
}

// loosen moves a bound outward (dir -1 for a min, +1 for a max), as truncation does.
func loosen(r *rand.Rand, v Value, dir int) Value {
	d := int64(r.IntN(3)) * int64(dir)
	switch v.Kind {
	case Int, Date:
		if (dir < 0 && v.I < math.MinInt32+3) || (dir > 0 && v.I > math.MaxInt32-3) {
			return v
		}
		v.I += d
	case Uint:
		if (dir < 0 && v.U < 3) || (dir > 0 && v.U > math.MaxUint64-3) {
			return v
		}
		v.U = uint64(int64(v.U) + d)
	case Float:
		v.F += float64(d)
	case Decimal:
		v = DecimalBytes(bigToTwos(new(big.Int).Add(twosToBig(v.B), big.NewInt(d))))
	case Bytes:
		cut := r.IntN(len(v.B) + 1)
		p := append([]byte(nil), v.B[:cut]...)
		if dir < 0 || cut == len(v.B) {
			return BytesValue(p)
		}
		if q, ok := PrefixSuccessor(p); ok {
			return BytesValue(q)
		}
	}
	return v
}

// --- bloom helpers: the test's own PLAIN encoder and SBBF writer ---

func plainBytes(col string, x Value) []byte {
	switch col {
	case "i32", "d":
		return binary.LittleEndian.AppendUint32(nil, uint32(int32(x.I)))
	case "u64":
		return binary.LittleEndian.AppendUint64(nil, x.U)
	case "f64":
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(x.F))
	case "s":
		return x.B
	case "dec":
		b, _ := signExtend(x.B, 2)
		return b
	}
	return nil
}

func sbbfInsert(bitset []byte, hash uint64) {
	nb := uint64(len(bitset) / 32)
	blk := bitset[((hash>>32)*nb>>32)*32:]
	key := uint32(hash)
	for i, s := range sbbfSalt {
		w := binary.LittleEndian.Uint32(blk[4*i:])
		binary.LittleEndian.PutUint32(blk[4*i:], w|uint32(1)<<((key*s)>>27))
	}
}

// checkCase runs every evaluator on one case and reports a violated property.
func checkCase(t testing.TB, c *diffCase) (pruned int) {
	t.Helper()
	b, err := Bind(c.expr, func(p string) (ColumnType, bool) { ct, ok := diffSchema[p]; return ct, ok })
	if err != nil {
		t.Fatalf("bind %s: %v", c.expr, err)
	}
	sel := make([]bool, c.n)
	if err := b.Filter(func(p string) *Vector { return c.cols[p].vec }, c.n, sel); err != nil {
		t.Fatalf("filter %s: %v", c.expr, err)
	}
	any := false
	for i, s := range sel {
		if want := refEval(c.expr, c, i) == tTrue; s != want {
			t.Fatalf("%s: row %d: Filter %v, reference %v (value %+v null %v)", c.expr, i, s, want, c.cols[Columns(c.expr)[0]].vals[i], c.cols[Columns(c.expr)[0]].null[i])
		}
		any = any || s
	}
	describe := func() string {
		var sb strings.Builder
		for name, g := range c.cols {
			fmt.Fprintf(&sb, "\n  %s: vals %v null %v stats %+v", name, g.vals, g.null, g.stats)
		}
		return sb.String()
	}
	if b.MustMatch(func(p string) (ColStats, bool) { return c.cols[p].stats, true }) {
		mustMatched++
		for i, s := range sel {
			if !s {
				t.Fatalf("MustMatch proved %s (bound %s) but row %d does not match%s", c.expr, b, i, describe())
			}
		}
	}
	if !b.MayMatch(func(p string) (ColStats, bool) { return c.cols[p].stats, true }) {
		pruned++
		if any {
			t.Fatalf("MayMatch pruned %s (bound %s) but rows match%s", c.expr, b, describe())
		}
	}
	for name, g := range c.cols {
		// Dictionary: the distinct non-null values.
		dict := &genCol{}
		hasNulls := false
		for i, x := range g.vals {
			if g.null[i] {
				hasNulls = true
				continue
			}
			dup := false
			for _, y := range dict.vals {
				if cmp, ok := Compare(x, y); ok && cmp == 0 && math.Signbit(x.F) == math.Signbit(y.F) {
					dup = true
				}
			}
			if !dup {
				dict.vals = append(dict.vals, x)
			}
		}
		dict.null = make([]bool, len(dict.vals))
		dv := buildVector(rand.New(rand.NewPCG(1, uint64(len(dict.vals)))), name, dict)
		if !b.MayMatchDict(name, dv, hasNulls) {
			pruned++
			if any {
				t.Fatalf("MayMatchDict(%s) pruned %s but rows match%s", name, c.expr, describe())
			}
		}
		if name == "b" {
			continue
		}
		bits := make([]byte, 32*4)
		for i, x := range g.vals {
			if !g.null[i] {
				sbbfInsert(bits, XXH64(plainBytes(name, x)))
			}
		}
		if !b.MayMatchBloom(name, func(h uint64) bool { return SBBFContains(bits, h) }) {
			pruned++
			if any {
				t.Fatalf("MayMatchBloom(%s) pruned %s but rows match%s", name, c.expr, describe())
			}
		}
	}
	// The printed SQL binds to an equivalent predicate.
	e2, err := Parse(c.expr.String())
	require.NoError(t, err, c.expr.String())
	require.Equal(t, c.expr, e2)
	return pruned
}

// mustMatched counts the cases where MustMatch proved every row matches (checked against
// Filter), so that Test_differential can tell it exercised them.
var mustMatched int

func Test_differential(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	pruned := 0
	const cases = 20000
	for i := 0; i < cases; i++ {
		pruned += checkCase(t, genCase(r))
	}
	// A property test that never prunes proves nothing: make sure it exercises pruning.
	t.Logf("%d cases, %d prune decisions, %d all-match proofs", cases, pruned, mustMatched)
	require.True(t, pruned > cases/4, pruned)
	require.True(t, mustMatched > cases/50, mustMatched)
}

func FuzzStatsSafety(f *testing.F) {
	for i := uint64(0); i < 8; i++ {
		f.Add(i, i*31)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkCase(t, genCase(rand.New(rand.NewPCG(a, b))))
	})
}
