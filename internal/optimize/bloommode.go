package optimize

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/pqscan/pqscan/internal/decode/format"
)

// Bloom modes (Options.BloomMode, `optimize --bloom-mode`), as Impala's
// PARQUET_BLOOM_FILTER_WRITE: which column chunks of the bloom columns get a filter.
const (
	// BloomAlways writes a filter on every chunk of the bloom columns (the default).
	BloomAlways = "always"
	// BloomIfNoDict writes one only on the chunks that are not fully dictionary-encoded: a
	// reader proves a value absent from such a chunk with its dictionary page (pqscan's
	// dictionary level, Impala's), so a filter there is bytes that prove nothing more.
	BloomIfNoDict = "if-no-dict"
	// BloomNever writes no bloom filter, whatever Bloom and BloomAuto say.
	BloomNever = "never"
)

// ParseBloomMode checks a --bloom-mode value; "" is BloomAlways.
func ParseBloomMode(s string) (string, error) {
	switch s {
	case "", BloomAlways:
		return BloomAlways, nil
	case BloomIfNoDict, BloomNever:
		return s, nil
	}
	return "", fmt.Errorf("%w: bloom mode %q (want never|if-no-dict|always)", ErrOption, s)
}

// Whether a chunk stays fully dictionary-encoded is known only once arrow-go has written it
// (it falls back to PLAIN when the dictionary outgrows the dictionary page size limit,
// mid-chunk), and arrow-go decides bloom filters per column for the whole file, with no
// per-chunk hook. So in if-no-dict mode the writer writes a filter on every chunk of the
// bloom columns, and tailWriter removes the filters of the chunks its footer shows fully
// dictionary-encoded before the bytes leave: arrow-go writes all bloom filters in one
// section after the last row group (then the page index, then the footer), which Close
// writes, so tailWriter holds back what is written from Close on (the last row group's
// pages, already held in memory by the buffered writer, and that tail), cuts the filters
// out, moves the later bytes up and rewrites the footer's offsets of what moved (bloom
// filters, column and offset indexes; data pages are before the section and stay put).

// tailWriter passes writes through to w until hold, then keeps them for finish.
type tailWriter struct {
	w       io.Writer
	n       int64 // bytes passed through
	holding bool
	buf     bytes.Buffer
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if t.holding {
		return t.buf.Write(p)
	}
	n, err := t.w.Write(p)
	t.n += int64(n)
	return n, err
}

// hold starts keeping the writes (call it just before the file writer's Close).
func (t *tailWriter) hold() { t.holding = true }

// finish writes the held bytes to w with the bloom filters of the fully dictionary-encoded
// chunks cut out, and returns how many filters were kept and dropped.
func (t *tailWriter) finish() (kept, dropped int, err error) {
	out, kept, dropped, err := dropBlooms(t.buf.Bytes(), t.n)
	if err != nil {
		return 0, 0, err
	}
	_, err = t.w.Write(out)
	return kept, dropped, err
}

