package scan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
)

func TestIndexStart(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	chunk := func(dict, data, size int64, bloom, ci, oi *int64) format.ColumnChunk {
		md := &format.ColumnMetaData{DataPageOffset: data, TotalCompressedSize: size, BloomFilterOffset: bloom}
		if dict > 0 {
			md.DictionaryPageOffset = p(dict)
		}
		return format.ColumnChunk{MetaData: md, ColumnIndexOffset: ci, OffsetIndexOffset: oi}
	}
	for _, c := range []struct {
		name   string
		chunks []format.ColumnChunk
		want   int64
	}{
		// A dictionary page first: the chunk ends at dict + size, not data + size.
		{"bloom filters right after a dictionary-encoded chunk", []format.ColumnChunk{
			chunk(4, 50, 100, nil, p(300), p(400)), chunk(104, 150, 100, p(204), p(310), p(410))}, 204},
		{"page index only", []format.ColumnChunk{chunk(0, 4, 100, nil, p(104), p(200))}, 104},
		{"an index between chunks", []format.ColumnChunk{chunk(0, 4, 100, nil, p(104), p(200)), chunk(0, 110, 100, nil, nil, nil)}, 0},
		{"no index", []format.ColumnChunk{chunk(0, 4, 100, nil, nil, nil)}, 0},
	} {
		m := &format.FileMetaData{RowGroups: []format.RowGroup{{Columns: c.chunks}}}
		if got := indexStart(m); got != c.want {
			t.Errorf("%s: indexStart %d, want %d", c.name, got, c.want)
		}
	}
}
