package prune

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// Truth values of SQL three-valued logic, ordered so that AND is min, OR is max and NOT is
// 2-x (Kleene logic).
const (
	tFalse uint8 = 0
	tNull  uint8 = 1
	tTrue  uint8 = 2
)

// Filter evaluates the predicate over n rows: sel[i] is set to whether the predicate is TRUE
// for row i. NULL (unknown) results drop the row, as in a SQL WHERE clause: a comparison with
// a null is unknown, NOT unknown is unknown, FALSE AND unknown is FALSE, TRUE OR unknown is
// TRUE. Floats follow IEEE: NaN = x is false, NaN != x is true, NaN < x is false.
//
// cols returns the vector for each column path of b (see Columns); each must have at least n
// elements and match the column's Kind, otherwise Filter returns an error wrapping ErrVector
// and leaves sel unspecified. sel must have at least n elements; only sel[:n] is written.
func (b *Bound) Filter(cols func(path string) *Vector, n int, sel []bool) error {
	if n < 0 || len(sel) < n {
		return errf.Errorf("%w: %d rows with a selection of %d", ErrVector, n, len(sel))
	}
	vecs := make([]*Vector, len(b.cols))
	sts := make([]storage, len(b.cols))
	for i, c := range b.cols {
		v := cols(c.path)
		st, err := v.check(c.typ, n)
		if err != nil {
			return errf.Errorf("%w: column %q: %v", ErrVector, c.path, err)
		}
		vecs[i], sts[i] = v, st
	}
	out := make([]uint8, n)
	if err := b.evalRows(b.root, vecs, sts, n, out); err != nil {
		return err
	}
	sel = sel[:n]
	for i, t := range out {
		sel[i] = t == tTrue
	}
	return nil
}

// evalRows writes node's truth value for rows [0, n) into out. Only a spatial leaf fails (a
// malformed geometry).
func (b *Bound) evalRows(nd *bnode, vecs []*Vector, sts []storage, n int, out []uint8) error {
	switch nd.op {
	case bAnd, bOr:
		if err := b.evalRows(nd.kids[0], vecs, sts, n, out); err != nil {
			return err
		}
		tmp := make([]uint8, n)
		for _, k := range nd.kids[1:] {
			if err := b.evalRows(k, vecs, sts, n, tmp); err != nil {
				return err
			}
			if nd.op == bAnd {
				for i := range out {
					out[i] = min(out[i], tmp[i])
				}
			} else {
				for i := range out {
					out[i] = max(out[i], tmp[i])
				}
			}
		}
		return nil
	case bNot:
		if err := b.evalRows(nd.kids[0], vecs, sts, n, out); err != nil {
			return err
		}
		for i := range out {
			out[i] = tTrue - out[i]
		}
		return nil
	}
	v, st := vecs[nd.col], sts[nd.col]
	switch nd.op {
	case bIsNull, bNotNull:
		isNull, notNull := tTrue, tFalse
		if nd.op == bNotNull {
			isNull, notNull = tFalse, tTrue
		}
		for i := range out {
			out[i] = notNull
			if !v.valid(i) {
				out[i] = isNull
			}
		}
		return nil
	case bSpatial:
		return spatialRows(nd, v, st, out[:n], b.cols[nd.col].path)
	case bCols:
		b.colsRows(nd, v, st, vecs[nd.col2], sts[nd.col2], out)
	case bConst:
		fill(out, truth(nd.konst))
	case bCmp:
		cmpRows(v, st, nd.cmp, nd.val, out)
	case bIn:
		k := b.cols[nd.col].typ.Kind
		for i := range out {
			out[i] = truth(inSorted(nd.vals, v.value(k, st, i)))
		}
	case bLike:
		var low []byte
		at := func(i int) []byte {
			if nd.fold {
				low = foldCase(low[:0], v.bytesAt(st, i))
				return low
			}
			return v.bytesAt(st, i)
		}
		if nd.segs != nil {
			for i := range out {
				out[i] = truth(likeSegs(nd.segs, at(i)))
			}
			break
		}
		for i := range out {
			out[i] = truth(likeMatch(nd.pat, at(i)))
		}
	}
	if v.Valid != nil {
		for i := range out {
			if !v.valid(i) {
				out[i] = tNull
			}
		}
	}
	return nil
}

