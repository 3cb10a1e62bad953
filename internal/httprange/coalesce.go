package httprange

import ()

// CoalesceOptions tune Coalesce. The zero value uses the defaults.
type CoalesceOptions struct {
	// MaxGap is the largest gap between two needed ranges that is read rather than split into
	// two requests; 0 means DefaultMaxGap, negative means only overlapping or adjacent ranges
	// merge. Set it to the bytes that one round trip is worth (scan.Options.RoundTripBytes).
	MaxGap int64
	// MaxRequest caps the length of one merged range; 0 means DefaultMaxRequest.
	MaxRequest int64
}

const (
	// DefaultMaxGap: 64 KiB take ~10 ms at 50 Mbit/s, well under one CDN round trip
	// (30–100 ms), so reading such a gap is cheaper than another request.
	DefaultMaxGap = 64 << 10
	// DefaultMaxRequest: 8 MiB bounds what one failed request retries and lets six parallel
	// requests (a browser's per-origin limit) share the bandwidth of a large read.
	DefaultMaxRequest = 8 << 20
)

// Coalesce returns the ranges to request for the needed ranges, sorted by offset and disjoint:
//
//  1. Empty ranges are dropped; suffix ranges (Off < 0) are kept unchanged, first, in input
//     order (they cannot be placed before the file size is known).
//  2. Overlapping and adjacent ranges are unioned: those bytes are needed anyway.
//  3. Neighbours separated by a gap ≤ MaxGap are merged, scanning by offset, while the merged
//     range stays ≤ MaxRequest: the gap costs less than the round trip it saves.
//  4. A union of needed bytes longer than MaxRequest is split into MaxRequest-sized pieces
//     (the last one shorter) that cover it exactly.
//
// With the defaults: [0,100) and [100,200) → [0,200); [0,100) and [65636,65736) (gap 65536)
// → [0,65736); a gap of 65537 → two ranges; one needed 20 MiB range → 8 + 8 + 4 MiB.
// Coalesce does not modify ranges.
func Coalesce(ranges []Range, opt CoalesceOptions) []Range {
	maxGap, maxReq := opt.MaxGap, opt.MaxRequest
	if maxGap == 0 {
		maxGap = DefaultMaxGap
	} else if maxGap < 0 {
		maxGap = 0
	}
	if maxReq <= 0 {
		maxReq = DefaultMaxRequest
	}

	var out, rs []Range
	for _, r := range ranges {
		switch {
		case r.Off < 0:
			out = append(out, r)
		case r.Len > 0:
			rs = append(rs, r)
		}
	}
	sortRanges(rs)

	// Step 2: disjoint, non-adjacent unions of needed bytes.
	needed := rs[:0]
	for _, r := range rs {
		if n := len(needed); n > 0 && r.Off <= needed[n-1].End() {
			if r.End() > needed[n-1].End() {
				needed[n-1].Len = r.End() - needed[n-1].Off
			}
			continue
		}
		needed = append(needed, r)
	}

	// Steps 3 and 4.
	var cur Range
	have := false
	flush := func() {
		if have {
			out = appendSplit(out, cur, maxReq)
		}
	}
	for _, r := range needed {
		if have && r.Off-cur.End() <= maxGap && r.End()-cur.Off <= maxReq {
			cur.Len = r.End() - cur.Off
			continue
		}
		flush()
		cur, have = r, true
	}
	flush()
	return out
}

// appendSplit appends r cut into pieces of at most maxReq bytes.
func appendSplit(out []Range, r Range, maxReq int64) []Range {
	for r.Len > maxReq {
		out = append(out, Range{Off: r.Off, Len: maxReq})
		r.Off, r.Len = r.Off+maxReq, r.Len-maxReq
	}
	return append(out, r)
}

// Total returns the sum of the lengths of ranges (empty and negative lengths count 0): the
// bytes that fetching them as given transfers.
func Total(ranges []Range) int64 {
	var n int64
	for _, r := range ranges {
		if r.Len > 0 {
			n += r.Len
		}
	}
	return n
}
