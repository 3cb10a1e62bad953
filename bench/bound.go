package bench

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/scan"
)

// Layout maps every byte of a Parquet file to what it holds, read with internal/decode/format: the
// footer, page indexes, bloom filters, and each column chunk's dictionary and data pages
// (found by walking the page headers, so files without an offset index are mapped too).
type Layout struct {
	Meta      *format.FileMetaData
	Size      int64
	Footer    scan.Range // FileMetaData + length + magic
	Chunks    [][]Chunk  // [row group][leaf]
	regions   []region   // sorted by offset, non-overlapping
	metaStart int64
}

// Chunk is one column chunk's layout.
type Chunk struct {
	Dict        scan.Range // dictionary page (header included); Len 0 if none
	Pages       []Page     // data pages in order
	ColumnIndex scan.Range // Len 0 if absent
	OffsetIndex scan.Range
	Bloom       scan.Range // header + bitset
}

// Page is one data page (header included) and the rows it holds.
type Page struct {
	scan.Range
	FirstRow, Rows int64
	UsesDict       bool
}

type kind uint8

const (
	kFooter kind = iota
	kColumnIndex
	kOffsetIndex
	kBloom
	kDict
	kData
	kOther
	nKinds
)

var kindNames = [nKinds]string{"footer", "column index", "offset index", "bloom", "dictionary", "data", "other"}

type region struct {
	scan.Range
	kind    kind
	rg, col int
	page    int // data page index
}

// NewLayout maps file.
func NewLayout(file []byte) (*Layout, error) {
	size := int64(len(file))
	if size < 12 || string(file[size-4:]) != format.Magic {
		return nil, fmt.Errorf("bench: not a Parquet file")
	}
	n := int64(binary.LittleEndian.Uint32(file[size-8:]))
	l := &Layout{Size: size, metaStart: size - 8 - n}
	l.Footer = scan.Range{Off: l.metaStart, Len: n + 8}
	meta, err := format.DecodeFileMetaData(file[l.metaStart : size-8])
	if err != nil {
		return nil, err
	}
	l.Meta = meta
	l.regions = append(l.regions, region{Range: l.Footer, kind: kFooter})
	for rgi, rg := range meta.RowGroups {
		row := make([]Chunk, len(rg.Columns))
		for ci, cc := range rg.Columns {
			ch := &row[ci]
			cm := cc.MetaData
			start := cm.DataPageOffset
			if d := cm.DictionaryPageOffset; d != nil && *d > 0 && *d < start {
				start = *d
			}
			end := start + cm.TotalCompressedSize
			var first int64
			for off := start; off < end; {
				h, hn, err := format.DecodePageHeader(file[off:end])
				if err != nil {
					return nil, fmt.Errorf("row group %d column %d page at %d: %w", rgi, ci, off, err)
				}
				r := scan.Range{Off: off, Len: int64(hn) + int64(h.CompressedPageSize)}
				switch {
				case h.Type == format.DictionaryPage:
					ch.Dict = r
					l.regions = append(l.regions, region{Range: r, kind: kDict, rg: rgi, col: ci})
				case h.Type == format.DataPage:
					enc := h.DataPageHeader.Encoding
					rows := int64(h.DataPageHeader.NumValues) // flat schema: one value per row
					ch.Pages = append(ch.Pages, Page{Range: r, FirstRow: first, Rows: rows,
						UsesDict: enc == format.RLEDictionary || enc == format.PlainDictionary})
					l.regions = append(l.regions, region{Range: r, kind: kData, rg: rgi, col: ci, page: len(ch.Pages) - 1})
					first += rows
				case h.Type == format.DataPageV2:
					enc := h.DataPageHeaderV2.Encoding
					rows := int64(h.DataPageHeaderV2.NumRows)
					ch.Pages = append(ch.Pages, Page{Range: r, FirstRow: first, Rows: rows,
						UsesDict: enc == format.RLEDictionary || enc == format.PlainDictionary})
					l.regions = append(l.regions, region{Range: r, kind: kData, rg: rgi, col: ci, page: len(ch.Pages) - 1})
					first += rows
				default:
					l.regions = append(l.regions, region{Range: r, kind: kOther, rg: rgi, col: ci})
				}
				off = r.End()
			}
			if first != rg.NumRows {
				return nil, fmt.Errorf("row group %d column %d: pages hold %d rows, the row group %d", rgi, ci, first, rg.NumRows)
			}
			if cc.ColumnIndexOffset != nil && cc.ColumnIndexLength != nil {
				ch.ColumnIndex = scan.Range{Off: *cc.ColumnIndexOffset, Len: int64(*cc.ColumnIndexLength)}
				l.regions = append(l.regions, region{Range: ch.ColumnIndex, kind: kColumnIndex, rg: rgi, col: ci})
			}
			if cc.OffsetIndexOffset != nil && cc.OffsetIndexLength != nil {
				ch.OffsetIndex = scan.Range{Off: *cc.OffsetIndexOffset, Len: int64(*cc.OffsetIndexLength)}
				l.regions = append(l.regions, region{Range: ch.OffsetIndex, kind: kOffsetIndex, rg: rgi, col: ci})
			}
			if off := cm.BloomFilterOffset; off != nil {
				h, hn, err := format.DecodeBloomFilterHeader(file[*off:l.metaStart])
				if err != nil {
					return nil, fmt.Errorf("row group %d column %d bloom filter: %w", rgi, ci, err)
				}
				ch.Bloom = scan.Range{Off: *off, Len: int64(hn) + int64(h.NumBytes)}
				l.regions = append(l.regions, region{Range: ch.Bloom, kind: kBloom, rg: rgi, col: ci})
			}
		}
		l.Chunks = append(l.Chunks, row)
	}
	slices.SortFunc(l.regions, func(a, b region) int { return int(a.Off - b.Off) })
	for i := 1; i < len(l.regions); i++ {
		if l.regions[i].Off < l.regions[i-1].End() {
			return nil, fmt.Errorf("bench: regions overlap at %d", l.regions[i].Off)
		}
	}
	return l, nil
}

