package scan

import (
	"slices"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
)

// Dictionary fetch modes for a column chunk read page by page.
const (
	dictNone  = iota // no dictionary page, or no data page uses it
	dictEager        // fetched with the data pages
	dictLazy         // fetched only if a fetched data page turns out to be dictionary-encoded
)

// colFetch is what one leaf of one row group needs to return a set of rows: the pages (or the
// whole chunk, without an offset index) and possibly the dictionary page.
type colFetch struct {
	g        *rgState
	leaf     *decode.Column
	rows     prune.RowSelection
	chunk    httprange.Range
	first    []int64 // first row of each page (offset index)
	pages    []int   // selected pages; nil = whole chunk
	dict     httprange.Range
	dictMode int
	// prefix > 0: only the first prefix bytes of the chunk are needed (no offset index, and
	// the rows wanted end early: a limit). See planPrefix.
	prefix int64
}

// chunkBytes is the part of the chunk read: all of it, or its prefix.
func (cf *colFetch) chunkBytes() httprange.Range {
	if cf.prefix > 0 {
		return httprange.Range{Off: cf.chunk.Off, Len: cf.prefix}
	}
	return cf.chunk
}

// fetchFor plans the bytes leaf needs in row group g to read rows.
func (s *Scanner) fetchFor(g *rgState, leaf *decode.Column, rows prune.RowSelection) (colFetch, error) {
	cf := colFetch{g: g, leaf: leaf, rows: rows}
	chunk, err := s.chunkRange(g.idx, leaf)
	if err != nil {
		return cf, err
	}
	cf.chunk = chunk
	oi := g.oi[leaf.Node.Leaf]
	if oi == nil {
		s.planPrefix(&cf)
		return cf, nil
	}
	cf.first = firstRows(oi)
	cf.pages = prune.PagesFor(rows, cf.first, g.rows)
	if cf.pages == nil {
		cf.pages = []int{}
	}
	first := oi.PageLocations[0].Offset
	if first > chunk.Off {
		cf.dict = httprange.Range{Off: chunk.Off, Len: first - chunk.Off}
		cm := s.meta.RowGroups[g.idx].Columns[leaf.Node.Leaf].MetaData
		dict, plain, known := dataEncodings(cm)
		switch {
		case known && !dict:
			cf.dictMode = dictNone
		case known && !plain, cf.dict.Len <= s.opts.RoundTripBytes/4:
			// Certain to be needed, or cheaper to fetch on speculation than a round trip.
			cf.dictMode = dictEager
		case known && len(cf.pages) > 0 && cf.pages[0] < dictPageCount(cm):
			// Writers fall back from dictionary to PLAIN once per chunk and never back, so
			// the first k data pages (k from the encoding stats) are the dictionary-encoded
			// ones: a selected page among them needs the dictionary. (Should a writer break
			// the rule, the lazy header check below still fetches the dictionary.)
			cf.dictMode = dictEager
		default:
			cf.dictMode = dictLazy
		}
	}
	return cf, nil
}

// pageRange is the byte range of selected page p.
func (cf *colFetch) pageRange(p int) httprange.Range {
	pl := cf.g.oi[cf.leaf.Node.Leaf].PageLocations[p]
	return httprange.Range{Off: pl.Offset, Len: int64(pl.CompressedPageSize)}
}

// ranges are the byte ranges to fetch before any page header is seen.
func (cf *colFetch) ranges() []httprange.Range {
	if cf.pages == nil {
		return []httprange.Range{cf.chunkBytes()}
	}
	if len(cf.pages) == 0 {
		return nil
	}
	out := make([]httprange.Range, 0, len(cf.pages)+1)
	for _, p := range cf.pages {
		out = append(out, cf.pageRange(p))
	}
	if cf.dictMode == dictEager {
		out = append(out, cf.dict)
	}
	return out
}

// bytes is the size of what ranges fetches.
func (cf *colFetch) bytes() int64 { return httprange.Total(cf.ranges()) }

