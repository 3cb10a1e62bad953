package tablescan

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// The per-file rewrite of the residual (filewhere.go) against its definition, on random
// predicates and rows: the table's predicate evaluated on table values (a: int64; m: a
// column the file lacks, all null; f: double values of a float column; r: a column the file
// calls "q"; i: double values of an int32 column; d: zone-less timestamps of a date column;
// c: decimal(12,2) values of an int32 column) must select exactly the rows the rewritten
// predicate selects on the file's values (a, f as float32, q, i, d and c in their file
// types), or all / none when it folds to a constant.

var (
	fwTableTypes = map[string]prune.ColumnType{
		"a": {Kind: prune.Int, Physical: prune.Int64},
		"m": {Kind: prune.Int, Physical: prune.Int64},
		"f": {Kind: prune.Float, Physical: prune.Double},
		"r": {Kind: prune.Int, Physical: prune.Int64},
		"i": {Kind: prune.Float, Physical: prune.Double},
		"d": {Kind: prune.Timestamp, Unit: prune.Micro, Physical: prune.Int64},
		"c": {Kind: prune.Decimal, Precision: 12, Scale: 2, Physical: prune.Int64},
	}
	fwFileTypes = map[string]prune.ColumnType{
		"a": {Kind: prune.Int, Physical: prune.Int32},
		"f": {Kind: prune.Float, Physical: prune.PhysFloat},
		"q": {Kind: prune.Int, Physical: prune.Int64},
		"i": {Kind: prune.Int, Physical: prune.Int32},
		"d": {Kind: prune.Date, Physical: prune.Int32},
		"c": {Kind: prune.Int, Physical: prune.Int32},
	}
	fwModes   = map[string]litMode{"f": litFloat32, "i": litDouble, "d": litWallClock}
	fwFloats  = []string{"0.1", "0.5", "1.1", "2", "-0.25", "3.3", "1e-40", "16777217", "0.30000001192092896"}
	fwDoubles = []string{"2.0000000000000000001", "-0.5", "2.5", "3", "1e300", "-1e400", "1e-400", "-1e-400", "-4", "0", "1.9999999999999999999"}
	fwTimes   = []prune.Literal{prune.DateLit("2024-01-05"), prune.StrLit("2024-01-05T00:00:00+02:00"), prune.TimestampLit("2024-01-04T23:00:00Z"),
		prune.StrLit("2024-01-05 12:00:00"), prune.TimestampLit("2024-01-06T00:00:00-01:00"), prune.StrLit("2024-01-05T00:00:00.000001"),
		prune.TimestampLit("2024-01-03T00:00:00")}
	fwDecimals = []string{"1", "1.5", "-2.25", "3.00", "0.001", "-4", "2.999"}
)

// fwDay0 is the first day of d's values (2024-01-02), in days since the epoch.
const fwDay0 = 19724

func fwLit(r *rand.Rand, col string) prune.Literal {
	switch col {
	case "f":
		return prune.FloatLit(fwFloats[r.IntN(len(fwFloats))])
	case "i":
		return prune.FloatLit(fwDoubles[r.IntN(len(fwDoubles))])
	case "d":
		return fwTimes[r.IntN(len(fwTimes))]
	case "c":
		return prune.FloatLit(fwDecimals[r.IntN(len(fwDecimals))])
	}
	return prune.IntLit(fmt.Sprint(r.IntN(9) - 4))
}

