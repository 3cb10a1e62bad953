package decode

import (
	"hash/crc32"
	"math/bits"

	"github.com/pqscan/pqscan/internal/decode/codec"
	"github.com/pqscan/pqscan/internal/decode/encoding"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/errf"
)

// page is one decoded data page: its levels and its non-null values in Arrow layout.
type page struct {
	entries int // number of level entries (values including nulls)
	def     []int16
	rep     []int16
	vals    Values
	// numRows is the number of rows starting in this page (entries with rep == 0).
	numRows int
	// partial: vals holds only the values at spans (page value positions), packed, the
	// first of span k at valsAt[k] (late materialization inside the page, select.go).
	partial bool
	spans   []encoding.Span
	valsAt  []int
}

// pageDecoder holds the per-column state and scratch buffers used to decode pages
// (parquet-format README "Data Pages", Encodings.md).
type pageDecoder struct {
	col       *Column
	conv      *Converter
	codec     codec.Codec
	maxDef    int16
	maxRep    int16
	memCap    int
	verifyCRC bool
	// unverified counts the pages whose CRC went unchecked (ReaderOptions.Unverified).
	unverified *int
	path       string
	// keepIndices emits dictionary indices (int32) instead of values, for Arrow dictionary
	// arrays; every data page must then be dictionary-encoded.
	keepIndices bool

	dict *Values
	// pendingDict / pendingBody: a dictionary page handed over but not decoded yet. It is
	// decoded at the first dictionary-encoded data page, so that a read whose pages are all
	// PLAIN (a chunk that fell back from its dictionary, whose dictionary the scan fetched on
	// speculation) never pays for decompressing and converting it: in V8 that was the largest
	// cost of a selective query's last steps.
	pendingDict *format.PageHeader
	pendingBody []byte
	scratch     []byte // decompressed body
	idx         []int32
	phys        Values // physical values before conversion
	i32         []int32
	i64         []int64
}

func (d *pageDecoder) errf(base error, format string, args ...any) error {
	return errf.Errorf("%w: column %s: %s", base, d.path, errf.Sprintf(format, args...))
}

// decompress returns the uncompressed bytes of a body, honouring the memory cap.
func (d *pageDecoder) decompress(body []byte, size int) ([]byte, error) {
	if size < 0 || size > d.memCap {
		return nil, d.errf(ErrMemory, "page of %d bytes exceeds the memory cap of %d", size, d.memCap)
	}
	if d.codec == codec.Uncompressed {
		if len(body) != size {
			// Some writers (ARROW-17100) mark v2 pages compressed/uncompressed inconsistently;
			// an uncompressed body must simply be the announced size.
			return nil, d.errf(ErrPage, "uncompressed page has %d bytes, header says %d", len(body), size)
		}
		return body, nil
	}
	if size == 0 && len(body) == 0 {
		return body[:0], nil
	}
	if cap(d.scratch) < size+codec.ZstdSlack {
		d.scratch = make([]byte, 0, size+size/4+codec.ZstdSlack)
	}
	out, err := codec.Decompress(d.scratch[:0], d.codec, body, size, d.memCap)
	if err != nil {
		return nil, errf.Errorf("decode: column %s: %w", d.path, err)
	}
	if cap(out) > cap(d.scratch) {
		d.scratch = out // the codec had to allocate; keep the larger buffer
	}
	return out, nil
}

// bitWidth is the number of bits needed for levels up to max.
func bitWidth(max int16) int { return bits.Len16(uint16(max)) }

// levelsV1 decodes n levels (up to max) at the start of a v1 data page's data and returns
// them appended to dst, with the rest of data. RLE levels carry a 4-byte length prefix; the
// deprecated BIT_PACKED levels (old parquet-mr) have none and take ceil(n*width/8) bytes.
func (d *pageDecoder) levelsV1(dst []int16, data []byte, enc format.Encoding, max int16, n int, what string) ([]int16, []byte, error) {
	var err error
	switch enc {
	case format.RLE:
		sec, used, err := encoding.LengthPrefixed(data)
		if err != nil {
			return dst, data, d.errf(ErrPage, "%s levels: %v", what, err)
		}
		if dst, _, err = encoding.HybridLevels(dst, sec, bitWidth(max), n); err != nil {
			return dst, data, d.errf(ErrLevels, "%s levels: %v", what, err)
		}
		return dst, data[used:], nil
	case format.BitPacked:
		var used int
		if dst, used, err = encoding.BitPackedLevels(dst, data, bitWidth(max), n); err != nil {
			return dst, data, d.errf(ErrLevels, "%s levels (BIT_PACKED): %v", what, err)
		}
		return dst, data[used:], nil
	}
	return dst, data, d.errf(ErrUnsupported, "%s level encoding %v", what, enc)
}

