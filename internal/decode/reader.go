package decode

import (
	"slices"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/decode/encoding"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/protocol"
)

// PageBlob is one page's bytes (header followed by body) and the index of its first row
// within the row group, as the offset index gives it (-1 when unknown).
type PageBlob struct {
	Data     []byte
	FirstRow int64
}

// LeafBatch holds one leaf column's levels and values for a batch of rows.
type LeafBatch struct {
	Def     []int16 // nil when the column's max definition level is 0
	Rep     []int16 // nil when the column's max repetition level is 0
	Vals    Values
	Entries int
	Rows    int
	// Dict is the chunk's dictionary when the reader returns indices (ReaderOptions.DictionaryIndices).
	Dict *Values
}

// reserve makes room for n more flat rows (levels, and values at their fixed width), never
// more than the memory cap: the reservation is a guess, the cap is checked as values arrive.
func (b *LeafBatch) reserve(n int, levels bool, memCap int) {
	n = min(n, memCap/8)
	if levels {
		b.Def = slices.Grow(b.Def, n)
	}
	switch v := &b.Vals; {
	case v.Width > 0:
		v.Fixed = slices.Grow(v.Fixed, min(n*v.Width, memCap/2))
	case v.Width == 0:
		v.Offsets = slices.Grow(v.Offsets, n)
	}
}

// Reset empties the batch, keeping its buffers.
func (b *LeafBatch) Reset(width int) {
	b.Def, b.Rep = b.Def[:0], b.Rep[:0]
	b.Vals.reset(width)
	b.Entries, b.Rows = 0, 0
	b.Dict = nil
}

// ReaderOptions configure a ColumnReader.
type ReaderOptions struct {
	// MemoryCap bounds one decompressed page or dictionary.
	MemoryCap int
	// VerifyCRC checks page CRCs when the writer stored them. A stored CRC of 0 is taken as
	// not written and left unchecked: writers that reserve the field without computing it
	// (Parquet.jl) write 0 on every page, and parquet-java, arrow-cpp, arrow-rs and DuckDB
	// read their files because they check no CRC by default.
	VerifyCRC bool
	// Unverified, when not nil, is incremented for each page decoded whose header carries a
	// CRC that was not checked: a CRC of 0, or any CRC with VerifyCRC off. The caller owns
	// the counter; readers of one scan may share it (they run on one goroutine).
	Unverified *int
	// DictionaryIndices returns dictionary indices in LeafBatch.Vals (int32, width 4) and the
	// dictionary in LeafBatch.Dict, for Arrow dictionary arrays. Every data page of the chunk
	// must be dictionary-encoded.
	DictionaryIndices bool
	// StopAtNumValues is for chunk bytes that may run past the chunk's last page: a range
	// padded for PARQUET-816 (parquet-mr before 1.2.9 left the dictionary page header out of
	// total_compressed_size). Reading a whole chunk then stops once its data pages have
	// announced the chunk's num_values levels, as arrow-cpp does, instead of parsing the
	// padding as a page header.
	StopAtNumValues bool
}

// ColumnReader reads rows of one leaf column chunk, page by page. It does no I/O: the caller
// hands it either the whole chunk (SetChunk) or the pages it fetched (SetPages).
type ColumnReader struct {
	dec      pageDecoder
	Leaf     *Column
	numRows  int64 // rows in the row group
	chunk    []byte
	chunkPos int
	blobs    []PageBlob
	blobIdx  int
	pageMode bool
	// stopAt > 0: the chunk ends once seen reaches it (ReaderOptions.StopAtNumValues).
	stopAt, seen int64

	cur    page
	curPos int // next entry of cur
	curVal int // next value of cur
	loaded bool
	row    int64 // index of the next row to start

	// PagesDecoded counts data pages decoded.
	PagesDecoded int

	// The selection (SetSelection): pick is nil without one.
	sel       []RowRun
	threshold int64
	pick      func(p *page, nonNull int) ([]encoding.Span, bool)
	runs      []RowRun        // scratch: the page's rows to materialize
	spans     []encoding.Span // scratch: their values
	spanIdx   int             // the span of cur that the last read was in
	// ValuesSkipped counts the non-null values that a selection left unmaterialized.
	ValuesSkipped int64
}

