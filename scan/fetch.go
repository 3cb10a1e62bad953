package scan

import (
	"fmt"

	"github.com/pqscan/pqscan/decode"
	"github.com/pqscan/pqscan/decode/format"
	"github.com/pqscan/pqscan/httprange"
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
	rows     rowSet
	chunk    httprange.Range
	first    []int64 // first row of each page (offset index)
	pages    []int   // selected pages; nil = whole chunk
	dict     httprange.Range
	dictMode int
}

// fetchFor plans the bytes leaf needs in row group g to read rows.
func (s *Scanner) fetchFor(g *rgState, leaf *decode.Column, rows rowSet) (colFetch, error) {
	cf := colFetch{g: g, leaf: leaf, rows: rows}
	chunk, err := s.chunkRange(g.idx, leaf)
	if err != nil {
		return cf, err
	}
	cf.chunk = chunk
	oi := g.oi[leaf.Node.Leaf]
	if oi == nil {
		return cf, nil
	}
	cf.first = firstRows(oi)
	cf.pages = rows.overlapping(cf.first, g.rows)
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
		return []httprange.Range{cf.chunk}
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
			return httprange.Range{}, false, fmt.Errorf("row group %d column %s page %d: %w", cf.g.idx, cf.leaf.Field.Name, p, err)
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
	var rs []httprange.Range
	for i := range cfs {
		rs = append(rs, cfs[i].ranges()...)
	}
	if st, ok := s.need(rs...); !ok {
		return st, false, nil
	}
	rs = rs[:0]
	for i := range cfs {
		r, ok, err := s.lazyDict(&cfs[i])
		if err != nil {
			return Step{}, false, err
		}
		if ok {
			rs = append(rs, r)
		}
	}
	if st, ok := s.need(rs...); !ok {
		return st, false, nil
	}
	return Step{}, true, nil
}

// openReader creates a column reader over the fetched bytes of cf; indices asks for
// dictionary indices (Arrow dictionary output) instead of values.
func (s *Scanner) openReader(cf *colFetch, indices bool) (*decode.ColumnReader, error) {
	g := cf.g
	cm := s.meta.RowGroups[g.idx].Columns[cf.leaf.Node.Leaf].MetaData
	cr, err := decode.NewColumnReader(cf.leaf, cm, g.rows, decode.ReaderOptions{MemoryCap: int(s.opts.MemoryCap), VerifyCRC: true, DictionaryIndices: indices})
	if err != nil {
		return nil, err
	}
	if cf.pages == nil {
		b, ok := s.cache.Get(cf.chunk)
		if !ok {
			return nil, fmt.Errorf("%w: chunk bytes missing", ErrInternal)
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
			return nil, fmt.Errorf("%w: page bytes missing", ErrInternal)
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
