package scan

// rowRange is a half-open range of rows [start, end) within a row group.
type rowRange struct{ start, end int64 }

// rowSet is a selection of rows of one row group, like arrow-rs' RowSelection.
// Invariant: ranges are sorted, non-empty, non-overlapping and non-adjacent.
type rowSet []rowRange

func allRows(n int64) rowSet {
	if n <= 0 {
		return nil
	}
	return rowSet{{0, n}}
}

// add appends [start, end), which must not start before the set's last range ends.
func (s rowSet) add(start, end int64) rowSet {
	if end <= start {
		return s
	}
	if n := len(s); n > 0 && s[n-1].end >= start {
		s[n-1].end = max(s[n-1].end, end)
		return s
	}
	return append(s, rowRange{start, end})
}

func (s rowSet) count() int64 {
	var n int64
	for _, r := range s {
		n += r.end - r.start
	}
	return n
}

// intersect returns the rows in both sets.
func (s rowSet) intersect(o rowSet) rowSet {
	var out rowSet
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		lo, hi := max(s[i].start, o[j].start), min(s[i].end, o[j].end)
		out = out.add(lo, hi)
		if s[i].end < o[j].end {
			i++
		} else {
			j++
		}
	}
	return out
}

// slice keeps rows from the skip-th to the (skip+take)-th of the set (take < 0: all).
func (s rowSet) slice(skip, take int64) rowSet {
	var out rowSet
	for _, r := range s {
		n := r.end - r.start
		if skip >= n {
			skip -= n
			continue
		}
		start := r.start + skip
		skip = 0
		end := r.end
		if take >= 0 {
			if take == 0 {
				break
			}
			end = min(end, start+take)
			take -= end - start
		}
		out = out.add(start, end)
	}
	return out
}

// pageRows returns the row range of page i given the pages' first rows and the group's rows.
func pageRows(first []int64, i int, rows int64) rowRange {
	end := rows
	if i+1 < len(first) {
		end = first[i+1]
	}
	return rowRange{first[i], end}
}

// overlapping returns the indexes of the pages whose rows intersect the set.
func (s rowSet) overlapping(first []int64, rows int64) []int {
	var out []int
	j := 0
	for i := range first {
		pr := pageRows(first, i, rows)
		for j < len(s) && s[j].end <= pr.start {
			j++
		}
		if j < len(s) && s[j].start < pr.end {
			out = append(out, i)
		}
	}
	return out
}
