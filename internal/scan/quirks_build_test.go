package scan

import (
	"encoding/binary"

	"github.com/pqscan/pqscan/internal/decode/format"
)

// A Parquet file builder for the writer quirks of quirks_test.go, on top of the
// Thrift compact writer of craft_test.go. Unlike craftFile it can write created_by, logical
// types, column statistics, a chunk size that differs from the bytes written, and an offset
// and column index.

// qEl is a schema element: a group when typ is nil (num_children is written when positive,
// and for the root). craftFile's schemaEl encodes through it.
type qEl struct {
	name     string
	typ      *format.Type
	typeLen  int32
	rep      format.FieldRepetitionType
	children int32
	conv     *format.ConvertedType
	scale    int32
	prec     int32
	// logical is the encoded LogicalType union (nil: none), e.g. logicalUnknown().
	logical []byte
}

func (e qEl) encode(isRoot bool) []byte {
	s := &tstruct{}
	if e.typ != nil {
		s.i32(1, int32(*e.typ))
	}
	if e.typeLen > 0 {
		s.i32(2, e.typeLen)
	}
	if !isRoot {
		s.i32(3, int32(e.rep))
	}
	s.bin(4, e.name)
	if e.children > 0 || isRoot {
		s.i32(5, e.children)
	}
	if e.conv != nil {
		s.i32(6, int32(*e.conv))
	}
	if e.prec > 0 {
		s.i32(7, e.scale).i32(8, e.prec)
	}
	if e.logical != nil {
		s.st(10, e.logical)
	}
	return s.end()
}

func convPtr(c format.ConvertedType) *format.ConvertedType { return &c }

// logicalUnknown is LogicalType{UNKNOWN: NullType{}}.
func logicalUnknown() []byte { return (&tstruct{}).st(11, []byte{0}).end() }

// qPage is one page as written: its header bytes and body.
type qPage struct{ header, body []byte }

func (p qPage) bytes() []byte { return append(append([]byte(nil), p.header...), p.body...) }

// qCol is one column chunk.
type qCol struct {
	typ       format.Type
	path      []string
	dict      *qPage // dictionary page, if any
	pages     []qPage
	numValues int64
	// sizeDelta is added to the true total_compressed_size (PARQUET-816 writes it short).
	sizeDelta int64
	// stats is an encoded Statistics struct (nil: none).
	stats []byte
	// firstRows, when set, writes an offset index with these first row indexes; lie writes
	// compressed_page_size without the page header (old segmentio parquet-go, Parquet.Net).
	firstRows []int64
	lie       bool
	// colIndex is an encoded ColumnIndex (written only with firstRows).
	colIndex []byte
	// encodings is the chunk's encodings list (nil: PLAIN and RLE).
	encodings []format.Encoding
}

// qFile is one file: created_by, schema (elems[0] is the root), one row group.
type qFile struct {
	createdBy string
	elems     []qEl
	numRows   int64
	cols      []qCol
	// orders are encoded ColumnOrder unions, one per leaf (nil: no column_orders).
	orders [][]byte
}

func (f qFile) build() []byte {
	file := []byte("PAR1")
	type placed struct {
		off, dataOff, size int64
		locs               [][]byte
	}
	var pl []placed
	for _, c := range f.cols {
		p := placed{off: int64(len(file))}
		if c.dict != nil {
			file = append(file, c.dict.bytes()...)
		}
		p.dataOff = int64(len(file))
		for i, pg := range c.pages {
			off := int64(len(file))
			file = append(file, pg.bytes()...)
			size := len(pg.header) + len(pg.body)
			if c.lie {
				size = len(pg.body)
			}
			if c.firstRows != nil {
				p.locs = append(p.locs, (&tstruct{}).i64(1, off).i32(2, int32(size)).i64(3, c.firstRows[i]).end())
			}
		}
		p.size = int64(len(file)) - p.off
		pl = append(pl, p)
	}
	// Page indexes after the data, before the footer.
	type idx struct{ ciOff, ciLen, oiOff, oiLen int64 }
	var ix []idx
	for i, c := range f.cols {
		var x idx
		if c.firstRows != nil {
			if c.colIndex != nil {
				x.ciOff = int64(len(file))
				file = append(file, c.colIndex...)
				x.ciLen = int64(len(c.colIndex))
			}
			oi := (&tstruct{}).structs(1, pl[i].locs).end()
			x.oiOff, x.oiLen = int64(len(file)), int64(len(oi))
			file = append(file, oi...)
		}
		ix = append(ix, x)
	}
	var ccs [][]byte
	for i, c := range f.cols {
		p := pl[i]
		encs := []int32{int32(format.Plain), int32(format.RLE)}
		if c.encodings != nil {
			encs = encs[:0]
			for _, e := range c.encodings {
				encs = append(encs, int32(e))
			}
		}
		md := (&tstruct{}).i32(1, int32(c.typ)).i32s(2, encs...).strs(3, c.path...).
			i32(4, int32(format.Uncompressed)).i64(5, c.numValues).i64(6, p.size+c.sizeDelta).i64(7, p.size+c.sizeDelta).
			i64(9, p.dataOff)
		if c.dict != nil {
			md.i64(11, p.off)
		}
		if c.stats != nil {
			md.st(12, c.stats)
		}
		cc := (&tstruct{}).i64(2, p.off).st(3, md.end())
		if x := ix[i]; x.oiLen > 0 {
			cc.i64(4, x.oiOff).i32(5, int32(x.oiLen))
			if x.ciLen > 0 {
				cc.i64(6, x.ciOff).i32(7, int32(x.ciLen))
			}
		}
		ccs = append(ccs, cc.end())
	}
	var els [][]byte
	for i, e := range f.elems {
		els = append(els, e.encode(i == 0))
	}
	rg := (&tstruct{}).structs(1, ccs).i64(2, int64(len(file)-4)).i64(3, f.numRows).end()
	meta := (&tstruct{}).i32(1, 1).structs(2, els).i64(3, f.numRows).structs(4, [][]byte{rg})
	if f.createdBy != "" {
		meta.bin(6, f.createdBy)
	}
	if f.orders != nil {
		meta.structs(7, f.orders)
	}
	mb := meta.end()
	file = append(file, mb...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(mb)))
	return append(file, "PAR1"...)
}

// v1Page is a PLAIN (or dictionary-index) v1 data page of n levels with the given level
// encodings; levels are the encoded repetition and definition sections (RLE ones with their
// length prefix), values the encoded values.
func v1Page(n int, enc, repEnc, defEnc format.Encoding, levels, values []byte) qPage {
	body := append(append([]byte(nil), levels...), values...)
	dh := (&tstruct{}).i32(1, int32(n)).i32(2, int32(enc)).i32(3, int32(defEnc)).i32(4, int32(repEnc)).end()
	h := (&tstruct{}).i32(1, int32(format.DataPage)).i32(2, int32(len(body))).i32(3, int32(len(body))).st(5, dh).end()
	return qPage{header: h, body: body}
}

// plainDictPage is a PLAIN dictionary page of n values.
func plainDictPage(n int, values []byte) qPage {
	return qPage{header: dictPageHeader(len(values), len(values), n), body: values}
}

// rleLevels is a v1 RLE level section (length-prefixed) of the given runs.
func rleLevels(runs ...[]byte) []byte {
	var b []byte
	for _, r := range runs {
		b = append(b, r...)
	}
	return lenPrefixed(b)
}

// byteArrays PLAIN-encodes strings.
func byteArrays(vs ...string) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}