// Bound is the page-level lower bound of a query: what an oracle that knows the matching
// rows must still fetch.
type Bound struct {
	Footer, Index, Dict, Data int64
	// Chunk is the row-group-level bound: the footer plus the whole column chunks of the
	// columns involved in the row groups holding matches.
	Chunk int64
	// Pages is the number of data pages in the bound.
	Pages  int
	needed map[region]bool
}

// Total is the page-level bound in bytes.
func (b Bound) Total() int64 { return b.Footer + b.Index + b.Dict + b.Data }

// LowerBound computes q's bound from the layout and the brute-force matches:
//   - the footer (FileMetaData, length and magic);
//   - in each row group holding a match, for each column involved (predicate and projected):
//     the data pages whose rows contain a match, the dictionary page if one of those pages is
//     dictionary-encoded, and, when only some of the chunk's pages are needed, its offset
//     index (to locate them) and for a predicate column its column index (to select them).
//
// Bloom filters are not part of it: an oracle does not need them.
func (l *Layout) LowerBound(q Query, tr Truth) Bound {
	b := Bound{Footer: l.Footer.Len, needed: map[region]bool{{Range: l.Footer, kind: kFooter}: true}}
	cols := map[int]bool{}
	for _, c := range q.predCols {
		cols[c] = true
	}
	for _, name := range q.columns() {
		for i, f := range eventsFields() {
			if f == name {
				cols[i] = true
			}
		}
	}
	isPred := func(c int) bool { return slices.Contains(q.predCols, c) }
	for rg, rows := range tr.Match {
		for c := range cols {
			ch := &l.Chunks[rg][c]
			b.Chunk += chunkBytes(ch)
			var sel []int
			j := 0
			for pi, p := range ch.Pages {
				for j < len(rows) && rows[j] < p.FirstRow {
					j++
				}
				if j < len(rows) && rows[j] < p.FirstRow+p.Rows {
					sel = append(sel, pi)
				}
			}
			dict := false
			for _, pi := range sel {
				p := ch.Pages[pi]
				b.Data += p.Len
				b.Pages++
				b.needed[region{Range: p.Range, kind: kData, rg: rg, col: c, page: pi}] = true
				dict = dict || p.UsesDict
			}
			if dict {
				b.Dict += ch.Dict.Len
				b.needed[region{Range: ch.Dict, kind: kDict, rg: rg, col: c}] = true
			}
			if len(sel) < len(ch.Pages) {
				if ch.OffsetIndex.Len > 0 {
					b.Index += ch.OffsetIndex.Len
					b.needed[region{Range: ch.OffsetIndex, kind: kOffsetIndex, rg: rg, col: c}] = true
				}
				if isPred(c) && ch.ColumnIndex.Len > 0 {
					b.Index += ch.ColumnIndex.Len
					b.needed[region{Range: ch.ColumnIndex, kind: kColumnIndex, rg: rg, col: c}] = true
				}
			}
		}
	}
	b.Chunk += l.Footer.Len
	return b
}

func chunkBytes(ch *Chunk) int64 {
	n := ch.Dict.Len
	for _, p := range ch.Pages {
		n += p.Len
	}
	return n
}

func eventsFields() []string {
	return []string{"event_time", "tenant_id", "user_id", "event_type", "country", "value", "payload"}
}

// Breakdown splits fetched bytes by what they hold and whether the bound needs them.
type Breakdown struct {
	Needed, Extra [nKinds]int64
	// ExtraPages counts fetched data pages outside the bound, by column name.
	ExtraPages map[string]int
	// ByLabel sums bytes by "kind column" (" extra" appended outside the bound).
	ByLabel map[string]int64
}

// Classify attributes every fetched byte to a region of the layout.
func (l *Layout) Classify(fetched []scan.Range, b Bound) Breakdown {
	out := Breakdown{ExtraPages: map[string]int{}, ByLabel: map[string]int64{}}
	names := eventsFields()
	for _, r := range fetched {
		pos := r.Off
		i, _ := slices.BinarySearchFunc(l.regions, r.Off, func(g region, off int64) int {
			if g.End() <= off {
				return -1
			}
			return 1
		})
		for ; pos < r.End(); i++ {
			if i >= len(l.regions) || l.regions[i].Off >= r.End() {
				out.Extra[kOther] += r.End() - pos
				out.ByLabel["other extra"] += r.End() - pos
				break
			}
			g := l.regions[i]
			if g.Off > pos {
				out.Extra[kOther] += g.Off - pos
				out.ByLabel["other extra"] += g.Off - pos
				pos = g.Off
			}
			n := min(g.End(), r.End()) - pos
			label := kindNames[g.kind]
			if g.kind != kFooter && g.kind != kOther {
				label += " " + names[g.col]
			}
			if !b.needed[g] {
				label += " extra"
			}
			out.ByLabel[label] += n
			if b.needed[g] {
				out.Needed[g.kind] += n
			} else {
				out.Extra[g.kind] += n
				if g.kind == kData && n > 0 {
					out.ExtraPages[names[g.col]]++
				}
			}
			pos += n
		}
	}
	return out
}
