package prune

// MayMatchDict reports whether a column chunk whose values all come from dict may contain a
// row satisfying the predicate; false proves that none does.
//
// Every subtree that references only column path is evaluated exactly on each dictionary
// entry (through the same code as Filter), plus one null row when chunkHasNulls; parts on
// other columns are unknown. Call it only for chunks whose data pages are all dictionary
// encoded (no PLAIN fallback), with the decoded dictionary page as dict (Len = entries).
// Pass chunkHasNulls = true unless the chunk is known to hold no nulls. An invalid dict (wrong
// kind, short buffers) or a path the predicate does not use answers true.
func (b *Bound) MayMatchDict(path string, dict *Vector, chunkHasNulls bool) bool {
	ci := b.colIndex(path)
	if ci < 0 || dict == nil {
		return true
	}
	st, err := dict.check(b.cols[ci].typ, dict.Len)
	if err != nil {
		return true
	}
	vecs := make([]*Vector, len(b.cols))
	sts := make([]storage, len(b.cols))
	vecs[ci], sts[ci] = dict, st
	n := dict.Len
	var out []uint8
	sub := func(nd *bnode) (uint8, bool) {
		if nd.only != ci {
			return 0, false
		}
		var s uint8
		if n > 0 {
			if out == nil {
				out = make([]uint8, n)
			}
			if b.evalRows(nd, vecs, sts, n, out) != nil {
				return sAll, true // a malformed entry: unknown (the row filter reports it)
			}
			for _, t := range out {
				s |= 1 << t
			}
		}
		if chunkHasNulls {
			s |= 1 << nullOutcome(nd)
		}
		return s, true
	}
	leaf := func(*bnode) uint8 { return sAll }
	return evalSets(b.root, leaf, sub)&sTrue != 0
}

// nullOutcome is the truth value of a subtree for a row in which its column is null.
func nullOutcome(nd *bnode) uint8 {
	switch nd.op {
	case bAnd, bOr:
		t := nullOutcome(nd.kids[0])
		for _, k := range nd.kids[1:] {
			if nd.op == bAnd {
				t = min(t, nullOutcome(k))
			} else {
				t = max(t, nullOutcome(k))
			}
		}
		return t
	case bNot:
		return tTrue - nullOutcome(nd.kids[0])
	case bIsNull:
		return tTrue
	case bNotNull:
		return tFalse
	}
	return tNull
}

func (b *Bound) colIndex(path string) int {
	for i, c := range b.cols {
		if c.path == path {
			return i
		}
	}
	return -1
}
