package prune

import "sort"

// Page-index pruning (parquet-format PageIndex.md): each page of a column covers rows
// [FirstRowIndex[i], FirstRowIndex[i+1]) of the row group (the last one up to the row
// group's row count). MayMatch over a page's ColumnIndex entry says keep/skip; FromPages turns
// those answers into rows, selections of different columns combine with Intersect (AND) or
// Union, and PagesFor maps the result back onto each column's own page boundaries.

// RowRange is the half-open row range [Start, End) of a row group.
type RowRange struct{ Start, End int64 }

// RowSelection is a set of rows as ranges. Invariants (every function here returns values
// that hold them, and assumes its inputs do; check with Valid):
//   - each range is non-empty: Start < End, and Start >= 0;
//   - ranges are sorted and neither overlap nor touch: r[i].End < r[i+1].Start.
//
// So each set has exactly one representation, and nil is the empty selection.
type RowSelection []RowRange

// SelectAll returns [0, n), or the empty selection when n <= 0.
func SelectAll(n int64) RowSelection {
	if n <= 0 {
		return nil
	}
	return RowSelection{{0, n}}
}

// Valid reports whether s satisfies the invariants.
func (s RowSelection) Valid() bool {
	for i, r := range s {
		if r.Start < 0 || r.Start >= r.End || i > 0 && s[i-1].End >= r.Start {
			return false
		}
	}
	return true
}

// Count returns the number of selected rows.
func (s RowSelection) Count() int64 {
	var n int64
	for _, r := range s {
		n += r.End - r.Start
	}
	return n
}

// Contains reports whether row is selected (binary search).
func (s RowSelection) Contains(row int64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].End > row })
	return i < len(s) && s[i].Start <= row
}

// appendRange appends [a, b) to out, merging with the last range when they overlap or touch.
func appendRange(out RowSelection, a, b int64) RowSelection {
	if a >= b {
		return out
	}
	if n := len(out); n > 0 && out[n-1].End >= a {
		out[n-1].End = max(out[n-1].End, b)
		return out
	}
	return append(out, RowRange{a, b})
}

// Union returns the rows selected by s or o.
func (s RowSelection) Union(o RowSelection) RowSelection {
	var out RowSelection
	i, j := 0, 0
	for i < len(s) || j < len(o) {
		var r RowRange
		if j >= len(o) || i < len(s) && s[i].Start <= o[j].Start {
			r, i = s[i], i+1
		} else {
			r, j = o[j], j+1
		}
		out = appendRange(out, r.Start, r.End)
	}
	return out
}

// Intersect returns the rows selected by both s and o.
func (s RowSelection) Intersect(o RowSelection) RowSelection {
	var out RowSelection
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		out = appendRange(out, max(s[i].Start, o[j].Start), min(s[i].End, o[j].End))
		if s[i].End < o[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}

// Complement returns the rows of [0, n) that s does not select.
func (s RowSelection) Complement(n int64) RowSelection {
	var out RowSelection
	next := int64(0)
	for _, r := range s {
		if r.Start >= n {
			break
		}
		out = appendRange(out, next, min(r.Start, n))
		next = r.End
	}
	return appendRange(out, next, n)
}

// validPages reports whether firstRowIndex describes pages of a row group of numRows rows:
// starting at 0, strictly increasing, all below numRows.
func validPages(first []int64, numRows int64) bool {
	if len(first) == 0 || first[0] != 0 {
		return false
	}
	for i := 1; i < len(first); i++ {
		if first[i] <= first[i-1] {
			return false
		}
	}
	return first[len(first)-1] < numRows
}

// FromPages selects the rows of the pages with keep[i] set. firstRowIndex is the column's
// OffsetIndex first_row_index per page and numRows the row group's row count. Inputs come
// from the file, so they are checked: if firstRowIndex is not strictly increasing from 0 and
// below numRows, or len(keep) differs, the whole row group is selected (unknown keeps).
func FromPages(firstRowIndex []int64, numRows int64, keep []bool) RowSelection {
	if len(keep) != len(firstRowIndex) || !validPages(firstRowIndex, numRows) {
		return SelectAll(numRows)
	}
	var out RowSelection
	for i, k := range keep {
		if k {
			out = appendRange(out, firstRowIndex[i], pageEnd(firstRowIndex, numRows, i))
		}
	}
	return out
}

func pageEnd(first []int64, numRows int64, i int) int64 {
	if i+1 < len(first) {
		return first[i+1]
	}
	return numRows
}

// PagesFor returns, in increasing order, the indices of the pages (of a column with the given
// OffsetIndex first_row_index) that hold at least one selected row: the pages that must be
// fetched and decoded. Invalid page boundaries (see FromPages) return every page.
func PagesFor(sel RowSelection, firstRowIndex []int64, numRows int64) []int {
	if !validPages(firstRowIndex, numRows) {
		out := make([]int, len(firstRowIndex))
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	j := 0
	for i := range firstRowIndex {
		a, b := firstRowIndex[i], pageEnd(firstRowIndex, numRows, i)
		for j < len(sel) && sel[j].End <= a {
			j++
		}
		if j < len(sel) && sel[j].Start < b {
			out = append(out, i)
		}
	}
	return out
}

// Add appends [start, end) to s, merging it with the last range when they overlap or touch;
// start must not be below the start of s's last range (ranges are added in row order, as a
// row filter produces them).
func (s RowSelection) Add(start, end int64) RowSelection {
	if end <= start {
		return s
	}
	return appendRange(s, start, end)
}

// Slice keeps the selected rows from the skip-th on, at most take of them (take < 0: all):
// OFFSET and LIMIT over a selection.
func (s RowSelection) Slice(skip, take int64) RowSelection {
	var out RowSelection
	for _, r := range s {
		n := r.End - r.Start
		if skip >= n {
			skip -= n
			continue
		}
		start := r.Start + skip
		skip = 0
		end := r.End
		if take >= 0 {
			if take == 0 {
				break
			}
			end = min(end, start+take)
			take -= end - start
		}
		out = appendRange(out, start, end)
	}
	return out
}
