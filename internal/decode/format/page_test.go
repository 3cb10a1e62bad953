package format

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// walkChunk decodes every page header of a column chunk, checking that the pages tile the
// chunk exactly, that only the first page is a dictionary page, that the data pages' value
// counts add up to the chunk's, and (when the chunk has an offset index) that the data pages
// sit exactly where the offset index says. It returns the number of pages.
func walkChunk(file []byte, m *FileMetaData, c *ColumnChunk) (int, error) {
	md := c.MetaData
	// A dictionary_page_offset of 0 means none (pt/dict-page-offset-zero); a data_page_offset
	// of 0 occurs in dictionary-only chunks of empty files (hy/issue97).
	start := md.DataPageOffset
	if d := md.DictionaryPageOffset; d != nil && *d > 0 {
		start = *d
	}
	end := start + md.TotalCompressedSize
	if start < 0 || md.TotalCompressedSize < 0 || end > int64(len(file)) {
		return 0, fmt.Errorf("chunk [%d,%d) outside file", start, end)
	}
	var locs []PageLocation
	if c.OffsetIndexOffset != nil && c.OffsetIndexLength != nil {
		oi, err := DecodeOffsetIndex(file[*c.OffsetIndexOffset : *c.OffsetIndexOffset+int64(*c.OffsetIndexLength)])
		if err != nil {
			return 0, err
		}
		locs = oi.PageLocations
	}
	var pages, dataPages int
	var values int64
	for off := start; off < end; {
		h, n, err := DecodePageHeader(file[off:end])
		if err != nil {
			return pages, fmt.Errorf("page %d at %d: %w", pages, off, err)
		}
		size := int64(n) + int64(h.CompressedPageSize)
		if off+size > end {
			return pages, fmt.Errorf("page %d at %d: size %d runs past chunk end %d", pages, off, size, end)
		}
		switch h.Type {
		case DictionaryPage:
			if pages != 0 || h.DictionaryPageHeader == nil {
				return pages, fmt.Errorf("page %d at %d: misplaced dictionary page", pages, off)
			}
		case DataPage, DataPageV2:
			if h.Type == DataPage && h.DataPageHeader == nil || h.Type == DataPageV2 && h.DataPageHeaderV2 == nil {
				return pages, fmt.Errorf("page %d at %d: %v without its header", pages, off, h.Type)
			}
			if h.DataPageHeader != nil {
				values += int64(h.DataPageHeader.NumValues)
			} else {
				values += int64(h.DataPageHeaderV2.NumValues)
			}
			if locs != nil {
				if dataPages >= len(locs) || locs[dataPages].Offset != off || int64(locs[dataPages].CompressedPageSize) != size {
					return pages, fmt.Errorf("page %d at %d size %d: offset index disagrees", pages, off, size)
				}
			}
			dataPages++
		}
		pages++
		off += size
	}
	if values != md.NumValues {
		return pages, fmt.Errorf("data pages hold %d values, chunk says %d", values, md.NumValues)
	}
	if locs != nil && dataPages != len(locs) {
		return pages, fmt.Errorf("%d data pages, offset index has %d", dataPages, len(locs))
	}
	return pages, nil
}

// Test_DecodePageHeader_walk walks every page header of every readable corpus file.
func Test_DecodePageHeader_walk(t *testing.T) {
	// Files whose page walk must fail, with the reason; testdata/README.md documents each.
	wantErr := map[string]string{
		"parquet-testing/data/nation.dict-malformed.parquet": "runs past chunk end",
		"hyparquet/nation.dict-malformed.parquet":            "runs past chunk end",
		// The first page header's num_values is written as an i16, so it is absent for i32.
		"parquet-testing/bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet": "data_page_header.num_values: required field missing",
		// Column 27's pages cover 54 of its 58 bytes; 4 bytes cannot hold a page header.
		"parquet-testing/bad_data/ARROW-GH-41321.parquet": "column 27: page 2 at 4561: format: PageHeader: thrift: truncated input at offset 4",
		// Column 0's data page headers claim 21 values, the chunk 1.
		"parquet-testing/bad_data/ARROW-RS-GH-6229-LEVELS.parquet": "data pages hold 21 values, chunk says 1",
		// Columns of unequal length: column 18 says 3 values but has no data page.
		"parquet-testing/bad_data/ARROW-GH-41317.parquet": "column 18: data pages hold 0 values, chunk says 3",
	}
	var total int
	for _, name := range testcorpus.Files(t, ".parquet") {
		if strings.Contains(name, "fuzzing/") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			file := testcorpus.Read(t, name)
			meta, _, ok := footer(file)
			require.True(t, ok)
			m, err := DecodeFileMetaData(meta)
			require.NoError(t, err)
			var walkErr error
			for _, rg := range m.RowGroups {
				for i := range rg.Columns {
					n, err := walkChunk(file, m, &rg.Columns[i])
					total += n
					if err != nil && walkErr == nil {
						walkErr = fmt.Errorf("column %d: %w", i, err)
					}
				}
			}
			if reason, bad := wantErr[name]; bad {
				require.ErrorContains(t, walkErr, reason)
				t.Logf("rejected as expected: %v", walkErr)
				return
			}
			require.NoError(t, walkErr)
		})
	}
	t.Logf("%d page headers decoded", total)
}
