package scan

import (
	"maps"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
)

// rgState is the plan for one row group that survived the statistics level.
type rgState struct {
	idx  int
	rows int64
	// oi and ci hold the offset and column indexes by leaf index (nil when absent or unusable).
	oi map[int]*format.OffsetIndex
	ci map[int]*format.ColumnIndex
	// cand are the rows that may match after the page index; match the rows to return.
	cand, match prune.RowSelection
	// bloom holds the fetched bloom filter headers+bitsets ranges by leaf index.
	bloom map[int]httprange.Range
	dict  map[int]httprange.Range // dictionary pages fetched for dictionary-level pruning
	// laterBloom and laterDict are the proofs of absence planIndex held back for a second
	// round (secondProofs); pageIndexLoaded: secondProofs already decoded the page indexes.
	laterBloom, laterDict map[int]httprange.Range
	pageIndexLoaded       bool
	// filtered: match is final (computed in an earlier window that fetchesB trimmed).
	filtered bool
	// prefix is the chunk prefix length read per leaf when only its first rows are wanted.
	prefix map[int]int64
	// cont: the next plan entry is the rest of this row group (a limit probe cut it), so its
	// bytes stay cached when this part's window ends.
	cont bool
	// allMatch: its statistics prove every row matches; the exact filter is skipped. full:
	// the rows whose pages' statistics prove it (the filter skips them too).
	allMatch bool
	full     prune.RowSelection
}

// indexRanges lists what the index round fetches for every planned row group (planIndex)
// and notes in each the bloom filter and dictionary ranges the later levels read.
func (s *Scanner) indexRanges() []httprange.Range {
	return append(append(s.planIndexOfPlan(true), s.topkIndex()...), s.topkDicts()...)
}

// planIndexOfPlan runs planIndex over the planned row groups with the current predicate,
// notes their bloom and dictionary ranges, and returns its ranges (also a runtime filter's
// index round, tighten.go). Without second, the proofs planIndex holds back are fetched in
// this round too: a runtime filter's index round has no second round.
func (s *Scanner) planIndexOfPlan(second bool) []httprange.Range {
	rgs := make([]int, len(s.plan))
	for k, g := range s.plan {
		rgs[k] = g.idx
	}
	p := planIndex(s.layout(), rgs, s.readLeaves, s.pred, &s.opts)
	for k, g := range s.plan {
		g.bloom, g.dict = p.bloom[k], p.dict[k]
		g.laterBloom, g.laterDict, g.pageIndexLoaded = p.laterBloom[k], p.laterDict[k], false
		if !second {
			p.ranges = append(p.ranges, g.takeLater(g.laterBloom, g.laterDict)...)
		}
	}
	return p.ranges
}

// takeLater moves held-back proofs into the row group's proofs, returning their ranges.
func (g *rgState) takeLater(bloom, dict map[int]httprange.Range) []httprange.Range {
	var out []httprange.Range
	for _, m := range []struct {
		from map[int]httprange.Range
		to   *map[int]httprange.Range
	}{{bloom, &g.bloom}, {dict, &g.dict}} {
		for _, li := range slices.Sorted(maps.Keys(m.from)) {
			if *m.to == nil {
				*m.to = map[int]httprange.Range{}
			}
			(*m.to)[li] = m.from[li]
			out = append(out, m.from[li])
		}
	}
	g.laterBloom, g.laterDict = nil, nil
	return out
}

// secondProofs runs the first round's proofs of every row group with held-back ones and,
// where they leave it standing (its bloom filters, dictionaries and column indexes all say
// "maybe"), moves the held-back proofs that can still decide into it (package-level
// secondProofs) and returns their ranges: the second probe round. A row group the first
// round rules out never has its held-back proofs fetched.
func (s *Scanner) secondProofs() ([]httprange.Range, error) {
	var out []httprange.Range
	for _, g := range s.plan {
		if len(g.laterBloom)+len(g.laterDict) == 0 {
			continue
		}
		standing := s.pred != nil && !s.opts.NoPrune && s.bloomMayMatch(g)
		if standing {
			ok, err := s.dictMayMatch(g)
			if err != nil {
				return nil, err
			}
			standing = ok
		}
		if standing {
			if err := s.loadPageIndex(g); err != nil {
				return nil, err
			}
			g.pageIndexLoaded = true
			may, _ := s.pageIndexSelect(g)
			standing = len(may) > 0
		}
		if !standing {
			g.laterBloom, g.laterDict = nil, nil
			continue
		}
		b, d := secondProofs(g.dict, g.laterBloom, g.laterDict)
		r := g.takeLater(b, d)
		if len(r) > 0 {
			s.logf("row group %d: %d proofs of absence in a second round", g.idx, len(r))
		}
		out = append(out, r...)
	}
	return out, nil
}

