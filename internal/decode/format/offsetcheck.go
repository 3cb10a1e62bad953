package format

// ChunkStart is where a column chunk's first page starts: its dictionary page when
// dictionary_page_offset is set (and precedes the data), else data_page_offset.
func ChunkStart(cm *ColumnMetaData) int64 {
	start := cm.DataPageOffset
	if d := cm.DictionaryPageOffset; d != nil && *d > 0 && *d < start {
		start = *d
	}
	return start
}

// TilesChunk reports whether the offset index is consistent with its column chunk
// (parquet-format PageIndex.md): the first page starts at or after the chunk's first data page,
// each next one where the previous ends, the last ends where the chunk ends (at
// ChunkStart + total_compressed_size), and first rows start at 0 and increase below rows.
//
// Writers that recorded compressed_page_size without the page header (old segmentio
// parquet-go, "parquet-go version latest", and Parquet.Net) leave gaps between locations and
// end early, so their indexes fail this check; a reader must then walk the page headers and
// must not prune with the chunk's column index.
func (oi *OffsetIndex) TilesChunk(cm *ColumnMetaData, rows int64) bool {
	pl := oi.PageLocations
	start := ChunkStart(cm)
	if len(pl) == 0 || pl[0].FirstRowIndex != 0 {
		return false
	}
	// The first page may follow a dictionary page even without dictionary_page_offset: some
	// writers point data_page_offset at the dictionary page (alltypes_tiny_pages.parquet).
	if pl[0].Offset < start || pl[0].Offset < cm.DataPageOffset && cm.DictionaryPageOffset != nil {
		return false
	}
	end := start + cm.TotalCompressedSize
	next := pl[0].Offset
	for i, p := range pl {
		if p.Offset != next || p.CompressedPageSize <= 0 || p.Offset+int64(p.CompressedPageSize) > end {
			return false
		}
		if i > 0 && p.FirstRowIndex <= pl[i-1].FirstRowIndex || p.FirstRowIndex >= rows {
			return false
		}
		next = p.Offset + int64(p.CompressedPageSize)
	}
	return next == end
}
