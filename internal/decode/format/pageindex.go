package format

import (
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

func readPageLocation(r *thrift.Reader) (PageLocation, error) {
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
