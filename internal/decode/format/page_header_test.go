package format

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// v2Header builds a PageHeader for a DATA_PAGE_V2 with the given v2 fields appended by extra.
func v2Header(compressed int32, extra func(w) w) w {
	b := w{}.i32(1, int32(DataPageV2)).i32(1, 100).i32(1, compressed).st(5) // field 8
	b = b.i32(1, 10).i32(1, 2).i32(1, 10).i32(1, int32(Plain)).i32(1, 3).i32(1, 0)
	if extra != nil {
		b = extra(b)
	}
	return b.stop().stop()
}

func Test_DecodePageHeader(t *testing.T) {
	dict := w{}.i32(1, int32(DictionaryPage)).i32(1, 40).i32(1, 30).i32(1, -5).st(3). // field 7
												i32(1, 4).i32(1, int32(PlainDictionary)).boolean(1, true).stop().stop()
	tests := []struct {
		name string
		in   w
		want PageHeader
	}{
		{
			name: "v2 without is_compressed defaults to compressed",
			in:   v2Header(50, nil),
			want: PageHeader{Type: DataPageV2, UncompressedPageSize: 100, CompressedPageSize: 50,
				DataPageHeaderV2: &DataPageHeaderV2{NumValues: 10, NumNulls: 2, NumRows: 10,
					Encoding: Plain, DefinitionLevelsByteLength: 3, IsCompressed: true}},
		},
		{
			name: "v2 with is_compressed false",
			in:   v2Header(50, func(b w) w { return b.boolean(1, false) }),
			want: PageHeader{Type: DataPageV2, UncompressedPageSize: 100, CompressedPageSize: 50,
				DataPageHeaderV2: &DataPageHeaderV2{NumValues: 10, NumNulls: 2, NumRows: 10,
					Encoding: Plain, DefinitionLevelsByteLength: 3, IsCompressed: false}},
		},
		{
			name: "dictionary page with crc and is_sorted",
			in:   dict,
			want: PageHeader{Type: DictionaryPage, UncompressedPageSize: 40, CompressedPageSize: 30,
				CRC: ptr(int32(-5)), DictionaryPageHeader: &DictionaryPageHeader{NumValues: 4,
					Encoding: PlainDictionary, IsSorted: ptr(true)}},
		},
		{
			name: "v1 with statistics and an unknown field",
			in: w{}.i32(1, int32(DataPage)).i32(1, 8).i32(1, 8).st(2). // field 5
											i32(1, 2).i32(1, int32(RLEDictionary)).i32(1, int32(RLE)).i32(1, int32(BitPacked)).
											st(1).bin(1, "z").bin(1, "a").i64(1, 0).stop(). // statistics
											stop().bin(15, "future field 20").stop(),
			want: PageHeader{Type: DataPage, UncompressedPageSize: 8, CompressedPageSize: 8,
				DataPageHeader: &DataPageHeader{NumValues: 2, Encoding: RLEDictionary,
					DefinitionLevelEncoding: RLE, RepetitionLevelEncoding: BitPacked,
					Statistics: &Statistics{Max: []byte("z"), Min: []byte("a"), NullCount: ptr(int64(0))}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Page data follows the header: n must stop at the header's end.
			in := append(append(w{}, tc.in...), "PAGEDATA"...)
			h, n, err := DecodePageHeader(in)
			require.NoError(t, err)
			require.Equal(t, len(tc.in), n)
			require.Equal(t, tc.want, *h)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func Test_DecodePageHeader_malformed(t *testing.T) {
	tests := []struct {
		name string
		in   w
		err  string
	}{
		{name: "empty", in: w{}, err: "format: empty input"},
		{name: "only stop", in: w{}.stop(), err: "format: PageHeader.type: required field missing"},
		{name: "negative compressed size", in: w{}.i32(1, 0).i32(1, 1).i32(1, -1).stop(),
			err: "format: PageHeader.compressed_page_size: invalid value: compressed_page_size is -1"},
		{name: "negative uncompressed size", in: w{}.i32(1, 0).i32(1, -1).i32(1, 1).stop(),
			err: "format: PageHeader.uncompressed_page_size: invalid value"},
		{name: "negative num_values", in: w{}.i32(1, 0).i32(1, 1).i32(1, 1).st(2).i32(1, -3).
			i32(1, 0).i32(1, 3).i32(1, 3).stop().stop(),
			err: "format: PageHeader.data_page_header.num_values: invalid value: num_values is -3"},
		{name: "num_nulls above num_values", in: w{}.i32(1, 3).i32(1, 9).i32(1, 9).st(5).i32(1, 1).
			i32(1, 2).i32(1, 1).i32(1, 0).i32(1, 0).i32(1, 0).stop().stop(),
			err: "format: PageHeader.data_page_header_v2: invalid value: num_nulls 2 > num_values 1"},
		{name: "levels longer than page", in: v2Header(2, nil),
			err: "format: PageHeader: invalid value: level byte lengths 3 exceed compressed_page_size 2"},
		{name: "truncated in statistics", in: w{}.i32(1, 0).i32(1, 1).i32(1, 1).st(2).i32(1, 3).
			i32(1, 0).i32(1, 3).i32(1, 3).st(1).f(1, 8).varint(100).raw("abc"),
			err: "format: PageHeader.data_page_header.statistics.max: thrift: size exceeds remaining input at offset 17"},
		{name: "i32 overflow", in: w{}.i32(1, 0).f(1, 5).i(1 << 40),
			err: "format: PageHeader.uncompressed_page_size: thrift: malformed varint at offset 3"},
		{name: "missing stop", in: w{}.i32(1, 0).i32(1, 1).i32(1, 1),
			err: "format: PageHeader: thrift: truncated input at offset 6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, n, err := DecodePageHeader(tc.in)
			require.ErrorContains(t, err, tc.err)
			require.True(t, h == nil && n == 0)
		})
	}
}