// layout is the footer facts the planners turn into byte ranges.
func (s *Scanner) layout() fileLayout {
	return fileLayout{meta: s.meta, metaStart: s.metaStart, writer: s.writer, memoryCap: s.opts.MemoryCap}
}

// indexRange validates an index location from the footer (fileLayout.indexRange).
func (s *Scanner) indexRange(off *int64, n *int32) (httprange.Range, bool) {
	return s.layout().indexRange(off, n)
}

// bloomBitsets extends the bloom ranges whose length was guessed to header + bitset, from
// the headers fetched by the index round. A header that does not parse leaves the filter
// unused.
func (s *Scanner) bloomBitsets() []httprange.Range {
	var out []httprange.Range
	for _, g := range s.plan {
		for li, r := range g.bloom {
			b, ok := s.cache.Get(r)
			if !ok {
				continue
			}
			h, n, err := format.DecodeBloomFilterHeader(b)
			if err != nil || h.NumBytes <= 0 {
				delete(g.bloom, li)
				continue
			}
			full := int32(min(int64(n)+int64(h.NumBytes), 1<<31-1))
			fr, ok := s.indexRange(&r.Off, &full)
			if !ok {
				delete(g.bloom, li)
				continue
			}
			g.bloom[li] = fr
			out = append(out, fr)
		}
	}
	return out
}

// dictRange is the dictionary page of a chunk: from the chunk's start to its first data page.
func dictRange(cm *format.ColumnMetaData, chunk httprange.Range) (httprange.Range, bool) {
	if cm.DictionaryPageOffset == nil && chunk.Off == cm.DataPageOffset {
		return httprange.Range{}, false
	}
	if cm.DataPageOffset <= chunk.Off || cm.DataPageOffset > chunk.End() {
		return httprange.Range{}, false
	}
	return httprange.Range{Off: chunk.Off, Len: cm.DataPageOffset - chunk.Off}, true
}

// dataEncodings tells from the encoding stats whether some data pages are dictionary-encoded
// and whether some are not; known is false without encoding stats.
func dataEncodings(cm *format.ColumnMetaData) (dict, plain, known bool) {
	if len(cm.EncodingStats) == 0 {
		return false, false, false
	}
	for _, es := range cm.EncodingStats {
		if es.PageType != format.DataPage && es.PageType != format.DataPageV2 || es.Count == 0 {
			continue
		}
		if es.Encoding == format.PlainDictionary || es.Encoding == format.RLEDictionary {
			dict = true
		} else {
			plain = true
		}
	}
	return dict, plain, true
}

// fullyDictionary reports whether every data page of the chunk is dictionary-encoded, so the
// dictionary holds every value. Without encoding stats, the encodings list must not contain
// PLAIN (or any other value encoding): writers list PLAIN for a fallback, and some for the
// dictionary page itself, so its presence is ambiguous and the answer is "no".
func fullyDictionary(cm *format.ColumnMetaData) bool {
	if dict, plain, known := dataEncodings(cm); known {
		return dict && !plain
	}
	hasDict := false
	for _, e := range cm.Encodings {
		switch e {
		case format.PlainDictionary, format.RLEDictionary:
			hasDict = true
		case format.RLE, format.BitPacked:
		default:
			return false
		}
	}
	return hasDict
}

