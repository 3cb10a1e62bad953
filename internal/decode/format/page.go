package format

import (
	"github.com/pqscan/pqscan/internal/errf"

	"github.com/pqscan/pqscan/internal/decode/thrift"
)

// Page headers: parquet.thrift "PageHeader", "DataPageHeader", "DictionaryPageHeader",
// "DataPageHeaderV2" (the IndexPageHeader is empty in the spec and skipped).

// PageHeader precedes every page in a column chunk.
type PageHeader struct {
	Type                 PageType
	UncompressedPageSize int32
	CompressedPageSize   int32
	CRC                  *int32
	DataPageHeader       *DataPageHeader
	DictionaryPageHeader *DictionaryPageHeader
	DataPageHeaderV2     *DataPageHeaderV2
}

// DataPageHeader is the header of a v1 data page.
type DataPageHeader struct {
	NumValues               int32
	Encoding                Encoding
	DefinitionLevelEncoding Encoding
	RepetitionLevelEncoding Encoding
	Statistics              *Statistics
}

// DictionaryPageHeader is the header of a dictionary page.
type DictionaryPageHeader struct {
	NumValues int32
	Encoding  Encoding
	IsSorted  *bool
}

// DataPageHeaderV2 is the header of a v2 data page, whose levels are stored uncompressed
// before the (possibly compressed) values.
type DataPageHeaderV2 struct {
	NumValues                  int32
	NumNulls                   int32
	NumRows                    int32
	Encoding                   Encoding
	DefinitionLevelsByteLength int32
	RepetitionLevelsByteLength int32
	// IsCompressed defaults to true when the field is absent, as the spec says.
	IsCompressed bool
	Statistics   *Statistics
}

// DecodePageHeader decodes the page header at the start of b and returns it with the number of
// bytes it occupied; the page's data begins at b[n:]. b may extend past the header (the rest of
// the column chunk, or less than the page). Page sizes and counts are checked to be
// non-negative, so callers can add them to offsets; whether the page fits in the chunk is for
// the caller to check.
func DecodePageHeader(b []byte) (h *PageHeader, n int, err error) {
	if len(b) == 0 {
		return nil, 0, ErrEmpty
	}
	r := thrift.NewReader(b)
	h, err = readPageHeader(r)
	if err != nil {
		return nil, 0, err
	}
	return h, r.Offset(), nil
}

var pageHeaderSpec = structSpec{name: "PageHeader", fields: []field{
	{1, thrift.I32, true, "type"},
	{2, thrift.I32, true, "uncompressed_page_size"},
	{3, thrift.I32, true, "compressed_page_size"},
	{4, thrift.I32, false, "crc"},
	{5, thrift.Struct, false, "data_page_header"},
	{7, thrift.Struct, false, "dictionary_page_header"},
	{8, thrift.Struct, false, "data_page_header_v2"},
}}