// lazyDict returns the dictionary range if a fetched page of a lazily planned chunk turns out
// to be dictionary-encoded (its page header says so).
func (s *Scanner) lazyDict(cf *colFetch) (httprange.Range, bool, error) {
	if cf.pages == nil || cf.dictMode != dictLazy || s.cache.Has(cf.dict) {
		return httprange.Range{}, false, nil
	}
	for _, p := range cf.pages {
		b, ok := s.cache.Get(cf.pageRange(p))
		if !ok {
			continue
		}
		uses, err := decode.PageUsesDictionary(b)
		if err != nil {
			return httprange.Range{}, false, errf.Errorf("row group %d column %s page %d: %w", cf.g.idx, cf.leaf.Field.Name, p, err)
		}
		if uses {
			s.report.DictionariesLazy++
			return cf.dict, true, nil
		}
	}
	return httprange.Range{}, false, nil
}

// needFetches asks for the bytes of every fetch, then for the dictionaries that fetched pages
// turned out to need. ok is true when everything is present.
func (s *Scanner) needFetches(cfs []colFetch) (Step, bool, error) {
	rs, err := s.fetchesMissing(cfs)
	if err != nil {
		return Step{}, false, err
	}
	st, ok := s.need(rs...)
	return st, ok, nil
}

// fetchesMissing is what needFetches asks for, in stages: the bytes of every fetch not yet
// present; when they all are, the dictionaries that fetched pages turned out to need; then
// the larger prefixes of chunk prefixes that proved too short. Nil when everything is present.
func (s *Scanner) fetchesMissing(cfs []colFetch) ([]httprange.Range, error) {
	var rs []httprange.Range
	for i := range cfs {
		rs = append(rs, cfs[i].ranges()...)
	}
	if rs = s.missing(rs); len(rs) > 0 {
		return rs, nil
	}
	for i := range cfs {
		r, ok, err := s.lazyDict(&cfs[i])
		if err != nil {
			return nil, err
		}
		if ok {
			rs = append(rs, r)
		}
	}
	if rs = s.missing(rs); len(rs) > 0 {
		return rs, nil
	}
	for i := range cfs {
		// A larger prefix may be cached already (an earlier pass read the whole chunk): it
		// is checked in turn, so that no prefix shorter than the rows wanted is decoded.
		for {
			r, ok, err := s.growPrefix(&cfs[i])
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			if m := s.missing([]httprange.Range{r}); len(m) > 0 {
				rs = append(rs, m...)
				break
			}
		}
	}
	return rs, nil
}

// missing returns the parts of rs not cached.
func (s *Scanner) missing(rs []httprange.Range) []httprange.Range {
	var out []httprange.Range
	for _, r := range rs {
		out = append(out, s.cache.Missing(r)...)
	}
	return out
}

// readerOptions are the options of every page decoder of the scan: its pages' unchecked CRCs
// are counted in the report.
func (s *Scanner) readerOptions() decode.ReaderOptions {
	return decode.ReaderOptions{MemoryCap: int(s.opts.MemoryCap), VerifyCRC: !s.opts.NoVerifyCRC,
		Unverified: &s.report.PagesCRCUnverified}
}

// openReader creates a column reader over the fetched bytes of cf; indices asks for
// dictionary indices (Arrow dictionary output) instead of values.
func (s *Scanner) openReader(cf *colFetch, indices bool) (*decode.ColumnReader, error) {
	g := cf.g
	cm := s.meta.RowGroups[g.idx].Columns[cf.leaf.Node.Leaf].MetaData
	ro := s.readerOptions()
	ro.DictionaryIndices, ro.StopAtNumValues = indices, s.writer.PadChunks()
	cr, err := decode.NewColumnReader(cf.leaf, cm, g.rows, ro)
	if err != nil {
		return nil, err
	}
	if cf.pages == nil {
		b, ok := s.cache.Get(cf.chunkBytes())
		if !ok {
			return nil, errf.Errorf("%w: chunk bytes missing", ErrInternal)
		}
		cr.SetChunk(b)
		return cr, nil
	}
	var dict []byte
	if cf.dict.Len > 0 {
		dict, _ = s.cache.Get(cf.dict)
	}
	blobs := make([]decode.PageBlob, 0, len(cf.pages))
	for _, p := range cf.pages {
		b, ok := s.cache.Get(cf.pageRange(p))
		if !ok {
			return nil, errf.Errorf("%w: page bytes missing", ErrInternal)
		}
		blobs = append(blobs, decode.PageBlob{Data: b, FirstRow: cf.first[p]})
	}
	if err := cr.SetPages(dict, blobs); err != nil {
		return nil, err
	}
	return cr, nil
}