// NewColumnReader prepares a reader for leaf column col whose chunk metadata is cm, in a row
// group of numRows rows.
func NewColumnReader(col *Column, cm *format.ColumnMetaData, numRows int64, opt ReaderOptions) (*ColumnReader, error) {
	if col.Kind != KindLeaf {
		return nil, errf.Errorf("%w: %s is not a leaf column", ErrSchema, col.Field.Name)
	}
	if cm.Type != *col.Node.Elem.Type {
		return nil, errf.Errorf("%w: column %s: chunk type %v differs from the schema's %v", ErrSchema,
			strings.Join(col.Node.Path, "."), cm.Type, *col.Node.Elem.Type)
	}
	if opt.MemoryCap <= 0 {
		opt.MemoryCap = protocol.DefaultMemoryCap
	}
	r := &ColumnReader{Leaf: col, numRows: numRows}
	if opt.StopAtNumValues && cm.NumValues > 0 {
		r.stopAt = cm.NumValues
	}
	r.dec = pageDecoder{
		col: col, conv: col.Conv, codec: codec.Codec(cm.Codec),
		maxDef: col.Node.DefLevel, maxRep: col.Node.RepLevel,
		memCap: opt.MemoryCap, verifyCRC: opt.VerifyCRC, unverified: opt.Unverified, keepIndices: opt.DictionaryIndices,
		path: strings.Join(col.Node.Path, "."),
	}
	return r, nil
}

// SetChunk hands the reader the whole column chunk, starting at its first page.
func (r *ColumnReader) SetChunk(b []byte) {
	r.chunk, r.chunkPos, r.pageMode = b, 0, false
}

// SetPages hands the reader the dictionary page (nil if none) and a subset of the chunk's
// data pages with their first row indexes, in order. Rows outside these pages must be skipped.
func (r *ColumnReader) SetPages(dict []byte, pages []PageBlob) error {
	r.blobs, r.blobIdx, r.pageMode = pages, 0, true
	if dict != nil {
		h, body, _, err := r.splitPage(dict)
		if err != nil {
			return err
		}
		if h.Type != format.DictionaryPage {
			return r.dec.errf(ErrPage, "expected a dictionary page, found %v", h.Type)
		}
		return r.dec.setDictionary(h, body)
	}
	return nil
}

// splitPage parses a page header at the start of b and returns the header, the body and the
// total bytes used.
func (r *ColumnReader) splitPage(b []byte) (*format.PageHeader, []byte, int, error) {
	h, n, err := format.DecodePageHeader(b)
	if err != nil {
		return nil, nil, 0, errf.Errorf("decode: column %s: page header: %w", r.dec.path, err)
	}
	size := int(h.CompressedPageSize)
	if size < 0 || size > len(b)-n {
		return nil, nil, 0, r.dec.errf(ErrPage, "page of %d bytes runs past the %d bytes of its column chunk", size, len(b)-n)
	}
	if h.UncompressedPageSize < 0 {
		return nil, nil, 0, r.dec.errf(ErrPage, "negative uncompressed page size")
	}
	return h, b[n : n+size], n + size, nil
}

