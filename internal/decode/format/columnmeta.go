package format

import (
	"github.com/pqscan/pqscan/internal/decode/thrift"
)

// Decoders for parquet.thrift "ColumnMetaData", "Statistics", "PageEncodingStats",
// "SizeStatistics", "GeospatialStatistics" and "BoundingBox".

var columnMetaDataSpec = structSpec{name: "ColumnMetaData", fields: []field{
	{1, thrift.I32, true, "type"},
	{2, thrift.List, true, "encodings"},
	{3, thrift.List, true, "path_in_schema"},
	{4, thrift.I32, true, "codec"},
	{5, thrift.I64, true, "num_values"},
	{6, thrift.I64, true, "total_uncompressed_size"},
	{7, thrift.I64, true, "total_compressed_size"},
	{8, thrift.List, false, "key_value_metadata"},
	{9, thrift.I64, true, "data_page_offset"},
	{10, thrift.I64, false, "index_page_offset"},
	{11, thrift.I64, false, "dictionary_page_offset"},
	{12, thrift.Struct, false, "statistics"},
	{13, thrift.List, false, "encoding_stats"},
	{14, thrift.I64, false, "bloom_filter_offset"},
	{15, thrift.I32, false, "bloom_filter_length"},
	{16, thrift.Struct, false, "size_statistics"},
	{17, thrift.Struct, false, "geospatial_statistics"},
}}

func readColumnMetaData(r *thrift.Reader) (*ColumnMetaData, error) {
	m := &ColumnMetaData{}
	err := readStruct(r, &columnMetaDataSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			m.Type, err = readEnum[Type](r)
		case 2:
			var v []int32
			v, err = readI32List(r)
			m.Encodings = make([]Encoding, len(v))
			for i := range v {
				m.Encodings[i] = Encoding(v[i])
			}
		case 3:
			m.PathInSchema, err = readStringList(r)
		case 4:
			m.Codec, err = readEnum[CompressionCodec](r)
		case 5:
			m.NumValues, err = r.I64()
		case 6:
			m.TotalUncompressedSize, err = r.I64()
		case 7:
			m.TotalCompressedSize, err = r.I64()
		case 8:
			m.KeyValueMetadata, err = readKeyValues(r)
		case 9:
			m.DataPageOffset, err = r.I64()
		case 10:
			m.IndexPageOffset, err = optI64(r)
		case 11:
			m.DictionaryPageOffset, err = optI64(r)
		case 12:
			m.Statistics, err = readStatistics(r)
		case 13:
			m.EncodingStats, err = readList(r, thrift.Struct, minPageEncodingStats, func() (PageEncodingStats, error) { return readPageEncodingStats(r) })
		case 14:
			m.BloomFilterOffset, err = optI64(r)
		case 15:
			m.BloomFilterLength, err = optI32(r)
		case 16:
			m.SizeStatistics, err = readSizeStatistics(r)
		case 17:
			m.GeospatialStatistics, err = readGeospatialStatistics(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

var statisticsSpec = structSpec{name: "Statistics", fields: []field{
	{1, thrift.Binary, false, "max"},
	{2, thrift.Binary, false, "min"},
	{3, thrift.I64, false, "null_count"},
	{4, thrift.I64, false, "distinct_count"},
	{5, thrift.Binary, false, "max_value"},
	{6, thrift.Binary, false, "min_value"},
	{7, thrift.BoolTrue, false, "is_max_value_exact"},
	{8, thrift.BoolTrue, false, "is_min_value_exact"},
	{9, thrift.I64, false, "nan_count"},
}}

func readStatistics(r *thrift.Reader) (*Statistics, error) {
	s := &Statistics{}
	err := readStruct(r, &statisticsSpec, func(f *field, t thrift.Type) (err error) {
		switch f.id {
		case 1:
			s.Max, err = r.Binary()
		case 2:
			s.Min, err = r.Binary()
		case 3:
			s.NullCount, err = optI64(r)
		case 4:
			s.DistinctCount, err = optI64(r)
		case 5:
			s.MaxValue, err = r.Binary()
		case 6:
			s.MinValue, err = r.Binary()
		case 7:
			s.IsMaxValueExact = optBool(t)
		case 8:
			s.IsMinValueExact = optBool(t)
		case 9:
			s.NanCount, err = optI64(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

var pageEncodingStatsSpec = structSpec{name: "PageEncodingStats", fields: []field{
	{1, thrift.I32, true, "page_type"},
	{2, thrift.I32, true, "encoding"},
	{3, thrift.I32, true, "count"},
}}

func readPageEncodingStats(r *thrift.Reader) (PageEncodingStats, error) {
	var s PageEncodingStats
	err := readStruct(r, &pageEncodingStatsSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			s.PageType, err = readEnum[PageType](r)
		case 2:
			s.Encoding, err = readEnum[Encoding](r)
		case 3:
			s.Count, err = r.I32()
		}
		return err
	})
	return s, err
}

var sizeStatisticsSpec = structSpec{name: "SizeStatistics", fields: []field{
	{1, thrift.I64, false, "unencoded_byte_array_data_bytes"},
	{2, thrift.List, false, "repetition_level_histogram"},
	{3, thrift.List, false, "definition_level_histogram"},
}}

func readSizeStatistics(r *thrift.Reader) (*SizeStatistics, error) {
	s := &SizeStatistics{}
	err := readStruct(r, &sizeStatisticsSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			s.UnencodedByteArrayDataBytes, err = optI64(r)
		case 2:
			s.RepetitionLevelHistogram, err = readI64List(r)
		case 3:
			s.DefinitionLevelHistogram, err = readI64List(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

var geospatialStatisticsSpec = structSpec{name: "GeospatialStatistics", fields: []field{
	{1, thrift.Struct, false, "bbox"},
	{2, thrift.List, false, "geospatial_types"},
}}

func readGeospatialStatistics(r *thrift.Reader) (*GeospatialStatistics, error) {
	g := &GeospatialStatistics{}
	err := readStruct(r, &geospatialStatisticsSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			g.BBox, err = readBoundingBox(r)
		case 2:
			g.GeospatialTypes, err = readI32List(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

var boundingBoxSpec = structSpec{name: "BoundingBox", fields: []field{
	{1, thrift.Double, true, "xmin"},
	{2, thrift.Double, true, "xmax"},
	{3, thrift.Double, true, "ymin"},
	{4, thrift.Double, true, "ymax"},
	{5, thrift.Double, false, "zmin"},
	{6, thrift.Double, false, "zmax"},
	{7, thrift.Double, false, "mmin"},
	{8, thrift.Double, false, "mmax"},
}}

func readBoundingBox(r *thrift.Reader) (*BoundingBox, error) {
	b := &BoundingBox{}
	err := readStruct(r, &boundingBoxSpec, func(f *field, _ thrift.Type) (err error) {
		switch f.id {
		case 1:
			b.Xmin, err = r.Double()
		case 2:
			b.Xmax, err = r.Double()
		case 3:
			b.Ymin, err = r.Double()
		case 4:
			b.Ymax, err = r.Double()
		case 5:
			b.Zmin, err = optDouble(r)
		case 6:
			b.Zmax, err = optDouble(r)
		case 7:
			b.Mmin, err = optDouble(r)
		case 8:
			b.Mmax, err = optDouble(r)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}
