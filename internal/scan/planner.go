package scan

// The pure planners: functions from the footer's metadata and the bound predicate to the row
// groups, pages and byte ranges a scan needs, in the manner of hyparquet's plan.js. They take
// no Scanner, read no bytes and keep no state, so each level of skipping is tested on its own
// (planner_test.go asserts exact byte ranges on corpus files); the Scanner calls them and
// records what they decide in its report.

import (
	"fmt"
	"math"
	"strings"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/pqstats"
)

// fileLayout is what turns footer locations into checked byte ranges: the metadata, where
// the data ends (the footer starts), the writer (PARQUET-816 padding) and the memory cap.
// A location that falls outside the data, or a length over the cap, is never fetched.
type fileLayout struct {
	meta      *format.FileMetaData
	metaStart int64
	writer    format.WriterVersion
	memoryCap int64
}

// chunkRange returns the byte range of leaf's column chunk in row group rg.
func (f fileLayout) chunkRange(rg int, leaf *decode.Column) (httprange.Range, error) {
	cm := f.meta.RowGroups[rg].Columns[leaf.Node.Leaf].MetaData
	start := format.ChunkStart(cm)
	r := httprange.Range{Off: start, Len: cm.TotalCompressedSize}
	if start < 4 || r.Len < 0 || r.End() > f.metaStart {
		return r, fmt.Errorf("%w: column chunk %s of row group %d at [%d, %d) lies outside the data of the file (%d bytes)",
			ErrCorrupt, strings.Join(leaf.Node.Path, "."), rg, r.Off, r.End(), f.metaStart)
	}
	if f.writer.PadChunks() {
		// PARQUET-816: the writer left the dictionary page header out of the chunk's size.
		// Pad as arrow-cpp does (ComputeColumnChunkRange), but never into the footer; the
		// reader stops at the chunk's num_values (decode.ReaderOptions.StopAtNumValues).
		r.Len += min(format.MaxDictHeaderPadding, f.metaStart-r.End())
	}
	if r.Len > f.memoryCap {
		return r, fmt.Errorf("%w: column chunk %s of row group %d is %d bytes", ErrMemoryCap, strings.Join(leaf.Node.Path, "."), rg, r.Len)
	}
	return r, nil
}

// indexRange validates an index (or bloom filter) location from the footer.
func (f fileLayout) indexRange(off *int64, n *int32) (httprange.Range, bool) {
	if off == nil || n == nil || *off < 4 || *n <= 0 || *off+int64(*n) > f.metaStart || int64(*n) > f.memoryCap {
		return httprange.Range{}, false
	}
	return httprange.Range{Off: *off, Len: int64(*n)}, true
}

// bloomHeaderGuess is read when the writer did not record bloom_filter_length: the Thrift
// BloomFilterHeader is about 15 bytes, and the bitset follows once its size is known.
const bloomHeaderGuess = 64

// bloomRange is the bloom filter's header+bitset when the writer recorded its length, else a
// guess that holds the header (the bitset is then fetched by Scanner.bloomBitsets).
func (f fileLayout) bloomRange(cm *format.ColumnMetaData) (httprange.Range, bool) {
	if r, ok := f.indexRange(cm.BloomFilterOffset, cm.BloomFilterLength); ok {
		return r, true
	}
	if cm.BloomFilterOffset == nil || cm.BloomFilterLength != nil {
		return httprange.Range{}, false
	}
	n := int32(min(bloomHeaderGuess, f.metaStart-*cm.BloomFilterOffset))
	return f.indexRange(cm.BloomFilterOffset, &n)
}

// rowGroupChoice is the slice and statistics levels' verdict on a file's row groups.
type rowGroupChoice struct {
	kept []int // row groups to read, in file order
	// skippedBy says per row group which level removed it: "" (read), "empty", "slice"
	// (before the offset or after the limit) or "statistics".
	skippedBy []string
	// afterSlice counts the non-empty row groups the slice level kept.
	afterSlice int
	// offsetLeft is the part of the offset still to skip within the first kept row group
	// (without a predicate; with one, the offset applies to matching rows and is unchanged).
	offsetLeft int64
	// allMatch are the kept row groups whose statistics prove every row matches
	// (prune.Bound.MustMatch; only with a predicate): the exact filter is not evaluated on
	// them, and a count takes them from num_rows.
	allMatch map[int]bool
}