// loadNext decodes the next data page into cur; false at the end of the chunk.
func (r *ColumnReader) loadNext() (bool, error) {
	for {
		var h *format.PageHeader
		var body []byte
		firstRow := int64(-1)
		if r.pageMode {
			if r.blobIdx >= len(r.blobs) {
				return false, nil
			}
			blob := r.blobs[r.blobIdx]
			r.blobIdx++
			var err error
			if h, body, _, err = r.splitPage(blob.Data); err != nil {
				return false, err
			}
			firstRow = blob.FirstRow
		} else {
			if r.chunkPos >= len(r.chunk) || r.stopAt > 0 && r.seen >= r.stopAt {
				return false, nil
			}
			var used int
			var err error
			if h, body, used, err = r.splitPage(r.chunk[r.chunkPos:]); err != nil {
				return false, err
			}
			r.chunkPos += used
		}
		switch h.Type {
		case format.DictionaryPage:
			if err := r.dec.setDictionary(h, body); err != nil {
				return false, err
			}
			continue
		case format.IndexPage:
			continue
		case format.DataPage, format.DataPageV2:
		default:
			return false, r.dec.errf(ErrPage, "unknown page type %v", h.Type)
		}
		if firstRow >= 0 {
			if firstRow < r.row {
				return false, r.dec.errf(ErrPage, "page starts at row %d, before row %d already read", firstRow, r.row)
			}
			r.row = firstRow // before readData: the selection is in rows of the row group
		}
		if err := r.dec.readData(h, body, &r.cur, r.pick); err != nil {
			return false, err
		}
		r.PagesDecoded++
		r.seen += int64(r.cur.entries)
		r.curPos, r.curVal, r.loaded, r.spanIdx = 0, 0, true, 0
		if r.cur.entries == 0 {
			continue
		}
		return true, nil
	}
}

// canSkipBlob reports whether the next page blob lies entirely before row target, so it can
// be skipped without decoding.
func (r *ColumnReader) canSkipBlob(target int64) bool {
	if !r.pageMode || r.blobIdx >= len(r.blobs) || r.blobs[r.blobIdx].FirstRow < 0 {
		return false
	}
	end := r.numRows
	if r.blobIdx+1 < len(r.blobs) {
		end = r.blobs[r.blobIdx+1].FirstRow
		if end < 0 {
			return false
		}
	}
	return end <= target && r.blobs[r.blobIdx].FirstRow >= r.row
}

// Row returns the index of the next row the reader will return.
func (r *ColumnReader) Row() int64 { return r.row }

// Skip moves past rows until the next row is target (rows of pages that were never fetched
// are skipped implicitly).
func (r *ColumnReader) Skip(target int64) error {
	for r.row < target || (r.loaded && r.curPos < r.cur.entries && r.dec.maxRep > 0 && r.cur.rep[r.curPos] != 0) {
		if !r.loaded || r.curPos >= r.cur.entries {
			r.loaded = false
			for r.canSkipBlob(target) {
				r.blobIdx++
			}
			if r.pageMode && r.blobIdx < len(r.blobs) && r.blobs[r.blobIdx].FirstRow >= target {
				r.row = target
				return nil
			}
			ok, err := r.loadNext()
			if err != nil {
				return err
			}
			if !ok {
				if r.pageMode && target <= r.numRows {
					r.row = target
					return nil
				}
				return r.dec.errf(ErrLevels, "column chunk ends at row %d, before row %d", r.row, target)
			}
			continue
		}
		// Skip within the page.
		p := &r.cur
		e := r.curPos
		if r.dec.maxRep == 0 {
			k := int(min(int64(p.entries-e), target-r.row))
			r.curVal += r.countValues(e, e+k)
			r.curPos += k
			r.row += int64(k)
			continue
		}
		for e < p.entries {
			if p.rep[e] == 0 {
				if r.row >= target {
					break
				}
				r.row++
			}
			e++
		}
		r.curVal += r.countValues(r.curPos, e)
		r.curPos = e
	}
	return nil
}

func (r *ColumnReader) countValues(from, to int) int {
	if r.dec.maxDef == 0 {
		return to - from
	}
	n := 0
	for _, l := range r.cur.def[from:to] {
		if l == r.dec.maxDef {
			n++
		}
	}
	return n
}

