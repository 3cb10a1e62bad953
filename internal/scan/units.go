package scan

// Scan units: the parts a host may scan at once, each as an independent session of the same
// file (Options.RowsFrom and RowsTo), so one scan spreads over several cores (goroutines,
// sandbox instances, Workers), as Impala's scan ranges do. A unit is a run of the file's rows
// inside one row group: a whole row group, or, where a row group holds more bytes than a unit
// should and the offset index tells where pages start, a run cut at batch starts (where every
// row of the run is returned: the units' batches are then the session's) or at page starts,
// so one large row group still spreads over every core ("a file with one large row group is read by
// one scanner thread regardless of its size" is the weakness of row-group ranges alone).
//
// Units are cut after pruning (PlanUnits sessions): row groups the statistics, bloom filters,
// dictionaries or page index drop make no unit, and a row group's unit spans only the rows
// that may match (without a predicate: the rows Offset and Limit select, so each unit needs
// neither). Each unit's session prunes its rows again with the same indexes (the host pushes
// it the bytes the planning session fetched), so it reads exactly what the single scan would
// have read of those rows, and the units' outputs in unit order are the single scan's output.

// Unit is one part of a scan: the file's rows [Start, End), all inside row group RowGroup.
// Bytes is the estimated compressed bytes its rows' pages hold in the columns read (for a
// host's memory budget and for balancing).
type Unit struct {
	RowGroup   int
	Start, End int64
	Bytes      int64
}

// UnitRowGroup is what PlanUnits needs of one row group the pruning kept.
type UnitRowGroup struct {
	Index int
	// Start is the position of the row group's first row in the file; From and To bound the
	// rows that may match, relative to Start (From < To).
	Start, From, To int64
	// Rows is the row group's row count; Bytes the compressed bytes of the columns read over
	// [From, To).
	Rows, Bytes int64
	// Pages holds, per column read, the first row of each of its pages (offset index); nil
	// for a column without a usable one, which keeps the row group whole.
	Pages [][]int64
	// Align, when not 0, is the rows of a batch where one session's batches restart at From
	// and run Align rows each (every row from From to To is read): cuts at From plus a
	// multiple of Align give the units the session's batches, so their output is the
	// session's byte for byte, not only its rows. A page straddling such a cut is read by
	// both units.
	Align int64
}

// UnitTarget is the unit size a host asks for (Options.PlanUnits) to spread planned bytes
// over threads: two units per thread (they balance units of uneven cost), none under
// minBytes (a unit's own session start and index decode cost more than a core saves).
func UnitTarget(planned int64, threads int, minBytes int64) int64 {
	return max(minBytes, planned/int64(2*max(threads, 1)), 1)
}

// splitsRowGroup reports whether a row group of bytes bytes is cut for a unit size of target:
// when it holds at least one and a half units (PlanUnits rounds to the nearest count).
func splitsRowGroup(bytes, target int64) bool { return target > 0 && bytes >= target+target/2 }

// PlanUnits cuts row groups into units of about target bytes. A row group of at least one and
// a half targets is cut into round(bytes/target) runs nearest to equal row counts: at batch
// starts where the row group says where batches start (Align), else at page starts,
// preferring rows where every column read starts a page (then no page is read by two units);
// otherwise the starts of the column with the most pages (a page of another column that
// straddles the cut is read by both units, a small cost). A row group is kept whole when any
// column has no page index. Units are in file order.
func PlanUnits(rgs []UnitRowGroup, target int64) []Unit {
	target = max(target, 1)
	var out []Unit
	for _, g := range rgs {
		k := int64(1)
		if splitsRowGroup(g.Bytes, target) {
			k = (g.Bytes + target/2) / target
		}
		cuts := cutPoints(g, k)
		prev := g.From
		for _, c := range append(cuts, g.To) {
			n := c - prev
			out = append(out, Unit{RowGroup: g.Index, Start: g.Start + prev, End: g.Start + c,
				Bytes: g.Bytes * n / max(1, g.To-g.From)})
			prev = c
		}
	}
	return out
}

// cutPoints picks k-1 interior page starts of g's span (relative rows, increasing, distinct),
// or fewer when the pages allow fewer.
func cutPoints(g UnitRowGroup, k int64) []int64 {
	if k <= 1 || len(g.Pages) == 0 {
		return nil
	}
	var starts []int64 // candidate cuts inside (From, To)
	aligned := alignedStarts(g.Pages)
	finest := g.Pages[0]
	for _, p := range g.Pages {
		if p == nil {
			return nil
		}
		if len(p) > len(finest) {
			finest = p
		}
	}
	if cuts := batchCuts(g, k); cuts != nil {
		return cuts
	}
	for _, set := range [][]int64{aligned, finest} {
		starts = starts[:0]
		for _, r := range set {
			if r > g.From && r < g.To {
				starts = append(starts, r)
			}
		}
		if int64(len(starts)) >= k-1 {
			break
		}
	}
	var cuts []int64
	span := g.To - g.From
	for j := int64(1); j < k; j++ {
		want := g.From + span*j/k
		best := int64(-1)
		for _, r := range starts {
			if best < 0 || abs64(r-want) < abs64(best-want) {
				best = r
			}
		}
		if best < 0 {
			break
		}
		if len(cuts) == 0 || best > cuts[len(cuts)-1] {
			cuts = append(cuts, best)
		}
	}
	return cuts
}

// batchCuts cuts g's span into k runs at the batch starts (From plus a multiple of Align)
// nearest to equal row counts; nil without Align or when the span has fewer than k batches.
func batchCuts(g UnitRowGroup, k int64) []int64 {
	span := g.To - g.From
	if g.Align <= 0 || span/g.Align < k {
		return nil
	}
	cuts := make([]int64, 0, k-1)
	for j := int64(1); j < k; j++ {
		c := g.From + (span*j/k+g.Align/2)/g.Align*g.Align
		if c <= g.From || c >= g.To || (len(cuts) > 0 && c <= cuts[len(cuts)-1]) {
			return nil
		}
		cuts = append(cuts, c)
	}
	return cuts
}

// alignedStarts are the rows where every column's page starts (the first list's order).
func alignedStarts(pages [][]int64) []int64 {
	var out []int64
	for _, r := range pages[0] {
		all := true
		for _, p := range pages[1:] {
			all = all && containsSorted(p, r)
		}
		if all {
			out = append(out, r)
		}
	}
	return out
}

func containsSorted(a []int64, v int64) bool {
	lo, hi := 0, len(a)
	for lo < hi {
		m := (lo + hi) / 2
		if a[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(a) && a[lo] == v
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