// readData decodes a data page (v1 or v2) into p. pick, when not nil, chooses from the
// decoded levels which values to materialize (ColumnReader.SetSelection).
func (d *pageDecoder) readData(h *format.PageHeader, body []byte, p *page, pick func(p *page, nonNull int) ([]encoding.Span, bool)) error {
	if err := d.checkCRC(h, body); err != nil {
		return err
	}
	if usesDictionary(h) {
		// Before this page's body is decompressed: both use d.scratch.
		if err := d.ensureDictionary(); err != nil {
			return err
		}
	}
	var n int
	var enc format.Encoding
	var values []byte
	p.def, p.rep = p.def[:0], p.rep[:0]
	switch {
	case h.Type == format.DataPage && h.DataPageHeader != nil:
		dh := h.DataPageHeader
		n, enc = int(dh.NumValues), dh.Encoding
		if err := d.checkEntries(n); err != nil {
			return err
		}
		data, err := d.decompress(body, int(h.UncompressedPageSize))
		if err != nil {
			return err
		}
		if d.maxRep > 0 {
			if p.rep, data, err = d.levelsV1(p.rep, data, dh.RepetitionLevelEncoding, d.maxRep, n, "repetition"); err != nil {
				return err
			}
		}
		if d.maxDef > 0 {
			if p.def, data, err = d.levelsV1(p.def, data, dh.DefinitionLevelEncoding, d.maxDef, n, "definition"); err != nil {
				return err
			}
		}
		values = data
	case h.Type == format.DataPageV2 && h.DataPageHeaderV2 != nil:
		dh := h.DataPageHeaderV2
		n, enc = int(dh.NumValues), dh.Encoding
		if err := d.checkEntries(n); err != nil {
			return err
		}
		rl, dl := int(dh.RepetitionLevelsByteLength), int(dh.DefinitionLevelsByteLength)
		if rl < 0 || dl < 0 || rl+dl > len(body) {
			return d.errf(ErrPage, "v2 level lengths %d+%d exceed the page body of %d bytes", rl, dl, len(body))
		}
		var err error
		if d.maxRep > 0 {
			if p.rep, _, err = encoding.HybridLevels(p.rep, body[:rl], bitWidth(d.maxRep), n); err != nil {
				return d.errf(ErrLevels, "repetition levels: %v", err)
			}
		}
		if d.maxDef > 0 {
			if p.def, _, err = encoding.HybridLevels(p.def, body[rl:rl+dl], bitWidth(d.maxDef), n); err != nil {
				return d.errf(ErrLevels, "definition levels: %v", err)
			}
		}
		values = body[rl+dl:]
		size := int(h.UncompressedPageSize) - rl - dl
		// Some writers (ARROW-17100) compress v2 values although is_compressed is false; a
		// section whose length does not match the uncompressed size is decompressed anyway.
		if (dh.IsCompressed || len(values) != size) && d.codec != codec.Uncompressed {
			if values, err = d.decompress(values, size); err != nil {
				return err
			}
		} else if len(values) != size {
			return d.errf(ErrPage, "v2 values section has %d bytes, header says %d", len(values), size)
		}
	default:
		return d.errf(ErrPage, "page type %v without its header", h.Type)
	}
	p.entries = n
	nonNull := n
	if d.maxDef > 0 {
		nonNull = 0
		for _, l := range p.def {
			if l == d.maxDef {
				nonNull++
			} else if l > d.maxDef || l < 0 {
				return d.errf(ErrLevels, "definition level %d above the maximum %d", l, d.maxDef)
			}
		}
	}
	p.numRows = n
	if d.maxRep > 0 {
		p.numRows = 0
		for _, l := range p.rep {
			if l == 0 {
				p.numRows++
			} else if l > d.maxRep || l < 0 {
				return d.errf(ErrLevels, "repetition level %d above the maximum %d", l, d.maxRep)
			}
		}
	}
	p.partial = false
	if pick != nil {
		if spans, partial := pick(p, nonNull); partial {
			p.partial, p.spans = true, spans
			p.valsAt = p.valsAt[:0]
			at := 0
			for _, s := range spans {
				p.valsAt = append(p.valsAt, at)
				at += s.To - s.From
			}
			return d.decodeValues(&p.vals, enc, values, nonNull, spans)
		}
	}
	return d.decodeValues(&p.vals, enc, values, nonNull, nil)
}