// applyIndexes runs the bloom, dictionary and page-index levels over the fetched indexes.
func (s *Scanner) applyIndexes() error {
	kept := s.plan[:0]
	for _, g := range s.plan {
		g.cand = s.liveRows(g.idx)
		if s.pred != nil && !s.opts.NoPrune {
			if !s.bloomMayMatch(g) {
				s.logf("row group %d: skipped by bloom filter", g.idx)
				s.skipped(g.idx, "bloom")
				continue
			}
			s.report.RowGroupsAfterBloom++
			ok, err := s.dictMayMatch(g)
			if err != nil {
				return err
			}
			if !ok {
				s.logf("row group %d: skipped by dictionary", g.idx)
				s.skipped(g.idx, "dictionary")
				continue
			}
			s.report.RowGroupsAfterDict++
		}
		// The page indexes of a row group the bloom filters or dictionaries ruled out are
		// never decoded (their bytes came in the same round): decoding every column's offset
		// index is most of this step's CPU, and Q2's user_id = x keeps one row group in four.
		if !g.pageIndexLoaded {
			if err := s.loadPageIndex(g); err != nil {
				return err
			}
		}
		if s.pred != nil && !s.opts.NoPrune {
			may, all := s.pageIndexSelect(g)
			g.cand, g.full = g.cand.Intersect(may), all
			if s.deleted != nil && all != nil {
				g.full = all.Intersect(g.cand)
			}
			if len(g.cand) == 0 {
				s.logf("row group %d: skipped by page index", g.idx)
				s.skipped(g.idx, "pageIndex")
				continue
			}
			if s.opts.Count && s.countFromMetadata(g, g.full) {
				continue
			}
		}
		kept = append(kept, g)
	}
	s.plan = kept
	if s.pred == nil || s.opts.NoPrune {
		s.report.RowGroupsAfterBloom = len(kept)
		s.report.RowGroupsAfterDict = len(kept)
	}
	s.sliceUnfiltered()
	s.countPages()
	s.logf("reading %d / %d row groups", len(s.plan), s.report.RowGroupsTotal)
	return nil
}

// loadPageIndex decodes the offset and column indexes that were fetched; an index that fails
// to decode or contradicts the chunk is ignored (the chunk is then read whole).
func (s *Scanner) loadPageIndex(g *rgState) error {
	cols := s.meta.RowGroups[g.idx].Columns
	g.oi, g.ci = map[int]*format.OffsetIndex{}, map[int]*format.ColumnIndex{}
	for _, l := range s.readLeaves {
		li := l.Node.Leaf
		cc := &cols[li]
		r, ok := s.indexRange(cc.OffsetIndexOffset, cc.OffsetIndexLength)
		if !ok {
			continue
		}
		b, ok := s.cache.Get(r)
		if !ok {
			continue
		}
		oi, err := format.DecodeOffsetIndex(b)
		chunk, cerr := s.chunkRange(g.idx, l)
		if err != nil || cerr != nil || !validOffsetIndex(oi, cc.MetaData, chunk, g.rows) {
			s.logf("row group %d column %s: offset index unusable (it does not tile the chunk), reading the whole chunk", g.idx, l.Field.Name)
			continue
		}
		g.oi[li] = oi
	}
	var ciLeaves []int
	if s.pred != nil {
		for _, path := range s.pred.paths {
			ciLeaves = append(ciLeaves, s.pred.leaf[path].Node.Leaf)
		}
	}
	if s.tk != nil && s.tk.k > 0 {
		ciLeaves = append(ciLeaves, s.tk.first().col.Node.Leaf)
	}
	if len(ciLeaves) == 0 || s.opts.off(LevelPageIndex) {
		return nil // (a column index in the tail bytes is not used either)
	}
	for _, li := range ciLeaves {
		cc := &cols[li]
		r, ok := s.indexRange(cc.ColumnIndexOffset, cc.ColumnIndexLength)
		if !ok || g.oi[li] == nil {
			continue
		}
		b, ok := s.cache.Get(r)
		if !ok {
			continue
		}
		ci, err := format.DecodeColumnIndex(b)
		n := len(g.oi[li].PageLocations)
		if err != nil || len(ci.NullPages) != n || len(ci.MinValues) != n || len(ci.MaxValues) != n ||
			(ci.NullCounts != nil && len(ci.NullCounts) != n) {
			continue
		}
		g.ci[li] = ci
	}
	return nil
}