// colsRows writes a comparison of two columns' values, row by row. Its own function, kept out
// of evalRows: the general Value path it takes is code the module would carry twice.
//
//go:noinline
func (b *Bound) colsRows(nd *bnode, v *Vector, st storage, w *Vector, wt storage, out []uint8) {
	k, k2 := b.cols[nd.col].typ.Kind, b.cols[nd.col2].typ.Kind
	for i := range out {
		if !v.valid(i) || !w.valid(i) {
			out[i] = tNull
			continue
		}
		c, ok := nd.colCmp(v.value(k, st, i), w.value(k2, wt, i))
		// Incomparable is a NaN: false, but for !=, as IEEE has it.
		out[i] = truth(ok && cmpResult(nd.cmp, c) || !ok && nd.cmp == OpNe)
	}
}

// inSorted reports whether x equals an element of the sorted, NaN-free vals. A NaN x equals
// nothing.
func inSorted(vals []Value, x Value) bool {
	if isNaNValue(x) {
		return false
	}
	_, found := slices.BinarySearchFunc(vals, x, func(a, x Value) int {
		c, _ := Compare(a, x)
		return c
	})
	return found
}

func truth(b bool) uint8 {
	if b {
		return tTrue
	}
	return tFalse
}

func fill(out []uint8, t uint8) {
	for i := range out {
		out[i] = t
	}
}

// cmpRows compares every element with lit using a loop specialised for the storage.
// Null elements get arbitrary values; the caller overwrites them.
func cmpRows(v *Vector, st storage, op Op, lit Value, out []uint8) {
	n := len(out)
	switch st {
	case stBools:
		for i := range out {
			x := int64(v.Bools[i>>3] >> (i & 7) & 1)
			out[i] = truth(cmpOrdered(op, x, lit.I))
		}
	case stI32, stI64:
		l, sign := lit.I, 0
		if lit.Kind == Decimal && lit.B != nil {
			x := exactnum.FromTwos(lit.B)
			if x.IsInt64() {
				l = x.Int64()
			} else {
				sign = x.Sign() // beyond every stored integer
			}
		}
		if sign != 0 {
			// x op lit with lit above (sign > 0) or below every x.
			fill(out, truth(op == OpNe || sign > 0 && (op == OpLt || op == OpLe) || sign < 0 && (op == OpGt || op == OpGe)))
			return
		}
		if st == stI32 {
			cmpKernel(v.I32[:n], l, op, out)
		} else {
			cmpKernel(v.I64[:n], l, op, out)
		}
	case stU32:
		cmpKernel(v.U32[:n], lit.U, op, out)
	case stU64:
		cmpKernel(v.U64[:n], lit.U, op, out)
	case stF32:
		cmpKernel(v.F32[:n], lit.F, op, out)
	case stF64:
		cmpKernel(v.F64[:n], lit.F, op, out)
	case stVar, stFixed:
		if lit.Kind == Decimal {
			lb := decTwos(lit)
			for i := range out {
				out[i] = truth(cmpResult(op, cmpTwos(v.bytesAt(st, i), lb)))
			}
			return
		}
		for i := range out {
			out[i] = truth(cmpResult(op, bytes.Compare(v.bytesAt(st, i), lit.B)))
		}
	}
}