func fwExpr(r *rand.Rand, depth int) prune.Expr {
	cols := []string{"a", "m", "f", "r", "i", "d", "c"}
	col := cols[r.IntN(len(cols))]
	ops := []prune.Op{prune.OpEq, prune.OpNe, prune.OpLt, prune.OpLe, prune.OpGt, prune.OpGe}
	k := r.IntN(10)
	if depth <= 0 {
		k = r.IntN(4)
	}
	switch k {
	case 0, 1:
		return &prune.Cmp{Op: ops[r.IntN(len(ops))], Col: col, Value: fwLit(r, col)}
	case 2:
		return &prune.IsNull{Col: col, Not: r.IntN(2) == 0}
	case 3:
		if r.IntN(2) == 0 {
			return &prune.In{Col: col, Values: []prune.Literal{fwLit(r, col), fwLit(r, col)}}
		}
		return &prune.Between{Col: col, Low: fwLit(r, col), High: fwLit(r, col)}
	case 4, 5:
		return &prune.Not{Arg: fwExpr(r, depth-1)}
	case 6, 7:
		return &prune.And{Args: []prune.Expr{fwExpr(r, depth-1), fwExpr(r, depth-1)}}
	}
	return &prune.Or{Args: []prune.Expr{fwExpr(r, depth-1), fwExpr(r, depth-1)}}
}

// fwSelect evaluates e (bound with types) over vecs.
func fwSelect(t *testing.T, e prune.Expr, types map[string]prune.ColumnType, vecs map[string]*prune.Vector, n int) []bool {
	t.Helper()
	b, err := prune.Bind(e, func(p string) (prune.ColumnType, bool) { ct, ok := types[p]; return ct, ok })
	require.NoError(t, err, e.String())
	sel := make([]bool, n)
	require.NoError(t, b.Filter(func(p string) *prune.Vector { return vecs[p] }, n, sel))
	return sel
}

func Test_fileWhereRewrite(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	folded := 0
	for c := 0; c < 3000; c++ {
		if fwCase(t, r) {
			folded++
		}
	}
	// Folding (a file skipped, or scanned without a filter) must be exercised too.
	require.True(t, folded > 100, folded)
}

func FuzzFileWhereRewrite(f *testing.F) {
	for i := uint64(0); i < 8; i++ {
		f.Add(i, i*7+1)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		fwCase(t, rand.New(rand.NewPCG(a, b)))
	})
}

// fwCase checks one random predicate over random rows; it reports whether it folded.
func fwCase(t *testing.T, r *rand.Rand) bool {
	const n = 24
	valid := func(p float64) []byte {
		v := make([]byte, (n+7)/8)
		for i := 0; i < n; i++ {
			if r.Float64() >= p {
				v[i/8] |= 1 << (i % 8)
			}
		}
		return v
	}
	a := &prune.Vector{Kind: prune.Int, Len: n, I64: make([]int64, n), Valid: valid(0.2)}
	q := &prune.Vector{Kind: prune.Int, Len: n, I64: make([]int64, n), Valid: valid(0.2)}
	f := &prune.Vector{Kind: prune.Float, Len: n, F64: make([]float64, n), Valid: valid(0.2)}
	m := &prune.Vector{Kind: prune.Int, Len: n, I64: make([]int64, n), Valid: make([]byte, (n+7)/8)}
	// i, d and c as the file holds them and as the table reads them.
	fi := &prune.Vector{Kind: prune.Int, Len: n, I64: make([]int64, n), Valid: valid(0.2)}
	ti := &prune.Vector{Kind: prune.Float, Len: n, F64: make([]float64, n), Valid: fi.Valid}
	fd := &prune.Vector{Kind: prune.Date, Len: n, I64: make([]int64, n), Valid: valid(0.2)}
	td := &prune.Vector{Kind: prune.Timestamp, Len: n, I64: make([]int64, n), Valid: fd.Valid}
	fc := &prune.Vector{Kind: prune.Int, Len: n, I64: make([]int64, n), Valid: valid(0.2)}
	tc := &prune.Vector{Kind: prune.Decimal, Len: n, I64: make([]int64, n), Valid: fc.Valid}
	for i := 0; i < n; i++ {
		a.I64[i], q.I64[i] = int64(r.IntN(9)-4), int64(r.IntN(9)-4)
		var x float32
		fmt.Sscan(fwLit(r, "f").Text, &x)
		f.F64[i] = float64(x) // a float32 value, widened
		fi.I64[i] = int64(r.IntN(9) - 4)
		ti.F64[i] = float64(fi.I64[i])
		fd.I64[i] = fwDay0 + int64(r.IntN(6))
		td.I64[i] = fd.I64[i] * 86400e6
		fc.I64[i] = int64(r.IntN(9) - 4)
		tc.I64[i] = fc.I64[i] * 100
	}
	e := fwExpr(r, 3)
	want := fwSelect(t, e, fwTableTypes, map[string]*prune.Vector{"a": a, "m": m, "f": f, "r": q, "i": ti, "d": td, "c": tc}, n)
	where, any, _ := fileWhere(e, map[string]string{"a": "a", "m": "", "f": "f", "r": "q", "i": "i", "d": "d", "c": "c"}, fwModes, nil)
	got := make([]bool, n)
	folded := !any || where == ""
	switch {
	case !any:
	case where == "":
		for i := range got {
			got[i] = true
		}
	default:
		fe, err := prune.Parse(where)
		require.NoError(t, err, where)
		for _, col := range prune.Columns(fe) {
			require.True(t, col != "m" && col != "r", where)
		}
		got = fwSelect(t, fe, fwFileTypes, map[string]*prune.Vector{"a": a, "f": f, "q": q, "i": fi, "d": fd, "c": fc}, n)
	}
	require.Equal(t, want, got, fmt.Sprintf("%s → %q (any %v)", e, where, any))
	return folded
}

