package tablescan

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// The per-file rewrite of the residual (filewhere.go) against its definition, on random
// predicates and rows: the table's predicate evaluated on table values (a: int64; m: a
// column the file lacks, all null; f: double values of a float column; r: a column the file
// calls "q") must select exactly the rows the rewritten predicate selects on the file's
// values (a, f as float32, q), or all / none when it folds to a constant.

var (
	fwTableTypes = map[string]prune.ColumnType{
		"a": {Kind: prune.Int, Physical: prune.Int64},
		"m": {Kind: prune.Int, Physical: prune.Int64},
		"f": {Kind: prune.Float, Physical: prune.Double},
		"r": {Kind: prune.Int, Physical: prune.Int64},
	}
	fwFileTypes = map[string]prune.ColumnType{
		"a": {Kind: prune.Int, Physical: prune.Int32},
		"f": {Kind: prune.Float, Physical: prune.PhysFloat},
		"q": {Kind: prune.Int, Physical: prune.Int64},
	}
	fwFloats = []string{"0.1", "0.5", "1.1", "2", "-0.25", "3.3", "1e-40", "16777217", "0.30000001192092896"}
)

func fwLit(r *rand.Rand, col string) prune.Literal {
	if col == "f" {
		return prune.FloatLit(fwFloats[r.IntN(len(fwFloats))])
	}
	return prune.IntLit(fmt.Sprint(r.IntN(9) - 4))
}

func fwExpr(r *rand.Rand, depth int) prune.Expr {
	cols := []string{"a", "m", "f", "r"}
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
	for i := 0; i < n; i++ {
		a.I64[i], q.I64[i] = int64(r.IntN(9)-4), int64(r.IntN(9)-4)
		var x float32
		fmt.Sscan(fwLit(r, "f").Text, &x)
		f.F64[i] = float64(x) // a float32 value, widened
	}
	e := fwExpr(r, 3)
	want := fwSelect(t, e, fwTableTypes, map[string]*prune.Vector{"a": a, "m": m, "f": f, "r": q}, n)
	where, any := fileWhere(e, map[string]string{"a": "a", "m": "", "f": "f", "r": "q"}, map[string]litMode{"f": litFloat32})
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
		got = fwSelect(t, fe, fwFileTypes, map[string]*prune.Vector{"a": a, "f": f, "q": q}, n)
	}
	require.Equal(t, want, got, fmt.Sprintf("%s → %q (any %v)", e, where, any))
	return folded
}