// cmpKernel compares each xs[i], converted exactly to T, with lit. The operator switch sits
// outside the loops.
func cmpKernel[S int32 | int64 | uint32 | uint64 | float32 | float64, T int64 | uint64 | float64](xs []S, lit T, op Op, out []uint8) {
	out = out[:len(xs)] // one bounds check here, none in the loops
	switch op {
	case OpEq:
		for i, x := range xs {
			out[i] = truth(T(x) == lit)
		}
	case OpNe:
		for i, x := range xs {
			out[i] = truth(T(x) != lit)
		}
	case OpLt:
		for i, x := range xs {
			out[i] = truth(T(x) < lit)
		}
	case OpLe:
		for i, x := range xs {
			out[i] = truth(T(x) <= lit)
		}
	case OpGt:
		for i, x := range xs {
			out[i] = truth(T(x) > lit)
		}
	case OpGe:
		for i, x := range xs {
			out[i] = truth(T(x) >= lit)
		}
	}
}

func cmpOrdered[T int64 | uint64 | float64](op Op, x, y T) bool {
	switch op {
	case OpEq:
		return x == y
	case OpNe:
		return x != y
	case OpLt:
		return x < y
	case OpLe:
		return x <= y
	case OpGt:
		return x > y
	case OpGe:
		return x >= y
	}
	return false
}

// cmpResult applies op to a three-way comparison result c = compare(x, lit).
func cmpResult(op Op, c int) bool { return cmpOrdered(op, int64(c), 0) }

// likeMatch reports whether s matches the LIKE pattern p. Both are read as characters:
// UTF-8 sequences, with each byte of invalid UTF-8 a character of its own. '%' matches any
// run of characters, '_' exactly one, any other character itself. Greedy matching with
// single-star backtracking (linear space, O(len(p)·len(s)) worst-case time).
func likeMatch(p, s []byte) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch p[pi] {
			case '_':
				si += charLen(s[si:])
				pi++
				continue
			case '%':
				star, mark = pi, si
				pi++
				continue
			default:
				pw, sw := charLen(p[pi:]), charLen(s[si:])
				if pw == sw && bytes.Equal(p[pi:pi+pw], s[si:si+sw]) {
					pi, si = pi+pw, si+sw
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		mark += charLen(s[mark:])
		pi, si = star+1, mark
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// likeSegments splits a LIKE pattern at its '%'s when it has no '_' and is valid UTF-8; nil
// otherwise. Such a pattern matches by byte searches (likeSegs), which is likeMatch's answer:
// a valid literal's first byte is never a continuation byte, and every other byte of a string
// begins a character as likeMatch reads it, so a literal found at any byte offset is found at
// a character, and reads as the same characters there. Leftmost matches of the segments in
// order lose no match, as '%' takes any run. A common filter (`%word%`) then costs a substring
// search per value instead of a character loop.
func likeSegments(p []byte) [][]byte {
	if bytes.IndexByte(p, '_') >= 0 || !utf8.Valid(p) {
		return nil
	}
	return bytes.Split(p, []byte{'%'})
}

// likeSegs reports whether s matches the pattern whose '%'-separated segments are segs
// (likeSegments): the first a prefix, the last a suffix, the others in order between.
func likeSegs(segs [][]byte, s []byte) bool {
	if len(segs) == 1 {
		return bytes.Equal(segs[0], s)
	}
	if !bytes.HasPrefix(s, segs[0]) {
		return false
	}
	s = s[len(segs[0]):]
	last := segs[len(segs)-1]
	for _, m := range segs[1 : len(segs)-1] {
		i := bytes.Index(s, m)
		if i < 0 {
			return false
		}
		s = s[i+len(m):]
	}
	return bytes.HasSuffix(s, last)
}

// foldCase appends s in lower case to dst: ASCII byte by byte, anything else through
// unicode.ToLower per character (bytes.ToLower's mapping), so ILIKE reads 'É' as 'é'.
func foldCase(dst, s []byte) []byte {
	for i, c := range s {
		if c >= utf8.RuneSelf {
			return append(dst, bytes.ToLower(s[i:])...)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// charLen is the byte length of the character at the start of b (1 for invalid UTF-8).
func charLen(b []byte) int {
	_, w := utf8.DecodeRune(b)
	return w
}
