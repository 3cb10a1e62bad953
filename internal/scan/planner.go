package scan

// The pure planners: functions from the footer's metadata and the bound predicate to the row
// groups, pages and byte ranges a scan needs, in the manner of hyparquet's plan.js. They take
// no Scanner, read no bytes and keep no state, so each level of skipping is tested on its own
// (planner_test.go asserts exact byte ranges on corpus files); the Scanner calls them and
// records what they decide in its report.

import (
	"math"
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

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
		return r, errf.Errorf("%w: column chunk %s of row group %d at [%d, %d) lies outside the data of the file (%d bytes)",
			ErrCorrupt, strings.Join(leaf.Node.Path, "."), rg, r.Off, r.End(), f.metaStart)
	}
	if f.writer.PadChunks() {
		// PARQUET-816: the writer left the dictionary page header out of the chunk's size.
		// Pad as arrow-cpp does (ComputeColumnChunkRange), but never into the footer; the
		// reader stops at the chunk's num_values (decode.ReaderOptions.StopAtNumValues).
		r.Len += min(format.MaxDictHeaderPadding, f.metaStart-r.End())
	}
	if r.Len > f.memoryCap {
		return r, errf.Errorf("%w: column chunk %s of row group %d is %d bytes", ErrMemoryCap, strings.Join(leaf.Node.Path, "."), rg, r.Len)
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
			cs := pqstats.Chunk(cm, pred.statsColumn(path, w, meta.ColumnOrders))
			if cs.Geo == nil {
				cs.Geo = pred.fileBox[path] // GeoParquet's bbox of the whole column
			}
			return cs, true
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
// ranges by leaf index, which the bloom and dictionary levels read once fetched. laterBloom
// and laterDict are the proofs of absence held back by orderProofs, by position and leaf:
// fetched in a second round only for a chunk the first round leaves undecided
// (secondProofs).
type indexPlan struct {
	ranges                []httprange.Range
	bloom, dict           []map[int]httprange.Range
	laterBloom, laterDict []map[int]httprange.Range
}

// chunkProofs are the two proofs of absence of one predicate chunk that the index round may
// fetch: its bloom filter (bloomCost is its length, or a bound when the writer did not record
// it) and its dictionary page (only for a fully dictionary-encoded chunk worth fetching).
type chunkProofs struct {
	bloom, dict       httprange.Range
	hasBloom, hasDict bool
	bloomCost         int64
}

// proofOrder says which of a chunk's proofs the first round fetches and which wait.
type proofOrder struct {
	bloom, dict           bool // fetched in the first round
	laterBloom, laterDict bool // held back for the second round
}

// orderProofs puts a chunk's cheaper proof of absence first. A dictionary that decodes holds
// every value of its fully dictionary-encoded chunk, so it decides exactly and the bloom
// filter could only repeat it: when the dictionary is the cheaper one, the bloom filter is
// held back, needed only if the dictionary turns out unreadable. A bloom filter only proves
// absence, so when it is the cheaper one a "maybe" still leaves the dictionary to decide: it
// is held back when deferDicts (the dictionaries so held back are worth a round trip,
// deferDictionaries), else fetched beside the bloom filter in one round.
func orderProofs(c chunkProofs, deferDicts bool) proofOrder {
	switch {
	case !c.hasBloom || !c.hasDict:
		return proofOrder{bloom: c.hasBloom, dict: c.hasDict}
	case c.dict.Len <= c.bloomCost:
		return proofOrder{dict: true, laterBloom: true}
	case deferDicts:
		return proofOrder{bloom: true, laterDict: true}
	}
	return proofOrder{bloom: true, dict: true}
}

// deferDictionaries decides whether the dictionaries of the chunks whose bloom filter is the
// cheaper proof wait for a second round. That round costs one round trip, and it can save at
// most those dictionaries' bytes (each one fetched only where its bloom filter said "maybe"):
// it is worth it only when they add up to more than a round trip.
func deferDictionaries(cs []chunkProofs, roundTrip int64) bool {
	var later int64
	for _, c := range cs {
		if o := orderProofs(c, true); o.laterDict {
			later += c.dict.Len
		}
	}
	return later > roundTrip
}

// planIndex lists what the index round fetches for row groups rgs: the offset index of
// every leaf read (only with a predicate or a slice: it selects pages, useless for a full
// scan), the column index of predicate leaves, and, of the bloom filters of predicate leaves
// with an equality conjunct and the dictionary pages of fully dictionary-encoded predicate
// leaves that dictWorthFetching says are worth it (dictionary-level pruning), the first proofs
// orderProofs picks per chunk; the others go to laterBloom and laterDict. Levels disabled in
// opts are not planned; with opts.NoPrune only offset indexes are.
func planIndex(f fileLayout, rgs []int, read []*decode.Column, pred *predicate, opts *Options) indexPlan {
	n := len(rgs)
	p := indexPlan{bloom: make([]map[int]httprange.Range, n), dict: make([]map[int]httprange.Range, n),
		laterBloom: make([]map[int]httprange.Range, n), laterDict: make([]map[int]httprange.Range, n)}
	// The ranges in the order planned, with a chunk's proofs in its place until
	// deferDictionaries has seen them all.
	type item struct {
		r           httprange.Range
		k, leaf     int
		isProofSlot bool
	}
	var items []item
	var chunks []chunkProofs
	// A filtered limit may stop after its first probe, so the dictionaries it fetches here
	// for pruning, in file order, are capped at one round trip's worth: without the cap,
	// value > 100 LIMIT 10 on 62 row groups without a page index fetched 62 dictionaries
	// (2.8 MB) to read one row group.
	dictRoom := int64(math.MaxInt64)
	if opts.Limit > 0 {
		dictRoom = opts.RoundTripBytes
	}
	var bounds []int64 // known offsets in the file, for bloomCost without a recorded length
	var starts []int64 // with a unit: each row group's first row (cutsRowGroup)
	if opts.unit() {
		starts = rowStarts(f.meta)
	}
	for k, rg := range rgs {
		cols := f.meta.RowGroups[rg].Columns
		if pred != nil || opts.Limit > 0 || opts.Offset > 0 || opts.cutsRowGroup(starts, f.meta, rg) || opts.mayCut(f.meta, rg, read) {
			for _, l := range read {
				cc := &cols[l.Node.Leaf]
				if r, ok := f.indexRange(cc.OffsetIndexOffset, cc.OffsetIndexLength); ok {
					items = append(items, item{r: r})
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
				items = append(items, item{r: r})
				hasCI = true
			}
			cm := cc.MetaData
			var c chunkProofs
			if r, ok := f.bloomRange(cm); ok && pred.usesBloom(path) && !opts.off(LevelBloom) {
				c.bloom, c.hasBloom, c.bloomCost = r, true, r.Len
				if cm.BloomFilterLength == nil {
					if bounds == nil {
						bounds = f.knownOffsets()
					}
					c.bloomCost = bloomBound(bounds, r.Off, f.metaStart)
				}
			}
			if fullyDictionary(cm) && !opts.off(LevelDictionary) {
				chunk, err := f.chunkRange(rg, l)
				if d, ok := dictRange(cm, chunk); err == nil && ok && dictWorthFetching(d, chunk, hasCI, opts.RoundTripBytes) && d.Len <= dictRoom {
					dictRoom -= d.Len
					c.dict, c.hasDict = d, true
				}
			}
			if c.hasBloom || c.hasDict {
				chunks = append(chunks, c)
				items = append(items, item{isProofSlot: true, k: k, leaf: l.Node.Leaf})
			}
		}
	}
	deferDicts := deferDictionaries(chunks, opts.RoundTripBytes)
	put := func(ms []map[int]httprange.Range, k, leaf int, r httprange.Range) {
		if ms[k] == nil {
			ms[k] = map[int]httprange.Range{}
		}
		ms[k][leaf] = r
	}
	next := 0
	for _, it := range items {
		if !it.isProofSlot {
			p.ranges = append(p.ranges, it.r)
			continue
		}
		c := chunks[next]
		next++
		o := orderProofs(c, deferDicts)
		if o.bloom {
			put(p.bloom, it.k, it.leaf, c.bloom)
			p.ranges = append(p.ranges, c.bloom)
		}
		if o.dict {
			put(p.dict, it.k, it.leaf, c.dict)
			p.ranges = append(p.ranges, c.dict)
		}
		if o.laterBloom {
			put(p.laterBloom, it.k, it.leaf, c.bloom)
		}
		if o.laterDict {
			put(p.laterDict, it.k, it.leaf, c.dict)
		}
	}
	return p
}

// knownOffsets are the offsets the footer records, sorted: where every column chunk, index
// and bloom filter starts, which bound a bloom filter whose length was not recorded.
func (f fileLayout) knownOffsets() []int64 {
	var out []int64
	for i := range f.meta.RowGroups {
		for j := range f.meta.RowGroups[i].Columns {
			cc := &f.meta.RowGroups[i].Columns[j]
			out = append(out, format.ChunkStart(cc.MetaData))
			for _, o := range []*int64{cc.OffsetIndexOffset, cc.ColumnIndexOffset, cc.MetaData.BloomFilterOffset} {
				if o != nil {
					out = append(out, *o)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// bloomBound is the most a bloom filter at off can cost: it ends by the next offset the
// footer knows of, or by the footer.
func bloomBound(offs []int64, off, metaStart int64) int64 {
	i, _ := slices.BinarySearch(offs, off+1)
	end := metaStart
	if i < len(offs) {
		end = min(end, offs[i])
	}
	return max(0, end-off)
}

// secondProofs is what the second round fetches for a row group that the first round's
// proofs left standing: the held-back dictionary of each chunk (its bloom filter said
// "maybe"), and the held-back bloom filter of each chunk without a readable dictionary (dicts
// are the dictionaries that decoded).
func secondProofs(dicts, laterBloom, laterDict map[int]httprange.Range) (bloom, dict map[int]httprange.Range) {
	for leaf, r := range laterDict {
		if dict == nil {
			dict = map[int]httprange.Range{}
		}
		dict[leaf] = r
	}
	for leaf, r := range laterBloom {
		if _, ok := dicts[leaf]; ok {
			continue
		}
		if bloom == nil {
			bloom = map[int]httprange.Range{}
		}
		bloom[leaf] = r
	}
	return bloom, dict
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