// checkEntries bounds the level count of a page: levels expand (RLE), so the count is not
// bounded by the page bytes, only by the memory cap.
func (d *pageDecoder) checkEntries(n int) error {
	if n < 0 {
		return d.errf(ErrPage, "negative value count %d", n)
	}
	if int64(n)*4 > int64(d.memCap) {
		return d.errf(ErrMemory, "page of %d values exceeds the memory cap", n)
	}
	return nil
}

// checkCRC verifies the page CRC (CRC-32 of the page body as stored) when the writer wrote one.
// A CRC of 0 is a placeholder, not a checksum (ReaderOptions.VerifyCRC): it is counted as
// unverified, like every CRC when verification is off.
func (d *pageDecoder) checkCRC(h *format.PageHeader, body []byte) error {
	if h.CRC == nil {
		return nil
	}
	if !d.verifyCRC || *h.CRC == 0 {
		if d.unverified != nil {
			*d.unverified++
		}
		return nil
	}
	if got := crc32.ChecksumIEEE(body); got != uint32(*h.CRC) {
		return d.errf(ErrChecksum, "CRC %08x, computed %08x", uint32(*h.CRC), got)
	}
	return nil
}

// A column chunk's dictionary page: checked when it arrives, decoded when a data page first
// needs it (or at once for a reader that emits dictionary indices), and kept in Arrow layout
// for the chunk's data pages.

// setDictionary takes a chunk's dictionary page: its header is checked now, its body decoded
// when a data page first needs it (ensureDictionary), or now when the reader emits
// dictionary indices (the batches carry the dictionary itself).
func (d *pageDecoder) setDictionary(h *format.PageHeader, body []byte) error {
	if d.dict != nil || d.pendingDict != nil {
		return d.errf(ErrPage, "a second dictionary page")
	}
	dh := h.DictionaryPageHeader
	if dh == nil {
		return d.errf(ErrPage, "dictionary page without a dictionary header")
	}
	if dh.Encoding != format.Plain && dh.Encoding != format.PlainDictionary {
		return d.errf(ErrUnsupported, "dictionary page encoding %v", dh.Encoding)
	}
	d.pendingDict, d.pendingBody = h, body
	if d.keepIndices {
		return d.ensureDictionary()
	}
	return nil
}

// ensureDictionary decodes the pending dictionary page, if any.
func (d *pageDecoder) ensureDictionary() error {
	if d.pendingDict == nil {
		return nil
	}
	h, body := d.pendingDict, d.pendingBody
	d.pendingDict, d.pendingBody = nil, nil
	return d.readDictionary(h, body)
}

// readDictionary decodes a dictionary page (its header checked by setDictionary) into d.dict
// (converted to Arrow layout).
func (d *pageDecoder) readDictionary(h *format.PageHeader, body []byte) error {
	dh := h.DictionaryPageHeader
	if err := d.checkCRC(h, body); err != nil {
		return err
	}
	data, err := d.decompress(body, int(h.UncompressedPageSize))
	if err != nil {
		return err
	}
	n := int(dh.NumValues)
	if n < 0 {
		return d.errf(ErrPage, "dictionary page with %d values", n)
	}
	var phys Values
	if err := d.decodePlain(&phys, data, n); err != nil {
		return err
	}
	dict := &phys
	if !d.convertCopies(phys.Width) {
		dict = &Values{}
		if err := d.convert(dict, &phys); err != nil {
			return err
		}
	}
	d.dict = dict
	return nil
}

// convertCopies: convert would only copy physical values of width physWidth (the column's
// Arrow layout is its physical one), so a dictionary is the decoded page itself (decodePlain
// copied it out of the scratch the data pages reuse; 18% of a `value` scan's engine
// allocations) and a data page decodes straight into its Arrow values.
func (d *pageDecoder) convertCopies(physWidth int) bool {
	if physWidth == 0 {
		return d.conv.IsVar()
	}
	return physWidth > 0 && d.conv.kind == convCopy && d.conv.OutWidth == physWidth
}