// A column the file lacks and fills (File.Fill) is decided on its value: the file is kept or
// skipped on it, and its leaves leave the file's predicate.
func Test_fileWhereFill(t *testing.T) {
	intT := prune.ColumnType{Kind: prune.Int}
	fill := map[string]filled{
		"p": {t: intT, v: hive.Value{V: prune.Value{Kind: prune.Int, I: 2}}},
		"n": {t: intT, v: hive.Value{Null: true}},
	}
	for _, tc := range []struct {
		name, where, want string
		any               bool
	}{
		{name: "equal", where: "p = 2", any: true},
		{name: "not equal", where: "p = 3", any: false},
		{name: "not null", where: "p IS NULL", any: false},
		{name: "negated", where: "NOT (p <> 2) AND a > 1", want: "a > 1", any: true},
		{name: "or", where: "p > 5 OR a < 0", want: "a < 0", any: true},
		{name: "a null value", where: "n = 2", any: false},
		{name: "a null value is null", where: "n IS NULL AND a = 1", want: "a = 1", any: true},
		{name: "unknown is not false", where: "NOT (n = 2)", any: false},
		{name: "a column against a filled one", where: "a < p", want: "a < 2", any: true},
		{name: "a filled column against a column", where: "NOT (p < a)", want: "NOT (a > 2)", any: true},
		{name: "two filled columns", where: "p = p AND a = 1", want: "a = 1", any: true},
		{name: "two filled columns, false", where: "p < p", any: false},
		{name: "a column against a null one", where: "a = n OR a = 3", want: "a = 3", any: true},
		{name: "against a null one, negated", where: "NOT (a = n)", any: false},
		{name: "against a missing one", where: "NOT (a <= m)", any: false},
		{name: "two columns of the file", where: "a != b", want: "a != b2", any: true},
	} {
		e, err := prune.Parse(tc.where)
		require.NoError(t, err, tc.name)
		where, any, err := fileWhere(e, map[string]string{"a": "a", "p": "", "n": "", "m": "", "b": "b2"}, nil, fill)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.any, any, tc.name)
		if any {
			require.Equal(t, tc.want, where, tc.name)
		}
	}
	// A double no float32 holds has no literal a FLOAT column would compare exactly with.
	e, err := prune.Parse("a < x")
	require.NoError(t, err)
	x := map[string]filled{"x": {t: prune.ColumnType{Kind: prune.Float, Physical: prune.Double}, v: hive.Value{V: prune.FloatValue(0.1)}}}
	_, _, err = fileWhere(e, map[string]string{"a": "a", "x": ""}, nil, x)
	require.ErrorIs(t, err, prune.ErrIncomparable)
}