// validOffsetIndex checks the index against its chunk (format.OffsetIndex.TilesChunk); an
// index that fails is not used, so the chunk is read by walking its page headers and its
// column index prunes nothing.
func validOffsetIndex(oi *format.OffsetIndex, cm *format.ColumnMetaData, chunk httprange.Range, rows int64) bool {
	return chunk.Off == format.ChunkStart(cm) && oi.TilesChunk(cm, rows)
}

func firstRows(oi *format.OffsetIndex) []int64 {
	f := make([]int64, len(oi.PageLocations))
	for i, p := range oi.PageLocations {
		f[i] = p.FirstRowIndex
	}
	return f
}

// bloomMayMatch checks the row group's bloom filters for the predicate's equality literals.
func (s *Scanner) bloomMayMatch(g *rgState) bool {
	for li, r := range g.bloom {
		b, ok := s.cache.Get(r)
		if !ok {
			continue
		}
		h, n, err := format.DecodeBloomFilterHeader(b)
		if err != nil || h.NumBytes <= 0 || int64(n)+int64(h.NumBytes) > int64(len(b)) {
			continue
		}
		bitset := b[n : n+int(h.NumBytes)]
		for _, path := range s.pred.paths {
			if s.pred.leaf[path].Node.Leaf != li {
				continue
			}
			if !s.pred.bound.MayMatchBloom(path, func(hash uint64) bool { return prune.SBBFContains(bitset, hash) }) {
				return false
			}
		}
	}
	return true
}

// dictMayMatch decodes fetched dictionary pages and checks whether any value can match.
func (s *Scanner) dictMayMatch(g *rgState) (bool, error) {
	cols := s.meta.RowGroups[g.idx].Columns
	for li, r := range g.dict {
		b, ok := s.cache.Get(r)
		if !ok {
			continue
		}
		for _, path := range s.pred.paths {
			l := s.pred.leaf[path]
			if l.Node.Leaf != li {
				continue
			}
			cm := cols[li].MetaData
			vals, err := decode.DictionaryValues(l, cm, b, s.readerOptions())
			if err != nil || vals == nil {
				// Forgotten, so that it is not decoded again and secondProofs fetches the
				// chunk's held-back bloom filter instead.
				s.logf("row group %d column %s: dictionary unusable for pruning: %v", g.idx, path, err)
				delete(g.dict, li)
				continue
			}
			a := &arrowipc.Array{Len: vals.N, Data: vals.Fixed, Offsets: vals.Offsets}
			if vals.Width < 0 {
				a.Data = vals.Bits
			} else if vals.Width == 0 {
				a.Data = vals.Data
			}
			hasNulls := true
			if st := cm.Statistics; st != nil && st.NullCount != nil {
				hasNulls = *st.NullCount != 0
			}
			if !s.pred.bound.MayMatchDict(path, vector(a, s.pred.types[path], l.Field.Type), hasNulls) {
				return false, nil
			}
		}
	}
	return true, nil
}

// pageIndexSelect evaluates the predicate over the row group's column indexes (selectPages):
// the rows that may match, and those that all match.
func (s *Scanner) pageIndexSelect(g *rgState) (may, all prune.RowSelection) {
	var cols []pageIndexColumn
	for _, path := range s.pred.paths {
		li := s.pred.leaf[path].Node.Leaf
		if ci := g.ci[li]; ci != nil {
			cols = append(cols, pageIndexColumn{path: path, first: firstRows(g.oi[li]), ci: ci,
				stats: s.pred.statsColumn(path, s.writer, s.meta.ColumnOrders)})
		}
	}
	if s.pred.rowIndex != "" {
		cols = append(cols, rowIndexColumn(s.pred, s.rgStarts[g.idx], g.rows))
	}
	return selectPages(s.pred.bound, g.rows, cols)
}

func sortInt64(a []int64) { slices.Sort(a) }

// logf records a verbose log line in the report.
func (s *Scanner) logf(format string, args ...any) {
	if len(s.report.Log) < 1000 {
		s.report.Log = append(s.report.Log, errf.Sprintf(format, args...))
	}
}