// dictPageCount is the number of dictionary-encoded data pages by the encoding stats.
func dictPageCount(cm *format.ColumnMetaData) int {
	n := 0
	for _, es := range cm.EncodingStats {
		if (es.PageType == format.DataPage || es.PageType == format.DataPageV2) &&
			(es.Encoding == format.PlainDictionary || es.Encoding == format.RLEDictionary) {
			n += int(es.Count)
		}
	}
	return n
}

// prefixMin is the least data a first prefix read asks for (a variable for tests).
var prefixMin int64 = 64 << 10

// planPrefix: without an offset index, pages cannot be addressed, but when the rows wanted end
// early in the row group (a limit without a filter, or a filter on the row index alone, whose
// candidate rows are exact) only a prefix of the chunk is needed. The first
// guess is the dictionary page (its size is known: it ends at data_page_offset) plus the data
// pages in proportion to the rows wanted, twice over, and at least 64 KiB; growPrefix doubles
// it until the page headers show that the prefix holds every row wanted.
func (s *Scanner) planPrefix(cf *colFetch) {
	g, rows := cf.g, cf.rows
	if s.pred != nil && len(s.pred.paths) > 0 || cf.leaf.Node.RepLevel > 0 || len(rows) == 0 || rows[len(rows)-1].End >= g.rows {
		return
	}
	li := cf.leaf.Node.Leaf
	p := g.prefix[li]
	if p == 0 {
		cm := s.meta.RowGroups[g.idx].Columns[li].MetaData
		dictLen := max(0, cm.DataPageOffset-cf.chunk.Off)
		data := cf.chunk.Len - dictLen
		p = dictLen + max(prefixMin, 2*data/g.rows*rows[len(rows)-1].End)
		if g.prefix == nil {
			g.prefix = map[int]int64{}
		}
		g.prefix[li] = p
	}
	if p < cf.chunk.Len {
		cf.prefix = p
	}
}

// growPrefix checks, from the page headers, whether a fetched chunk prefix holds every row
// wanted; if not it doubles the prefix and returns the new range to fetch.
func (s *Scanner) growPrefix(cf *colFetch) (httprange.Range, bool, error) {
	if cf.prefix == 0 {
		return httprange.Range{}, false, nil
	}
	b, ok := s.cache.Get(cf.chunkBytes())
	if !ok {
		return httprange.Range{}, false, nil
	}
	want := cf.rows[len(cf.rows)-1].End
	var got int64
	for pos := 0; got < want; {
		h, n, err := format.DecodePageHeader(b[pos:])
		if err != nil || int64(pos+n)+int64(h.CompressedPageSize) > int64(len(b)) {
			break // the next page is not (wholly) in the prefix
		}
		switch {
		case h.DataPageHeader != nil:
			got += int64(h.DataPageHeader.NumValues) // flat column: one value per row
		case h.DataPageHeaderV2 != nil:
			got += int64(h.DataPageHeaderV2.NumRows)
		}
		pos += n + int(h.CompressedPageSize)
	}
	if got >= want {
		return httprange.Range{}, false, nil
	}
	li := cf.leaf.Node.Leaf
	cf.g.prefix[li] = min(cf.prefix*2, cf.chunk.Len)
	cf.prefix = 0
	if cf.g.prefix[li] < cf.chunk.Len {
		cf.prefix = cf.g.prefix[li]
	}
	return cf.chunkBytes(), true, nil
}

// The data rounds of a scan, planned from the window of row groups the index round left: the
// predicate columns over the candidate rows (fetchesA), then the output columns over the
// matching rows within the memory budget (fetchesB, outputPlan), and what Explain reports of
// them without fetching (explain). run.go's states ask for them through fetchRound.

