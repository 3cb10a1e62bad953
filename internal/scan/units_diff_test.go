package scan

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// unitsOf runs a PlanUnits session of opts and returns its units of about target bytes.
func unitsOf(t *testing.T, file []byte, opts Options, target int64) []Unit {
	t.Helper()
	opts.PlanUnits = target
	_, streams, s := runRounds(t, file, opts)
	require.Equal(t, 0, len(streams))
	return Units(s)
}

// Test_unitsDifferential: a scan cut into units (random predicates, row index, offsets and
// limits without a predicate, runtime filters given at the start) and read unit by unit, each
// as its own session, returns the rows of the single session in the same order; and no unit
// reads rows another does.
func Test_unitsDifferential(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	ops := []string{"=", "!=", "<", "<=", ">", ">="}
	var cases, cut int
	for _, f := range pruneFiles {
		file := testcorpus.Read(t, f)
		var cols []column
		for _, c := range readAll(t, file) {
			if len(c.vals) > 0 {
				cols = append(cols, c)
			}
		}
		n := len(cols[0].vals)
		for k := 0; k < 10; k++ {
			c := &cols[rng.Intn(len(cols))]
			where := ""
			if lit := c.vals[rng.Intn(n)]; lit != nil && k%4 != 0 {
				if x, ok := lit.(float64); !ok || (!math.IsNaN(x) && !math.IsInf(x, 0)) {
					where = fmt.Sprintf("%q %s %s", c.name, ops[rng.Intn(len(ops))], literal(lit))
				}
			}
			opts := Options{Where: where, BatchRows: 64 + rng.Intn(1000)}
			if rng.Intn(2) == 0 {
				opts.RowIndex = "__ri"
			}
			if where == "" && rng.Intn(2) == 0 {
				opts.Offset, opts.Limit = int64(rng.Intn(n)), int64(rng.Intn(n))
			}
			var tight string
			if opts.RowIndex != "" && opts.Limit == 0 && opts.Offset == 0 && rng.Intn(2) == 0 {
				tight = fmt.Sprintf("__ri NOT BETWEEN %d AND %d", rng.Intn(n), rng.Intn(n))
			}
			one := opts
			if tight != "" {
				one.Where = joinConj(one.Where, tight)
			}
			_, want, _ := runRounds(t, file, one)
			units := unitsOf(t, file, one, int64(1+rng.Intn(1<<16)))
			var got [][]byte
			var prevEnd int64
			for _, u := range units {
				require.True(t, u.Start >= prevEnd && u.End > u.Start, "units overlap or are empty", units)
				prevEnd = u.End
				uo := one
				uo.RowsFrom, uo.RowsTo, uo.Offset, uo.Limit = u.Start, u.End, 0, 0
				_, part, _ := runRounds(t, file, uo)
				got = append(got, part...)
			}
			if len(units) > 0 || len(want) == 0 {
				cases++
			}
			if len(units) > 1 {
				cut++
			}
			if w := concatBatches(t, want); !bytes.Equal(concatBatches(t, got), w) {
				t.Fatalf("%s %+v (%d units %v): the units' rows differ from the single scan's", f, one, len(units), units)
			}
		}
	}
	t.Logf("%d scans compared, %d cut into several units", cases, cut)
	require.True(t, cases > 100, "too few cases", cases)
}

func joinConj(a, b string) string {
	if a == "" {
		return b
	}
	return "(" + a + ") AND (" + b + ")"
}
