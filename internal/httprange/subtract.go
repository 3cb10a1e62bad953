package httprange

import (
	"slices"
	"sort"
)

// Subtract returns the parts of rs not covered by any range of minus, in the order of rs
// (each range's parts ascending). A host that pushes bytes as they arrive and asks the engine
// again before a round is complete uses it to fetch only what is not already in flight; the
// engine uses it to count only the requests it had not asked for before. Suffix ranges
// (Off < 0) of rs are kept as they are, its empty ranges dropped; suffix and empty ranges
// of minus cover nothing.
func Subtract(rs, minus []Range) []Range {
	m := make([]Range, 0, len(minus))
	for _, r := range minus {
		if r.Off >= 0 && r.Len > 0 {
			m = append(m, r)
		}
	}
	if len(m) == 0 {
		return slices.DeleteFunc(slices.Clone(rs), func(r Range) bool { return r.Off >= 0 && r.Len <= 0 })
	}
	sortRanges(m)
	// Merge overlapping and touching ranges so that one pass per range of rs suffices.
	merged := m[:1]
	for _, r := range m[1:] {
		last := &merged[len(merged)-1]
		if r.Off <= last.End() {
			last.Len = max(last.End(), r.End()) - last.Off
			continue
		}
		merged = append(merged, r)
	}
	var out []Range
	for _, r := range rs {
		if r.Off < 0 {
			out = append(out, r)
			continue
		}
		if r.Len <= 0 {
			continue
		}
		pos, end := r.Off, r.End()
		// The first merged range that ends after pos.
		i, _ := slices.BinarySearchFunc(merged, pos, func(a Range, off int64) int {
			if a.End() <= off {
				return -1
			}
			return 1
		})
		for ; i < len(merged) && pos < end; i++ {
			c := merged[i]
			if c.Off >= end {
				break
			}
			if c.Off > pos {
				out = append(out, Range{Off: pos, Len: c.Off - pos})
			}
			pos = max(pos, c.End())
		}
		if pos < end {
			out = append(out, Range{Off: pos, Len: end - pos})
		}
	}
	return out
}

// sortRanges sorts rs by offset, then length. sort.Slice and not slices.SortFunc: the
// module's code has a size budget, and each slices.SortFunc instantiation is ~17 KB of wasm
// code, where sort.Slice's is shared by every caller (the lists here are a round's ranges:
// short, and sorted once per round).
func sortRanges(rs []Range) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		return a.Off < b.Off || a.Off == b.Off && a.Len < b.Len
	})
}