// isPredLeaf reports whether l is a leaf of a predicate column.
func (s *Scanner) isPredLeaf(l *decode.Column) bool {
	if s.pred == nil {
		return false
	}
	for _, p := range s.pred.paths {
		if s.pred.leaf[p].Node.Leaf == l.Node.Leaf {
			return true
		}
	}
	return false
}

// fetchesA: the predicate columns over the candidate rows, plus every projected column when
// late materialization is off (or there is no predicate).
func (s *Scanner) fetchesA() ([]colFetch, error) {
	var cfs []colFetch
	for _, g := range s.window {
		if g.filtered {
			continue // matches known from an earlier window (fetchesB trimmed it)
		}
		for _, l := range s.readLeaves {
			if s.pred != nil && s.lateMat && !s.isPredLeaf(l) {
				continue
			}
			if g.allMatch && !slices.Contains(s.leaves, l) {
				continue // a predicate-only column of a row group that needs no filter
			}
			cf, err := s.fetchFor(g, l, g.cand)
			if err != nil {
				return nil, err
			}
			cfs = append(cfs, cf)
		}
	}
	return cfs, nil
}

// fetchesB: the projected columns over the matching rows (already present unless late
// materialization deferred them).
func (s *Scanner) fetchesB() ([]colFetch, error) {
	cfs, cut, err := s.outputPlan(func(_ int, g *rgState) (prune.RowSelection, bool) { return g.match, true })
	if err != nil || cut < 0 {
		return cfs, err
	}
	// Too many matching rows to hold every row group's pages at once: the rest of the window
	// goes back to the plan with its matches; it is not filtered again.
	rest := s.window[cut:]
	for _, r := range rest {
		r.filtered = true
	}
	s.plan = append(append([]*rgState(nil), rest...), s.plan...)
	s.window = s.window[:cut]
	return cfs, nil
}

// outputPlan plans the projected columns' pages over rows(k, g) of each row group of the
// window, in order, while they fit a quarter of the memory cap, and returns those of the row
// groups rows marks as wanted; cut is the window position of the first row group that did not
// fit (-1: all did). fetchesB counts the matching rows; earlyOutput (pipeline.go) a bound.
func (s *Scanner) outputPlan(rows func(k int, g *rgState) (prune.RowSelection, bool)) (cfs []colFetch, cut int, err error) {
	budget := s.opts.MemoryCap / 4
	var total int64
	for k, g := range s.window {
		sel, wanted := rows(k, g)
		if len(sel) == 0 {
			continue
		}
		var rg []colFetch
		var b int64
		for _, l := range s.leaves {
			cf, err := s.fetchFor(g, l, sel)
			if err != nil {
				return nil, -1, err
			}
			b += cf.bytes()
			rg = append(rg, cf)
		}
		if total > 0 && total+b > budget {
			return cfs, k, nil
		}
		total += b
		if wanted {
			cfs = append(cfs, rg...)
		}
	}
	return cfs, -1, nil
}

// explain fills the report with what the data phase would fetch: the pages (or chunks) of
// every column read over the candidate rows, as one round when late materialization is off.
func (s *Scanner) explain() {
	var bytes int64
	var rs []httprange.Range
	for _, g := range s.plan {
		for _, l := range s.readLeaves {
			cf, err := s.fetchFor(g, l, g.cand)
			if err != nil {
				continue
			}
			for _, r := range cf.ranges() {
				rs = append(rs, s.cache.Missing(r)...)
			}
		}
	}
	plan := httprange.Coalesce(rs, httprange.CoalesceOptions{MaxGap: s.opts.MaxGap})
	bytes = httprange.Total(plan)
	s.report.ExplainDataBytes = bytes
	s.report.ExplainDataRequests = len(plan)
}

// fetchRound plans a data round with plan and asks for what is missing. ok is true when every
// byte is present; otherwise st is the NeedRanges (or Error) step to return.
func (s *Scanner) fetchRound(plan func() ([]colFetch, error)) (cfs []colFetch, st Step, ok bool) {
	cfs, err := plan()
	if err == nil {
		st, ok, err = s.needFetches(cfs)
	}
	if err != nil {
		return nil, s.fail(err), false
	}
	return cfs, st, ok
}
