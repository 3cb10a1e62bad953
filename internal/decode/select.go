package decode

import (
	"slices"

	"github.com/pqscan/pqscan/internal/decode/encoding"
	"github.com/pqscan/pqscan/internal/decode/format"
)

// Late materialization inside a page. Whole pages whose rows all fail the
// filter are never fetched; this is the level below: in a page that holds some selected
// rows, the values of runs of unselected rows are not materialized. Impala does the same for
// runs of at least parquet_late_materialization_threshold (20) filtered rows; shorter gaps
// are decoded with their neighbours, since one contiguous copy or gather costs less than
// cutting it up. Levels are still decoded in full: rows are found through the repetition
// levels and values through the definition levels.

// RowRun is a run [Start, End) of rows of a row group.
type RowRun struct{ Start, End int64 }

// DefaultSkipThreshold is the least number of consecutive unselected rows inside a page
// whose values are skipped rather than decoded (Impala's default).
const DefaultSkipThreshold = 20

// SetSelection tells the reader which rows of the row group (sorted, disjoint runs) its
// caller will read. A page then materializes only the values of those rows, except inside
// gaps shorter than threshold rows (decoded with their neighbours); gaps at a page's edges
// are always skipped, as they cut nothing. Reading a row outside the selection is an error
// wrapping ErrSelection, never a wrong value. threshold <= 0 turns selection off.
func (r *ColumnReader) SetSelection(rows []RowRun, threshold int) {
	if threshold <= 0 {
		r.sel, r.pick = nil, nil
		return
	}
	r.sel, r.threshold = rows, int64(threshold)
	r.pick = r.pickSpans
}

// pickSpans chooses the values of page p to materialize, from its levels, the row it starts
// at (r.row) and the selection: the spans of value positions, and false when that is every
// value (the page is decoded as without a selection).
func (r *ColumnReader) pickSpans(p *page, nonNull int) ([]encoding.Span, bool) {
	first := r.row
	lo, hi := first, first+int64(p.numRows)
	runs := r.runs[:0]
	i, _ := slices.BinarySearchFunc(r.sel, lo, func(x RowRun, row int64) int {
		if x.End <= row {
			return -1
		}
		return 1
	})
	for ; i < len(r.sel) && r.sel[i].Start < hi; i++ {
		a, b := max(r.sel[i].Start, lo), min(r.sel[i].End, hi)
		if n := len(runs); n > 0 && a-runs[n-1].End < r.threshold {
			runs[n-1].End = b
			continue
		}
		runs = append(runs, RowRun{a, b})
	}
	r.runs = runs
	if len(runs) == 1 && runs[0].Start == lo && runs[0].End == hi {
		return nil, false
	}
	spans := r.spans[:0]
	if r.dec.maxRep == 0 && r.dec.maxDef == 0 {
		for _, run := range runs { // a value per row
			spans = append(spans, encoding.Span{From: int(run.Start - first), To: int(run.End - first)})
		}
	} else {
		spans = r.walkSpans(p, spans, runs, first)
	}
	r.spans = spans
	kept := 0
	for _, s := range spans {
		kept += s.To - s.From
	}
	if kept == nonNull {
		return nil, false
	}
	r.ValuesSkipped += int64(nonNull - kept)
	return spans, true
}

// walkSpans maps row runs to value spans through the levels: a row starts at each
// repetition level 0 (every entry of a flat column), a value is an entry at the maximum
// definition level; first is the first row starting in the page. Entries before the page's
// first row start (a row continued from the previous page, or, in a malformed chunk, levels
// before any row) are kept whatever the selection: Read appends them to whichever row it
// is reading when it meets them, and they are few.
func (r *ColumnReader) walkSpans(p *page, spans []encoding.Span, runs []RowRun, first int64) []encoding.Span {
	row, ri, in := first-1, 0, true
	locate := func() {
		for ri < len(runs) && runs[ri].End <= row {
			ri++
		}
		in = ri < len(runs) && runs[ri].Start <= row
	}
	v := 0
	for e := 0; e < p.entries; e++ {
		if r.dec.maxRep == 0 || p.rep[e] == 0 {
			row++
			locate()
		}
		if r.dec.maxDef > 0 && p.def[e] != r.dec.maxDef {
			continue
		}
		if in {
			if n := len(spans); n > 0 && spans[n-1].To == v {
				spans[n-1].To++
			} else {
				spans = append(spans, encoding.Span{From: v, To: v + 1})
			}
		}
		v++
	}
	return spans
}

// valAt maps the page's value position v, and the k values from it, to their position in
// cur.vals (packed when the page was decoded for a selection).
func (r *ColumnReader) valAt(v, k int) (int, error) {
	p := &r.cur
	if !p.partial || k == 0 {
		return v, nil
	}
	for r.spanIdx < len(p.spans) && p.spans[r.spanIdx].To <= v {
		r.spanIdx++
	}
	if r.spanIdx < len(p.spans) {
		if s := p.spans[r.spanIdx]; s.From <= v && v+k <= s.To {
			return p.valsAt[r.spanIdx] + v - s.From, nil
		}
	}
	return 0, r.dec.errf(ErrSelection, "values %d to %d of a page read outside the reader's selection", v, v+k)
}

// physicalSpans decodes the values at spans (of the n non-null values of the page) into out:
// PLAIN pages through the selective kernels; the other encodings (DELTA_*, BYTE_STREAM_SPLIT,
// RLE booleans: sequential or cheap) in full, then packed to the spans before the conversion
// to Arrow layout, which runs on the kept values only. Dictionary pages are decodeValues'.
func (d *pageDecoder) physicalSpans(out, phys *Values, enc format.Encoding, src []byte, n int, spans []encoding.Span) error {
	var err error
	w := d.conv.PhysWidth()
	switch {
	case enc == format.Plain && w > 0:
		phys.reset(w)
		phys.Fixed, err = encoding.PlainFixedSpans(phys.Fixed, src, n, w, spans)
	case enc == format.Plain && w == 0:
		phys.reset(w)
		phys.Offsets, phys.Data, err = encoding.PlainByteArraySpans(phys.Offsets, phys.Data, src, n, spans)
	default:
		if err := d.decodePhysical(phys, enc, src, n); err != nil {
			return err
		}
		phys.keepSpans(spans)
		return d.convert(out, phys)
	}
	if err != nil {
		return d.errf(ErrPage, "PLAIN values: %v", err)
	}
	phys.N = 0
	for _, s := range spans {
		phys.N += s.To - s.From
	}
	return d.convert(out, phys)
}

// keepSpans packs the values at spans to the front, in place.
func (v *Values) keepSpans(spans []encoding.Span) {
	k := 0
	switch {
	case v.Width > 0:
		w := v.Width
		for _, s := range spans {
			k += copy(v.Fixed[k*w:], v.Fixed[s.From*w:s.To*w]) / w
		}
		v.Fixed = v.Fixed[:k*w]
	case v.Width < 0:
		for _, s := range spans {
			for i := s.From; i < s.To; i++ {
				setBit(&v.Bits, k, getBit(v.Bits, i))
				k++
			}
		}
		v.Bits = v.Bits[:(k+7)/8]
	default:
		var pos int32
		for _, s := range spans {
			lo, hi := v.Offsets[s.From], v.Offsets[s.To]
			copy(v.Data[pos:], v.Data[lo:hi])
			for i := s.From; i < s.To; i++ {
				v.Offsets[k+1] = pos + v.Offsets[i+1] - lo
				k++
			}
			pos += hi - lo
		}
		v.Offsets, v.Data = v.Offsets[:k+1], v.Data[:pos]
	}
	v.N = k
}
