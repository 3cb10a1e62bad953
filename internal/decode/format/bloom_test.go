package format

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_DecodeBloomFilterHeader_files decodes the Bloom filter headers that the footers of the
// corpus point to and checks that header plus bitset fill bloom_filter_length exactly.
func Test_DecodeBloomFilterHeader_files(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		filters int  // chunks with a bloom_filter_offset
		length  bool // whether bloom_filter_length is set
	}{
		{name: "with length", file: "parquet-testing/data/data_index_bloom_encoding_with_length.parquet", filters: 1, length: true},
		{name: "offset only", file: "parquet-testing/data/data_index_bloom_encoding_stats.parquet", filters: 1},
		{name: "duckdb int32", file: "hyparquet/bloom_filter.parquet", filters: 2, length: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := testcorpus.Read(t, tc.file)
			meta, _, _ := footer(file)
			m, err := DecodeFileMetaData(meta)
			require.NoError(t, err)
			var filters int
			for _, rg := range m.RowGroups {
				for _, c := range rg.Columns {
					md := c.MetaData
					if md.BloomFilterOffset == nil {
						continue
					}
					filters++
					require.Equal(t, tc.length, md.BloomFilterLength != nil)
					h, n, err := DecodeBloomFilterHeader(file[*md.BloomFilterOffset:])
					require.NoError(t, err)
					require.True(t, h.Usable(), h)
					require.True(t, h.NumBytes >= 32 && h.NumBytes&(h.NumBytes-1) == 0, "numBytes", h.NumBytes)
					require.True(t, *md.BloomFilterOffset+int64(n)+int64(h.NumBytes) <= int64(len(file)))
					if md.BloomFilterLength != nil {
						require.Equal(t, int64(*md.BloomFilterLength), int64(n)+int64(h.NumBytes))
					}
				}
			}
			require.Equal(t, tc.filters, filters)
		})
	}
}

// Test_DecodeBloomFilterHeader_bare decodes the stand-alone filter files of parquet-testing.
func Test_DecodeBloomFilterHeader_bare(t *testing.T) {
	b := testcorpus.Read(t, "parquet-testing/data/bloom_filter.xxhash.bin")
	h, n, err := DecodeBloomFilterHeader(b)
	require.NoError(t, err)
	require.Equal(t, BloomFilterHeader{NumBytes: h.NumBytes, Algorithm: BloomBlock, Hash: BloomXXHash,
		Compression: BloomUncompressed}, *h)
	require.Equal(t, len(b), n+int(h.NumBytes))

	// The old format (murmur3 hash, before xxHash was chosen) must not be mistaken for a
	// usable filter.
	b = testcorpus.Read(t, "parquet-testing/data/bloom_filter.bin")
	h, _, err = DecodeBloomFilterHeader(b)
	if err == nil {
		require.True(t, !h.Usable(), "old-format filter decoded as usable", h)
	}
	t.Logf("old format: %+v, %v", h, err)
}

func Test_DecodeBloomFilterHeader_malformed(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		err  string
	}{
		{name: "empty", in: nil, err: "format: empty input"},
		{name: "negative numBytes", in: []byte{0x15, 0x01, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0},
			err: "format: BloomFilterHeader.numBytes: invalid value: numBytes is -1"},
		{name: "missing hash", in: []byte{0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x2c, 0x1c, 0, 0, 0},
			err: "format: BloomFilterHeader.hash: required field missing"},
		{name: "truncated", in: []byte{0x15, 0x40, 0x1c, 0x1c},
			err: "format: BloomFilterHeader.algorithm: thrift: truncated input at offset 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodeBloomFilterHeader(tc.in)
			require.ErrorContains(t, err, tc.err)
		})
	}
}
