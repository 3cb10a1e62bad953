package prune

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"time"
	"unicode/utf8"
)

// The reference evaluator for the differential test: it walks the unbound Expr and compares
// with exact arithmetic (big.Rat), independently of Bind's coercion and Filter's kernels.

// --- reference evaluator over the unbound tree, exact arithmetic ---

func refEval(e Expr, c *diffCase, i int) uint8 {
	switch e := e.(type) {
	case *And:
		t := tTrue
		for _, a := range e.Args {
			t = min(t, refEval(a, c, i))
		}
		return t
	case *Or:
		t := tFalse
		for _, a := range e.Args {
			t = max(t, refEval(a, c, i))
		}
		return t
	case *Not:
		return tTrue - refEval(e.Arg, c, i)
	case *IsNull:
		return truth(c.cols[e.Col].null[i] != e.Not)
	case *ColCmp:
		g, h := c.cols[e.Left], c.cols[e.Right]
		if g.null[i] || h.null[i] {
			return tNull
		}
		x, y := g.vals[i], h.vals[i]
		switch e.Left {
		case "f64":
			if math.IsNaN(x.F) || math.IsNaN(y.F) {
				return truth(e.Op == OpNe)
			}
			return truth(cmpResult(e.Op, cmpFloat(x.F, y.F)))
		case "s":
			return truth(cmpResult(e.Op, bytes.Compare(x.B, y.B)))
		}
		return truth(cmpResult(e.Op, refRat(e.Left, x).Cmp(refRat(e.Right, y))))
	}
	g := c.cols[Columns(e)[0]]
	if g.null[i] {
		return tNull
	}
	x := g.vals[i]
	col := Columns(e)[0]
	switch e := e.(type) {
	case *Cmp:
		return truth(refCmp(col, x, e.Op, e.Value))
	case *Between:
		return truth(refCmp(col, x, OpGe, e.Low) && refCmp(col, x, OpLe, e.High))
	case *In:
		for _, l := range e.Values {
			if refCmp(col, x, OpEq, l) {
				return tTrue
			}
		}
		return tFalse
	case *Like:
		return truth(refLike(chars([]byte(e.Pattern)), chars(x.B)))
	}
	panic(e)
}

// chars splits b into characters: UTF-8 sequences, invalid bytes one each.
func chars(b []byte) []string {
	var out []string
	for len(b) > 0 {
		_, w := utf8.DecodeRune(b)
		out = append(out, string(b[:w]))
		b = b[w:]
	}
	return out
}

// refLike is the textbook recursive LIKE matcher over characters.
func refLike(p, s []string) bool {
	if len(p) == 0 {
		return len(s) == 0
	}
	switch p[0] {
	case "%":
		for k := 0; k <= len(s); k++ {
			if refLike(p[1:], s[k:]) {
				return true
			}
		}
		return false
	case "_":
		return len(s) > 0 && refLike(p[1:], s[1:])
	}
	return len(s) > 0 && p[0] == s[0] && refLike(p[1:], s[1:])
}

func refCmp(col string, x Value, op Op, l Literal) bool {
	var c int
	switch col {
	case "f64":
		var f float64
		if l.Kind == LitString {
			f, _ = specialFloat(l.Text)
		} else {
			fmt.Sscan(l.Text, &f)
		}
		if math.IsNaN(f) || math.IsNaN(x.F) {
			return op == OpNe
		}
		c = cmpFloat(x.F, f)
	case "s":
		c = bytes.Compare(x.B, []byte(l.Text))
	case "b":
		c = int(x.I) - boolInt(l.Bool)
	default:
		c = refRat(col, x).Cmp(litRat(col, l))
	}
	return cmpResult(op, c)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func refRat(col string, x Value) *big.Rat {
	switch col {
	case "u64":
		return new(big.Rat).SetInt(new(big.Int).SetUint64(x.U))
	case "dec":
		return new(big.Rat).SetFrac(twosToBig(x.B), big.NewInt(10))
	}
	return new(big.Rat).SetInt64(x.I)
}

func litRat(col string, l Literal) *big.Rat {
	if col == "d" {
		s := l.Text
		if len(s) == 10 {
			s += "T00:00:00Z"
		}
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return big.NewRat(tm.Unix(), 86400)
	}
	r, ok := new(big.Rat).SetString(l.Text)
	if !ok {
		panic(l.Text)
	}
	return r
}
