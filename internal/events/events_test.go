package events

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

func gen(t *testing.T, cfg Config) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Generate(&b, cfg))
	return b.Bytes()
}

// footer decodes a file's FileMetaData with internal/decode/format.
func footer(t *testing.T, b []byte) *format.FileMetaData {
	t.Helper()
	require.Equal(t, format.Magic, string(b[len(b)-4:]))
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	meta, err := format.DecodeFileMetaData(b[len(b)-8-n : len(b)-8])
	require.NoError(t, err)
	return meta
}

func Test_Generate_deterministic(t *testing.T) {
	cfg := Config{Rows: 5000, Layout: Sorted, RowGroupRows: 2048}
	a, b := gen(t, cfg), gen(t, cfg)
	require.True(t, bytes.Equal(a, b), "two runs of the same config differ")
	c := gen(t, Config{Rows: 5000, Layout: Sorted, RowGroupRows: 2048, Seed: 7})
	require.True(t, !bytes.Equal(a, c), "a different seed gives the same file")
}

func Test_Generate_layouts(t *testing.T) {
	const rows = 20000
	tests := []struct {
		name      string
		cfg       Config
		rgRows    int64
		pageIndex bool
		sorted    bool
	}{
		{name: "sorted", cfg: Config{Rows: rows, Layout: Sorted, RowGroupRows: 8192}, rgRows: 8192, pageIndex: true, sorted: true},
		{name: "small-rg", cfg: Config{Rows: rows, Layout: SmallRG, RowGroupRows: 4096}, rgRows: 4096, sorted: true},
		{name: "unsorted", cfg: Config{Rows: rows, Layout: Unsorted, RowGroupRows: 8192}, rgRows: 8192, pageIndex: true},
		{name: "default row groups", cfg: Config{Rows: rows}, rgRows: 1 << 20, pageIndex: true, sorted: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			meta := footer(t, gen(t, tc.cfg))
			require.Equal(t, int64(rows), meta.NumRows)
			require.Equal(t, 7, len(meta.Schema)-1)
			want := (rows + int(tc.rgRows) - 1) / int(tc.rgRows)
			require.Equal(t, want, len(meta.RowGroups))
			prevTenant := int64(-1)
			for i, rg := range meta.RowGroups {
				wantRows := min(tc.rgRows, rows-int64(i)*tc.rgRows)
				require.Equal(t, wantRows, rg.NumRows, "row group", i)
				if tc.sorted {
					require.Equal(t, 2, len(rg.SortingColumns), "row group", i)
					require.Equal(t, int32(ColTenantID), rg.SortingColumns[0].ColumnIdx)
					require.Equal(t, int32(ColEventTime), rg.SortingColumns[1].ColumnIdx)
					// Row groups follow each other in tenant order.
					st := rg.Columns[ColTenantID].MetaData.Statistics
					lo := int64(binary.LittleEndian.Uint64(st.MinValue))
					hi := int64(binary.LittleEndian.Uint64(st.MaxValue))
					require.True(t, lo >= prevTenant && hi >= lo, "row group", i, "tenant range", lo, hi, "after", prevTenant)
					prevTenant = hi
				} else {
					require.Equal(t, 0, len(rg.SortingColumns), "row group", i)
				}
				for j, cc := range rg.Columns {
					cm := cc.MetaData
					require.True(t, cm != nil, "column", j)
					require.Equal(t, format.CompressionCodec(6), cm.Codec, "zstd, column", j) // ZSTD = 6
					require.Equal(t, tc.pageIndex, cc.OffsetIndexOffset != nil && cc.OffsetIndexLength != nil, "offset index, column", j)
					require.Equal(t, tc.pageIndex, cc.ColumnIndexOffset != nil && cc.ColumnIndexLength != nil, "column index, column", j)
					require.Equal(t, j == ColUserID, cm.BloomFilterOffset != nil, "bloom filter, column", j)
					require.Equal(t, j == ColUserID, cm.BloomFilterLength != nil, "bloom filter length, column", j)
				}
			}
		})
	}
}

// Test_Generate_pages checks that data pages stay near the configured size: in a 20000-row
// row group the payload column (about 2.8 MB of text) outgrows arrow-go's 1 MiB dictionary
// limit and falls back to PLAIN pages of about PageSize bytes.
func Test_Generate_pages(t *testing.T) {
	b := gen(t, Config{Rows: 20000, Layout: Sorted})
	meta := footer(t, b)
	cc := meta.RowGroups[0].Columns[ColPayload]
	oi, err := format.DecodeOffsetIndex(b[*cc.OffsetIndexOffset : *cc.OffsetIndexOffset+int64(*cc.OffsetIndexLength)])
	require.NoError(t, err)
	plain := 0
	for _, p := range oi.PageLocations[:len(oi.PageLocations)-1] {
		h, _, err := format.DecodePageHeader(b[p.Offset:])
		require.NoError(t, err)
		if h.DataPageHeader.Encoding != format.Plain {
			continue
		}
		plain++
		require.True(t, h.UncompressedPageSize > PageSize/2 && h.UncompressedPageSize < 2*PageSize, "uncompressed page size", h.UncompressedPageSize)
	}
	require.True(t, plain >= 10, "PLAIN payload pages:", plain)
}

// Test_Generate_tenants: Tenants and FirstTenantID choose the tenant ids (every id in range,
// the file sorted by them); the defaults are 5,000 tenants from 1000; the cache name tells
// the configurations apart.
func Test_Generate_tenants(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		lo, hi  int64 // the ids' range
		file    string
		badArgs bool
	}{
		{name: "default", cfg: Config{Rows: 4000}, lo: 1000, hi: 5999, file: "events-v1-sorted-4000-rg1048576.parquet"},
		{name: "200 from 1", cfg: Config{Rows: 4000, Tenants: 200, FirstTenantID: 1}, lo: 1, hi: 200, file: "events-v1-sorted-4000-rg1048576-t200-1.parquet"},
		{name: "3 from the default id", cfg: Config{Rows: 4000, Tenants: 3}, lo: 1000, hi: 1002, file: "events-v1-sorted-4000-rg1048576-t3-1000.parquet"},
		{name: "negative first id", cfg: Config{Rows: 10, FirstTenantID: -5}, badArgs: true},
		{name: "too many tenants", cfg: Config{Rows: 10, Tenants: 1 << 17}, badArgs: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.badArgs {
				require.Error(t, Generate(&bytes.Buffer{}, tc.cfg))
				return
			}
			require.Equal(t, tc.file, FileName(tc.cfg))
			meta := footer(t, gen(t, tc.cfg))
			st := meta.RowGroups[0].Columns[ColTenantID].MetaData.Statistics
			lo := int64(binary.LittleEndian.Uint64(st.MinValue))
			hi := int64(binary.LittleEndian.Uint64(st.MaxValue))
			require.True(t, lo >= tc.lo && hi <= tc.hi && lo <= hi, "tenant ids", lo, hi, "want within", tc.lo, tc.hi)
		})
	}
}
