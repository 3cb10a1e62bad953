package format

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_OffsetIndex_TilesChunk(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	// A chunk at [100, 160): a 10-byte dictionary page, then pages of 20 and 30 bytes.
	dictCM := &ColumnMetaData{DictionaryPageOffset: i64(100), DataPageOffset: 110, TotalCompressedSize: 60}
	loc := func(off int64, size int32, first int64) PageLocation {
		return PageLocation{Offset: off, CompressedPageSize: size, FirstRowIndex: first}
	}
	tests := []struct {
		name string
		cm   *ColumnMetaData
		locs []PageLocation
		want bool
	}{
		{name: "honest", cm: dictCM, locs: []PageLocation{loc(110, 20, 0), loc(130, 30, 5)}, want: true},
		{name: "sizes without headers (segmentio parquet-go, Parquet.Net)", cm: dictCM, locs: []PageLocation{loc(110, 14, 0), loc(130, 24, 5)}},
		{name: "one page without its header ends early", cm: &ColumnMetaData{DataPageOffset: 100, TotalCompressedSize: 20}, locs: []PageLocation{loc(100, 14, 0)}},
		{name: "first page inside the dictionary", cm: dictCM, locs: []PageLocation{loc(105, 25, 0), loc(130, 30, 5)}},
		{name: "dictionary at data_page_offset, no dictionary_page_offset", cm: &ColumnMetaData{DataPageOffset: 100, TotalCompressedSize: 60},
			locs: []PageLocation{loc(110, 20, 0), loc(130, 30, 5)}, want: true},
		{name: "overlapping pages", cm: dictCM, locs: []PageLocation{loc(110, 25, 0), loc(130, 30, 5)}},
		{name: "past the chunk", cm: dictCM, locs: []PageLocation{loc(110, 20, 0), loc(130, 40, 5)}},
		{name: "first row not 0", cm: dictCM, locs: []PageLocation{loc(110, 20, 1), loc(130, 30, 5)}},
		{name: "first rows not increasing", cm: dictCM, locs: []PageLocation{loc(110, 20, 0), loc(130, 30, 0)}},
		{name: "first row past the row group", cm: dictCM, locs: []PageLocation{loc(110, 20, 0), loc(130, 30, 10)}},
		{name: "empty", cm: dictCM},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oi := &OffsetIndex{PageLocations: tc.locs}
			require.Equal(t, tc.want, oi.TilesChunk(tc.cm, 10))
		})
	}
}