func readPageHeader(r *thrift.Reader) (*PageHeader, error) {
	h := &PageHeader{}
	err := readStruct(r, &pageHeaderSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			h.Type, err = readEnum[PageType](r)
		case 2:
			if h.UncompressedPageSize, err = r.I32(); err == nil {
				err = checkNonNegative("uncompressed_page_size", h.UncompressedPageSize)
			}
		case 3:
			if h.CompressedPageSize, err = r.I32(); err == nil {
				err = checkNonNegative("compressed_page_size", h.CompressedPageSize)
			}
		case 4:
			h.CRC, err = optI32(r)
		case 5:
			h.DataPageHeader, err = readDataPageHeader(r)
		case 7:
			h.DictionaryPageHeader, err = readDictionaryPageHeader(r)
		case 8:
			h.DataPageHeaderV2, err = readDataPageHeaderV2(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if v2 := h.DataPageHeaderV2; v2 != nil {
		levels := int64(v2.DefinitionLevelsByteLength) + int64(v2.RepetitionLevelsByteLength)
		if levels > int64(h.CompressedPageSize) {
			return nil, &pathError{root: "PageHeader", cause: errf.Errorf(
				"%w: level byte lengths %d exceed compressed_page_size %d",
				ErrInvalid, levels, h.CompressedPageSize)}
		}
	}
	return h, nil
}

var dataPageHeaderSpec = structSpec{name: "DataPageHeader", fields: []field{
	{1, thrift.I32, true, "num_values"},
	{2, thrift.I32, true, "encoding"},
	{3, thrift.I32, true, "definition_level_encoding"},
	{4, thrift.I32, true, "repetition_level_encoding"},
	{5, thrift.Struct, false, "statistics"},
}}

func readDataPageHeader(r *thrift.Reader) (*DataPageHeader, error) {
	h := &DataPageHeader{}
	err := readStruct(r, &dataPageHeaderSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			if h.NumValues, err = r.I32(); err == nil {
				err = checkNonNegative("num_values", h.NumValues)
			}
		case 2:
			h.Encoding, err = readEnum[Encoding](r)
		case 3:
			h.DefinitionLevelEncoding, err = readEnum[Encoding](r)
		case 4:
			h.RepetitionLevelEncoding, err = readEnum[Encoding](r)
		case 5:
			h.Statistics, err = readStatistics(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

var dictionaryPageHeaderSpec = structSpec{name: "DictionaryPageHeader", fields: []field{
	{1, thrift.I32, true, "num_values"},
	{2, thrift.I32, true, "encoding"},
	{3, thrift.BoolTrue, false, "is_sorted"},
}}

func readDictionaryPageHeader(r *thrift.Reader) (*DictionaryPageHeader, error) {
	h := &DictionaryPageHeader{}
	err := readStruct(r, &dictionaryPageHeaderSpec, func(f *field, t thrift.Type) (err error) {
		switch f.id {
		case 1:
			if h.NumValues, err = r.I32(); err == nil {
				err = checkNonNegative("num_values", h.NumValues)
			}
		case 2:
			h.Encoding, err = readEnum[Encoding](r)
		case 3:
			h.IsSorted = optBool(t)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

var dataPageHeaderV2Spec = structSpec{name: "DataPageHeaderV2", fields: []field{
	{1, thrift.I32, true, "num_values"},
	{2, thrift.I32, true, "num_nulls"},
	{3, thrift.I32, true, "num_rows"},
	{4, thrift.I32, true, "encoding"},
	{5, thrift.I32, true, "definition_levels_byte_length"},
	{6, thrift.I32, true, "repetition_levels_byte_length"},
	{7, thrift.BoolTrue, false, "is_compressed"},
	{8, thrift.Struct, false, "statistics"},
}}

func readDataPageHeaderV2(r *thrift.Reader) (*DataPageHeaderV2, error) {
	h := &DataPageHeaderV2{IsCompressed: true}
	nonNeg := func(name string, dst *int32) error {
		v, err := r.I32()
		*dst = v
		if err != nil {
			return err
		}
		return checkNonNegative(name, v)
	}
	err := readStruct(r, &dataPageHeaderV2Spec, func(f *field, t thrift.Type) (err error) {
		switch f.id {
		case 1:
			err = nonNeg("num_values", &h.NumValues)
		case 2:
			err = nonNeg("num_nulls", &h.NumNulls)
		case 3:
			err = nonNeg("num_rows", &h.NumRows)
		case 4:
			h.Encoding, err = readEnum[Encoding](r)
		case 5:
			err = nonNeg("definition_levels_byte_length", &h.DefinitionLevelsByteLength)
		case 6:
			err = nonNeg("repetition_levels_byte_length", &h.RepetitionLevelsByteLength)
		case 7:
			h.IsCompressed = t == thrift.BoolTrue
		case 8:
			h.Statistics, err = readStatistics(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if h.NumNulls > h.NumValues {
		return nil, &pathError{root: "DataPageHeaderV2", cause: errf.Errorf(
			"%w: num_nulls %d > num_values %d", ErrInvalid, h.NumNulls, h.NumValues)}
	}
	return h, nil
}