// selectRowGroups applies the slice level (offset and limit, only without a predicate: with
// one, which rows count is not known yet) and the row-group statistics level (when
// useStats). limit < 0 means none. Statistics are read through package pqstats, which
// decides when they may be trusted.
func selectRowGroups(meta *format.FileMetaData, w format.WriterVersion, pred *predicate, offset, limit int64, useStats bool) rowGroupChoice {
	c := rowGroupChoice{skippedBy: make([]string, len(meta.RowGroups)), offsetLeft: offset}
	starts := rowStarts(meta)
	for i := range c.skippedBy {
		c.skippedBy[i] = "slice"
	}
	skip, take := offset, limit
	for i := range meta.RowGroups {
		rg := &meta.RowGroups[i]
		if rg.NumRows == 0 {
			c.skippedBy[i] = "empty"
			continue
		}
		if pred == nil {
			if skip >= rg.NumRows {
				skip -= rg.NumRows
				continue
			}
			if take == 0 {
				break
			}
			if take > 0 {
				take = max(0, take-(rg.NumRows-skip))
			}
			if len(c.kept) == 0 {
				// Row groups wholly before the offset are gone; the rest of the offset
				// applies within this first kept row group (Scanner.sliceUnfiltered).
				c.offsetLeft = skip
			}
			skip = 0
		}
		c.afterSlice++
		stats := func(path string) (prune.ColStats, bool) {
			if path == pred.rowIndex { // exact: the row group's positions
				return rowIndexStats(starts[i], starts[i]+rg.NumRows), true
			}
			cm := rg.Columns[pred.leaf[path].Node.Leaf].MetaData
			return pqstats.Chunk(cm, pred.statsColumn(path, w, meta.ColumnOrders)), true
		}
		if pred != nil && useStats && !pred.bound.MayMatch(stats) {
			c.skippedBy[i] = "statistics"
			continue
		}
		if pred != nil && useStats && pred.bound.MustMatch(stats) {
			if c.allMatch == nil {
				c.allMatch = map[int]bool{}
			}
			c.allMatch[i] = true
		}
		c.skippedBy[i] = ""
		c.kept = append(c.kept, i)
	}
	return c
}

// pageIndexColumn is one predicate column's page index in one row group.
type pageIndexColumn struct {
	path  string
	first []int64 // first row of each page (offset index)
	ci    *format.ColumnIndex
	stats pqstats.Column
	// seg, when set, gives exact statistics of the segment [a, b) itself instead of a column
	// index (the row index: rowIndexColumn).
	seg func(a, b int64) prune.ColStats
}

// selectPages evaluates the predicate over the column indexes of a row group of rows rows.
// The predicate columns' page boundaries differ, so rows are cut into segments at every
// boundary of every indexed column; within a segment each column's statistics are those of
// the one page covering it, and the same MayMatch that prunes row groups decides the segment.
// A predicate column without a column index answers "unknown". With no column at all every
// row is kept. all are the segments where the statistics prove that every row matches
// (MustMatch; a subset of may), which a count takes from the offset index's row counts.
// A page's value count is its row count (predicate columns are flat), which lets IS NULL be
// proven on a page whose null count equals its rows.
func selectPages(bound *prune.Bound, rows int64, cols []pageIndexColumn) (may, all prune.RowSelection) {
	if len(cols) == 0 {
		return prune.SelectAll(rows), nil
	}
	bounds := map[int64]bool{0: true}
	for _, c := range cols {
		for _, r := range c.first {
			bounds[r] = true
		}
	}
	cuts := make([]int64, 0, len(bounds)+1)
	for b := range bounds {
		cuts = append(cuts, b)
	}
	sortInt64(cuts)
	cuts = append(cuts, rows)
	pos := make([]int, len(cols))
	for k := 0; k+1 < len(cuts); k++ {
		a, b := cuts[k], cuts[k+1]
		for j := range cols {
			for pos[j]+1 < len(cols[j].first) && cols[j].first[pos[j]+1] <= a {
				pos[j]++
			}
		}
		stats := func(path string) (prune.ColStats, bool) {
			for j := range cols {
				if cols[j].path == path && cols[j].seg != nil {
					return cols[j].seg(a, b), true
				}
				if cols[j].path == path {
					cs := pqstats.Page(cols[j].ci, pos[j], cols[j].stats)
					p := pos[j]
					end := rows
					if p+1 < len(cols[j].first) {
						end = cols[j].first[p+1]
					}
					if cs.NumValues < 0 && cs.NullCount >= 0 {
						cs.NumValues = end - cols[j].first[p] // flat column: a value per row
					}
					return cs, true
				}
			}
			return prune.ColStats{}, false
		}
		if bound.MayMatch(stats) {
			may = may.Add(a, b)
			if bound.MustMatch(stats) {
				all = all.Add(a, b)
			}
		}
	}
	return may, all
}

