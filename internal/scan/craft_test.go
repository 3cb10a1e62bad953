package scan

import (
	"encoding/binary"

	"github.com/pqscan/pqscan/internal/decode/format"
)

// A tiny Thrift compact-protocol writer and Parquet file builder for crafted (hostile) files.

// tstruct writes one Thrift struct; fields must be added in increasing id order.
type tstruct struct {
	b    []byte
	last int16
}

const (
	ctTrue   = 1
	ctFalse  = 2
	ctI32    = 5
	ctI64    = 6
	ctBinary = 8
	ctList   = 9
	ctStruct = 12
)

func (s *tstruct) field(id int16, t byte) *tstruct {
	if d := id - s.last; d > 0 && d <= 15 {
		s.b = append(s.b, byte(d)<<4|t)
	} else {
		s.b = append(s.b, t)
		s.b = binary.AppendUvarint(s.b, uint64(int64(id)<<1^int64(id)>>15))
	}
	s.last = id
	return s
}

func zigzag(b []byte, v int64) []byte { return binary.AppendUvarint(b, uint64(v<<1^v>>63)) }

func (s *tstruct) i32(id int16, v int32) *tstruct {
	s.field(id, ctI32)
	s.b = zigzag(s.b, int64(v))
	return s
}

func (s *tstruct) i64(id int16, v int64) *tstruct {
	s.field(id, ctI64)
	s.b = zigzag(s.b, v)
	return s
}

func (s *tstruct) bin(id int16, v string) *tstruct {
	s.field(id, ctBinary)
	s.b = binary.AppendUvarint(s.b, uint64(len(v)))
	s.b = append(s.b, v...)
	return s
}

func (s *tstruct) boolean(id int16, v bool) *tstruct {
	if v {
		return s.field(id, ctTrue)
	}
	return s.field(id, ctFalse)
}

func (s *tstruct) st(id int16, child []byte) *tstruct {
	s.field(id, ctStruct)
	s.b = append(s.b, child...)
	return s
}

func listHeader(b []byte, n int, elem byte) []byte {
	if n < 15 {
		return append(b, byte(n)<<4|elem)
	}
	return binary.AppendUvarint(append(b, 0xf0|elem), uint64(n))
}

func (s *tstruct) structs(id int16, elems [][]byte) *tstruct {
	s.field(id, ctList)
	s.b = listHeader(s.b, len(elems), ctStruct)
	for _, e := range elems {
		s.b = append(s.b, e...)
	}
	return s
}

func (s *tstruct) i32s(id int16, vs ...int32) *tstruct {
	s.field(id, ctList)
	s.b = listHeader(s.b, len(vs), ctI32)
	for _, v := range vs {
		s.b = zigzag(s.b, int64(v))
	}
	return s
}

func (s *tstruct) strs(id int16, vs ...string) *tstruct {
	s.field(id, ctList)
	s.b = listHeader(s.b, len(vs), ctBinary)
	for _, v := range vs {
		s.b = binary.AppendUvarint(s.b, uint64(len(v)))
		s.b = append(s.b, v...)
	}
	return s
}

func (s *tstruct) end() []byte { return append(s.b, 0) }

// Page headers.

func v1Header(uncompressed, compressed, n int, enc format.Encoding) []byte {
	return v1HeaderCRC(uncompressed, compressed, n, enc, nil)
}

func dictPageHeader(uncompressed, compressed, n int) []byte {
	return dictPageHeaderCRC(uncompressed, compressed, n, nil)
}

// v1HeaderCRC and dictPageHeaderCRC write the page header's crc (field 4) when crc is not nil.
func v1HeaderCRC(uncompressed, compressed, n int, enc format.Encoding, crc *int32) []byte {
	dh := (&tstruct{}).i32(1, int32(n)).i32(2, int32(enc)).i32(3, int32(format.RLE)).i32(4, int32(format.RLE)).end()
	return pageHeaderCRC(format.DataPage, uncompressed, compressed, crc).st(5, dh).end()
}

func dictPageHeaderCRC(uncompressed, compressed, n int, crc *int32) []byte {
	dh := (&tstruct{}).i32(1, int32(n)).i32(2, int32(format.PlainDictionary)).end()
	return pageHeaderCRC(format.DictionaryPage, uncompressed, compressed, crc).st(7, dh).end()
}

func pageHeaderCRC(pt format.PageType, uncompressed, compressed int, crc *int32) *tstruct {
	h := (&tstruct{}).i32(1, int32(pt)).i32(2, int32(uncompressed)).i32(3, int32(compressed))
	if crc != nil {
		h.i32(4, *crc)
	}
	return h
}

// schemaEl is a schema element for the crafted footer (qEl of quirks_build_test.go).
type schemaEl = qEl

func typePtr(t format.Type) *format.Type { return &t }

// craftColumn is one column chunk: its bytes (pages), where the data pages start within
// them (after a dictionary page), and its metadata.
type craftColumn struct {
	typ       format.Type
	codec     format.CompressionCodec
	path      []string
	pages     []byte
	dictLen   int // bytes of the leading dictionary page, 0 if none
	numValues int64
}

// craftFile lays out "PAR1", the column chunks of one row group, the footer and "PAR1".
// schema[0] is the root.
func craftFile(schema []schemaEl, numRows int64, cols []craftColumn) []byte {
	file := []byte("PAR1")
	var ccs [][]byte
	for _, c := range cols {
		off := int64(len(file))
		file = append(file, c.pages...)
		md := (&tstruct{}).i32(1, int32(c.typ)).i32s(2, int32(format.Plain), int32(format.RLE)).strs(3, c.path...).
			i32(4, int32(c.codec)).i64(5, c.numValues).i64(6, int64(len(c.pages))).i64(7, int64(len(c.pages))).
			i64(9, off+int64(c.dictLen))
		if c.dictLen > 0 {
			md.i64(11, off)
		}
		ccs = append(ccs, (&tstruct{}).i64(2, off).st(3, md.end()).end())
	}
	var els [][]byte
	for i, e := range schema {
		els = append(els, e.encode(i == 0))
	}
	rg := (&tstruct{}).structs(1, ccs).i64(2, int64(len(file)-4)).i64(3, numRows).end()
	meta := (&tstruct{}).i32(1, 1).structs(2, els).i64(3, numRows).structs(4, [][]byte{rg}).end()
	file = append(file, meta...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(meta)))
	return append(file, "PAR1"...)
}

// rleRun is one RLE run of the hybrid encoding: count copies of v (bit width bw).
func rleRun(count int, v int, bw int) []byte {
	b := binary.AppendUvarint(nil, uint64(count)<<1)
	for k := 0; k < (bw+7)/8; k++ {
		b = append(b, byte(v>>(8*k)))
	}
	return b
}

func lenPrefixed(b []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func le32s(vs ...int32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}