// Read appends the next n rows to out.
func (r *ColumnReader) Read(n int, out *LeafBatch) error {
	got := 0
	if r.dec.maxRep == 0 {
		// One growth for the whole request instead of doubling page after page.
		out.reserve(n, r.dec.maxDef > 0, r.dec.memCap)
	}
	for {
		if !r.loaded || r.curPos >= r.cur.entries {
			if got == n && (r.dec.maxRep == 0 || r.pageMode) {
				break
			}
			ok, err := r.loadNext()
			if err != nil {
				return err
			}
			if !ok {
				r.loaded = false
				break
			}
		}
		p := &r.cur
		e := r.curPos
		if v := &out.Vals; got == 0 && v.Width == 0 && p.vals.N > 0 {
			// Variable-length data: reserve the whole request at this page's density, once
			// (append's 1.25× growth for large slices would allocate about 5× the batch).
			want := min((len(p.vals.Data)/p.vals.N+1)*(n+n/8), r.dec.memCap/2)
			if cap(v.Data)-len(v.Data) < want {
				v.Data = slices.Grow(v.Data, want)
			}
		}
		var end int
		if r.dec.maxRep == 0 {
			k := min(n-got, p.entries-e)
			end = e + k
			got += k
			r.row += int64(k)
		} else {
			end = e
			for end < p.entries {
				if p.rep[end] == 0 {
					if got == n {
						break
					}
					got++
					r.row++
				}
				end++
			}
			// Levels of one row can span many pages: check before appending, so the batch
			// does not grow a page past the cap before the check below.
			if int64(out.Entries+end-e)*4+out.Vals.Bytes() > int64(r.dec.memCap) {
				return r.dec.errf(ErrMemory, "a batch of %d rows needs more than the memory cap of %d bytes", got, r.dec.memCap)
			}
			out.Rep = append(out.Rep, p.rep[e:end]...)
		}
		if r.dec.maxDef > 0 {
			out.Def = append(out.Def, p.def[e:end]...)
		}
		nv := r.countValues(e, end)
		from, err := r.valAt(r.curVal, nv)
		if err != nil {
			return err
		}
		if err := out.Vals.appendRange(&p.vals, from, nv); err != nil {
			return err
		}
		r.curVal += nv
		out.Entries += end - e
		r.curPos = end
		// A batch is bounded like a page: a row with a huge list, or huge strings, fails
		// clearly instead of growing past the memory cap.
		if int64(out.Entries)*4+out.Vals.Bytes() > int64(r.dec.memCap) {
			return r.dec.errf(ErrMemory, "a batch of %d rows needs more than the memory cap of %d bytes", got, r.dec.memCap)
		}
		if end < p.entries {
			break // the next row starts here and got == n
		}
	}
	out.Rows += got
	if r.dec.keepIndices {
		out.Dict = r.dec.dict
	}
	if got < n {
		return r.dec.errf(ErrLevels, "column chunk holds %d rows fewer than the %d expected", n-got, n)
	}
	return nil
}

// DictionaryValues decodes a column chunk's dictionary page (header and body) into Arrow-layout
// values, for dictionary-level pruning.
func DictionaryValues(col *Column, cm *format.ColumnMetaData, pageBytes []byte, opt ReaderOptions) (*Values, error) {
	r, err := NewColumnReader(col, cm, 0, opt)
	if err != nil {
		return nil, err
	}
	if err := r.SetPages(pageBytes, nil); err != nil {
		return nil, err
	}
	if err := r.dec.ensureDictionary(); err != nil {
		return nil, err
	}
	return r.dec.dict, nil
}

// PageUsesDictionary reports whether the data page at the start of b is dictionary-encoded
// (false for other page types), reading only its header.
func PageUsesDictionary(b []byte) (bool, error) {
	h, _, err := format.DecodePageHeader(b)
	if err != nil {
		return false, err
	}
	return usesDictionary(h), nil
}

// usesDictionary reports whether a data page's header names a dictionary encoding.
func usesDictionary(h *format.PageHeader) bool {
	var enc format.Encoding = -1
	switch {
	case h.Type == format.DataPage && h.DataPageHeader != nil:
		enc = h.DataPageHeader.Encoding
	case h.Type == format.DataPageV2 && h.DataPageHeaderV2 != nil:
		enc = h.DataPageHeaderV2.Encoding
	}
	return enc == format.PlainDictionary || enc == format.RLEDictionary
}