// dropBlooms returns tail (the end of a Parquet file from file offset base on, footer
// included) with the bloom filters of the fully dictionary-encoded chunks removed and the
// footer's offsets of every structure after them moved up by the bytes removed before it.
func dropBlooms(tail []byte, base int64) (out []byte, kept, dropped int, err error) {
	if len(tail) < 8 || string(tail[len(tail)-4:]) != "PAR1" {
		return nil, 0, 0, fmt.Errorf("optimize: bloom mode: the written file does not end in a footer")
	}
	flen := int64(binary.LittleEndian.Uint32(tail[len(tail)-8:]))
	fstart := int64(len(tail)) - 8 - flen
	if fstart < 0 {
		return nil, 0, 0, fmt.Errorf("optimize: bloom mode: footer length %d past the held bytes", flen)
	}
	// pqscan's own decoder first: it checks every length against the input, so a footer
	// that would make arrow-go's decoder allocate past it is refused before (FuzzDropBlooms).
	if _, err := format.DecodeFileMetaData(tail[fstart : fstart+flen]); err != nil {
		return nil, 0, 0, fmt.Errorf("optimize: bloom mode: the written footer: %w", err)
	}
	md, err := metadata.NewFileMetaData(tail[fstart:fstart+flen], nil)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("optimize: bloom mode: the written footer: %w", err)
	}
	type span struct{ off, end int64 }
	var cut, keep []span // filters to cut out, and those that stay (which must not overlap a cut)
	dataEnd := int64(0)  // the end of the last data byte: nothing before it may move
	for r, rg := range md.RowGroups {
		for c, cc := range rg.Columns {
			cm := cc.MetaData
			if cm == nil {
				return nil, 0, 0, fmt.Errorf("optimize: bloom mode: row group %d column %d has no metadata", r, c)
			}
			first := cm.DataPageOffset
			if cm.DictionaryPageOffset != nil && *cm.DictionaryPageOffset > 0 {
				first = min(first, *cm.DictionaryPageOffset)
			}
			dataEnd = max(dataEnd, first+cm.TotalCompressedSize)
			if cm.BloomFilterOffset == nil {
				continue
			}
			var enc []pageEncodings
			for _, s := range cm.EncodingStats {
				enc = append(enc, pageEncodings{pageType: int(s.PageType), encoding: int(s.Encoding), count: s.Count})
			}
			if !fullyDictionary(enc) {
				// A filter that stays must still lie in the file once the others are cut:
				// refuse a footer whose kept filter points outside it rather than pass it on.
				if cm.BloomFilterLength != nil && (*cm.BloomFilterOffset < 0 || *cm.BloomFilterLength < 0 ||
					*cm.BloomFilterOffset+int64(*cm.BloomFilterLength) > base+fstart) {
					return nil, 0, 0, fmt.Errorf("optimize: bloom mode: row group %d column %d: bloom filter at %d+%d outside the file's %d bytes before its footer", r, c, *cm.BloomFilterOffset, *cm.BloomFilterLength, base+fstart)
				}
				kept++
				ks := span{*cm.BloomFilterOffset, *cm.BloomFilterOffset + 1}
				if cm.BloomFilterLength != nil {
					ks.end = *cm.BloomFilterOffset + int64(*cm.BloomFilterLength)
				}
				keep = append(keep, ks)
				continue
			}
			if cm.BloomFilterLength == nil || *cm.BloomFilterLength <= 0 {
				return nil, 0, 0, fmt.Errorf("optimize: bloom mode: row group %d column %d: the writer recorded no bloom_filter_length", r, c)
			}
			cut = append(cut, span{*cm.BloomFilterOffset, *cm.BloomFilterOffset + int64(*cm.BloomFilterLength)})
			dropped++
			cm.BloomFilterOffset, cm.BloomFilterLength = nil, nil
		}
	}
	if len(cut) == 0 {
		return tail, kept, 0, nil
	}
	slices.SortFunc(cut, func(a, b span) int { return int(a.off - b.off) })
	for i, s := range cut {
		if s.off < base || s.off < dataEnd || s.end > base+fstart || (i > 0 && s.off < cut[i-1].end) {
			return nil, 0, 0, fmt.Errorf("optimize: bloom mode: bloom filter at %d..%d is not in the section after the data (%d..%d)", s.off, s.end, max(base, dataEnd), base+fstart)
		}
	}
	for _, k := range keep {
		for _, s := range cut {
			if k.off < s.end && s.off < k.end {
				return nil, 0, 0, fmt.Errorf("optimize: bloom mode: a kept bloom filter at %d..%d overlaps one to drop at %d..%d", k.off, k.end, s.off, s.end)
			}
		}
	}
	// moved is where the byte at file offset x lands once the cuts before it are gone.
	moved := func(x int64) int64 {
		d := int64(0)
		for _, s := range cut {
			if s.end <= x {
				d += s.end - s.off
			}
		}
		return x - d
	}
	for _, rg := range md.RowGroups {
		for _, cc := range rg.Columns {
			for _, p := range []*int64{cc.MetaData.BloomFilterOffset, cc.ColumnIndexOffset, cc.OffsetIndexOffset} {
				if p != nil && *p >= dataEnd {
					*p = moved(*p)
				}
			}
		}
	}
	out = make([]byte, 0, len(tail))
	at := base
	for _, s := range cut {
		out = append(out, tail[at-base:s.off-base]...)
		at = s.end
	}
	out = append(out, tail[at-base:fstart]...)
	var foot bytes.Buffer
	if _, err := md.WriteTo(&foot, nil); err != nil {
		return nil, 0, 0, fmt.Errorf("optimize: bloom mode: footer: %w", err)
	}
	out = append(out, foot.Bytes()...)
	out = binary.LittleEndian.AppendUint32(out, uint32(foot.Len()))
	return append(out, "PAR1"...), kept, dropped, nil
}

// pageEncodings is one entry of a chunk's encoding_stats.
type pageEncodings struct {
	pageType, encoding int
	count              int32
}

// fullyDictionary reports whether every data page of a chunk is dictionary-encoded, by its
// encoding stats (arrow-go writes them); without them the answer is "no", so the filter
// stays. It is the reader's rule for stats (internal/scan fullyDictionary), under which the
// dictionary level proves absence in such a chunk.
func fullyDictionary(stats []pageEncodings) bool {
	dict := false
	for _, s := range stats {
		switch s.pageType {
		case 0, 3: // DATA_PAGE, DATA_PAGE_V2
			if s.count == 0 {
				continue
			}
			if s.encoding != 2 && s.encoding != 8 { // PLAIN_DICTIONARY, RLE_DICTIONARY
				return false
			}
			dict = true
		}
	}
	return dict
}
