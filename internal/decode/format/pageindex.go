package format

import (
	"encoding/binary"
	"math"

	"github.com/pqscan/pqscan/internal/decode/thrift"
)

// The page index: parquet.thrift "ColumnIndex", "OffsetIndex" and "PageLocation"
// (see parquet-format PageIndex.md).

// ColumnIndex holds per-page min/max values and null counts of one column chunk; entry i
// describes the page at OffsetIndex.PageLocations[i].
type ColumnIndex struct {
	NullPages                 []bool
	MinValues                 [][]byte
	MaxValues                 [][]byte
	BoundaryOrder             BoundaryOrder
	NullCounts                []int64
	RepetitionLevelHistograms []int64
	DefinitionLevelHistograms []int64
	// NanCounts (field 8) counts NaNs per page of FLOAT/DOUBLE/FLOAT16 columns; nil if absent.
	NanCounts []int64
}

// OffsetIndex locates every data page of one column chunk.
type OffsetIndex struct {
	PageLocations               []PageLocation
	UnencodedByteArrayDataBytes []int64
}

// PageLocation is where one page (header included) starts and how long it is.
type PageLocation struct {
	Offset             int64
	CompressedPageSize int32
	FirstRowIndex      int64
}

// DecodeColumnIndex decodes a ColumnIndex from exactly the column_index_length bytes at
// column_index_offset. The result does not alias b. List lengths are not cross-checked against
// each other or against the offset index; callers must do that before indexing.
func DecodeColumnIndex(b []byte) (*ColumnIndex, error) {
	if len(b) == 0 {
		return nil, ErrEmpty
	}
	r := thrift.NewReader(b)
	ci := &ColumnIndex{}
	err := readStruct(r, &columnIndexSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			ci.NullPages, err = readBoolList(r)
		case 2:
			ci.MinValues, err = readBinaryList(r)
		case 3:
			ci.MaxValues, err = readBinaryList(r)
		case 4:
			ci.BoundaryOrder, err = readEnum[BoundaryOrder](r)
		case 5:
			ci.NullCounts, err = readI64List(r)
		case 6:
			ci.RepetitionLevelHistograms, err = readI64List(r)
		case 7:
			ci.DefinitionLevelHistograms, err = readI64List(r)
		case 8:
			ci.NanCounts, err = readI64List(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return ci, nil
}

var columnIndexSpec = structSpec{name: "ColumnIndex", fields: []field{
	{1, thrift.List, true, "null_pages"},
	{2, thrift.List, true, "min_values"},
	{3, thrift.List, true, "max_values"},
	{4, thrift.I32, true, "boundary_order"},
	{5, thrift.List, false, "null_counts"},
	{6, thrift.List, false, "repetition_level_histograms"},
	{7, thrift.List, false, "definition_level_histograms"},
	{8, thrift.List, false, "nan_counts"},
}}

// DecodeOffsetIndex decodes an OffsetIndex from exactly the offset_index_length bytes at
// offset_index_offset. The result does not alias b; page offsets are not validated.
func DecodeOffsetIndex(b []byte) (*OffsetIndex, error) {
	return decodeOffsetIndex(b, readPageLocation)
}

// decodeOffsetIndex is DecodeOffsetIndex with the page location reader as a parameter, so
// that a test can run the table-driven reader alone against the fast path.
func decodeOffsetIndex(b []byte, readPageLocation func(*thrift.Reader) (PageLocation, error)) (*OffsetIndex, error) {
	if len(b) == 0 {
		return nil, ErrEmpty
	}
	r := thrift.NewReader(b)
	oi := &OffsetIndex{}
	err := readStruct(r, &offsetIndexSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			oi.PageLocations, err = readList(r, thrift.Struct, minPageLocation, func() (PageLocation, error) { return readPageLocation(r) })
		case 2:
			oi.UnencodedByteArrayDataBytes, err = readI64List(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return oi, nil
}

var offsetIndexSpec = structSpec{name: "OffsetIndex", fields: []field{
	{1, thrift.List, true, "page_locations"},
	{2, thrift.List, false, "unencoded_byte_array_data_bytes"},
}}

var pageLocationSpec = structSpec{name: "PageLocation", fields: []field{
	{1, thrift.I64, true, "offset"},
	{2, thrift.I32, true, "compressed_page_size"},
	{3, thrift.I64, true, "first_row_index"},
}}

// readPageLocation reads one PageLocation. A query's page index has one per data page of
// every column it reads (thousands), and their decoding sat between the index round's
// response and the next request (1–2 µs each in V8 through readStruct's closures and field
// lookups). So the encoding every writer produces — fields 1, 2, 3 in order with
// one-byte headers, then STOP — is read directly; anything else (another order, unknown or
// long-form fields, a bad value) is read again from the same offset by the table-driven
// reader, so a page location reads the same, or fails the same, either way.
func readPageLocation(r *thrift.Reader) (PageLocation, error) {
	if p, ok := readPageLocationCompact(r); ok {
		return p, nil
	}
	return readPageLocationTable(r)
}

// Compact-protocol field headers: id delta 1 in the high nibble, the wire type in the low one.
const (
	hdrI64Next = 0x10 | byte(thrift.I64)
	hdrI32Next = 0x10 | byte(thrift.I32)
)

// readPageLocationCompact reads the usual encoding of a PageLocation straight from the
// input, with as few calls as possible (each call is costly in Go's wasm code); ok false
// leaves the reader where it was.
func readPageLocationCompact(r *thrift.Reader) (PageLocation, bool) {
	p, n := pageLocationAt(r.Rest())
	if n == 0 {
		return PageLocation{}, false
	}
	r.Seek(r.Offset() + n)
	return p, true
}

// pageLocationAt decodes the usual encoding of a PageLocation at the start of b; n is the
// bytes it took, 0 when b does not start with it.
func pageLocationAt(b []byte) (p PageLocation, n int) {
	off, i := compactField(b, 0, hdrI64Next)
	if i == 0 {
		return p, 0
	}
	size, i := compactField(b, i, hdrI32Next)
	if i == 0 || size < math.MinInt32 || size > math.MaxInt32 {
		return p, 0
	}
	first, i := compactField(b, i, hdrI64Next)
	if i == 0 || i >= len(b) || b[i] != byte(thrift.Stop) {
		return p, 0
	}
	return PageLocation{Offset: off, CompressedPageSize: int32(size), FirstRowIndex: first}, i + 1
}

// compactField decodes a one-byte field header hdr and its zigzag varint at b[i:]; next is
// the offset after it, 0 when b[i:] does not hold that.
func compactField(b []byte, i int, hdr byte) (v int64, next int) {
	if i >= len(b) || b[i] != hdr {
		return 0, 0
	}
	u, n := binary.Uvarint(b[i+1:])
	if n <= 0 {
		return 0, 0
	}
	return int64(u>>1) ^ -int64(u&1), i + 1 + n
}

// readPageLocationTable reads a PageLocation with the table-driven struct reader (any field
// order, unknown fields skipped, required fields checked).
func readPageLocationTable(r *thrift.Reader) (PageLocation, error) {
	var p PageLocation
	err := readStruct(r, &pageLocationSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			p.Offset, err = r.I64()
		case 2:
			p.CompressedPageSize, err = r.I32()
		case 3:
			p.FirstRowIndex, err = r.I64()
		}
		return err
	})
	return p, err
}