// indexPlan is what the index round fetches: ranges in the order planned (the Scanner
// coalesces them), and per planned row group (by position) the bloom filter and dictionary
// ranges by leaf index, which the bloom and dictionary levels read once fetched.
type indexPlan struct {
	ranges      []httprange.Range
	bloom, dict []map[int]httprange.Range
}

// planIndex lists what the index round fetches for row groups rgs: the offset index of
// every leaf read (only with a predicate or a slice: it selects pages, useless for a full
// scan), the column index of predicate leaves, bloom filters of predicate leaves with an
// equality conjunct, and dictionary pages of fully dictionary-encoded predicate leaves when
// dictWorthFetching says so (dictionary-level pruning). Levels disabled in opts are not
// planned; with opts.NoPrune only offset indexes are.
func planIndex(f fileLayout, rgs []int, read []*decode.Column, pred *predicate, opts *Options) indexPlan {
	p := indexPlan{bloom: make([]map[int]httprange.Range, len(rgs)), dict: make([]map[int]httprange.Range, len(rgs))}
	// A filtered limit may stop after its first probe, so the dictionaries it fetches here
	// for pruning, in file order, are capped at one round trip's worth: without the cap,
	// value > 100 LIMIT 10 on 62 row groups without a page index fetched 62 dictionaries
	// (2.8 MB) to read one row group.
	dictRoom := int64(math.MaxInt64)
	if opts.Limit > 0 {
		dictRoom = opts.RoundTripBytes
	}
	for k, rg := range rgs {
		cols := f.meta.RowGroups[rg].Columns
		if pred != nil || opts.Limit > 0 || opts.Offset > 0 {
			for _, l := range read {
				cc := &cols[l.Node.Leaf]
				if r, ok := f.indexRange(cc.OffsetIndexOffset, cc.OffsetIndexLength); ok {
					p.ranges = append(p.ranges, r)
				}
			}
		}
		if pred == nil || opts.NoPrune {
			continue
		}
		for _, path := range pred.paths {
			l := pred.leaf[path]
			cc := &cols[l.Node.Leaf]
			hasCI := false
			if r, ok := f.indexRange(cc.ColumnIndexOffset, cc.ColumnIndexLength); ok && !opts.off(LevelPageIndex) {
				p.ranges = append(p.ranges, r)
				hasCI = true
			}
			cm := cc.MetaData
			if r, ok := f.bloomRange(cm); ok && pred.usesBloom(path) && !opts.off(LevelBloom) {
				if p.bloom[k] == nil {
					p.bloom[k] = map[int]httprange.Range{}
				}
				p.bloom[k][l.Node.Leaf] = r
				p.ranges = append(p.ranges, r)
			}
			if fullyDictionary(cm) && !opts.off(LevelDictionary) {
				chunk, err := f.chunkRange(rg, l)
				if d, ok := dictRange(cm, chunk); err == nil && ok && dictWorthFetching(d, chunk, hasCI, opts.RoundTripBytes) && d.Len <= dictRoom {
					dictRoom -= d.Len
					if p.dict[k] == nil {
						p.dict[k] = map[int]httprange.Range{}
					}
					p.dict[k][l.Node.Leaf] = d
					p.ranges = append(p.ranges, d)
				}
			}
		}
	}
	return p
}

// dictWorthFetching decides whether the index round fetches a fully dictionary-encoded
// predicate chunk's dictionary to prune with it. Without a column index the dictionary is the
// only value-level evidence: fetch it when it is at most half the chunk. With one, min/max
// straddling the value is exactly where a dictionary still proves absence (Impala: a value
// missing from a dictionary inside every page's range), and when any page survives the
// dictionary is needed to decode it anyway; the bytes are lost only for row groups the page
// index alone would have pruned, so fetch it when it is cheaper than a quarter round trip
// (the eager-dictionary rule of Scanner.fetchFor).
func dictWorthFetching(d, chunk httprange.Range, hasCI bool, roundTrip int64) bool {
	if hasCI {
		return d.Len <= roundTrip/4
	}
	return d.Len*2 <= chunk.Len
}

// readLeavesOf is the leaves a scan reads: the projected ones, then the predicate's leaves
// that are not projected, in predicate order.
func readLeavesOf(leaves []*decode.Column, pred *predicate) []*decode.Column {
	out := append([]*decode.Column(nil), leaves...)
	if pred == nil {
		return out
	}
	for _, path := range pred.paths {
		l := pred.leaf[path]
		dup := false
		for _, r := range out {
			dup = dup || r.Node.Leaf == l.Node.Leaf
		}
		if !dup {
			out = append(out, l)
		}
	}
	return out
}
