package codec

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// corpusPage is one compressed page body found in a corpus file.
type corpusPage struct {
	codec            Codec
	body             []byte // the compressed part (after v2 levels)
	uncompressedSize int
}

// walkPages returns every page of every column chunk of a Parquet file, using decode/format's
// footer and page header decoders. Encrypted chunks are skipped.
func walkPages(file []byte) ([]corpusPage, error) {
	if len(file) < 12 || string(file[len(file)-4:]) != "PAR1" {
		return nil, fmt.Errorf("not a plaintext parquet file")
	}
	flen := int(binary.LittleEndian.Uint32(file[len(file)-8:]))
	if flen > len(file)-12 {
		return nil, fmt.Errorf("footer length %d", flen)
	}
	md, err := format.DecodeFileMetaData(file[len(file)-8-flen : len(file)-8])
	if err != nil {
		return nil, err
	}
	var pages []corpusPage
	for _, rg := range md.RowGroups {
		for _, cc := range rg.Columns {
			m := cc.MetaData
			if m == nil || cc.IsEncrypted() {
				continue
			}
			start := m.DataPageOffset
			if d := m.DictionaryPageOffset; d != nil && *d > 0 && *d < start {
				start = *d
			}
			end := start + m.TotalCompressedSize
			if start < 0 || end > int64(len(file)) || end < start {
				return nil, fmt.Errorf("chunk [%d,%d) outside file", start, end)
			}
			pos := start
			for pos < end {
				h, n, err := format.DecodePageHeader(file[pos:end])
				if err != nil {
					return nil, fmt.Errorf("page header at %d: %w", pos, err)
				}
				bodyStart := pos + int64(n)
				bodyEnd := bodyStart + int64(h.CompressedPageSize)
				if bodyEnd > end {
					return nil, fmt.Errorf("page at %d overruns its chunk", pos)
				}
				body, size := file[bodyStart:bodyEnd], int(h.UncompressedPageSize)
				codec := Codec(m.Codec)
				if v2 := h.DataPageHeaderV2; v2 != nil {
					levels := int(v2.DefinitionLevelsByteLength + v2.RepetitionLevelsByteLength)
					body, size = body[levels:], size-levels
					// PyArrow < 3.0 compressed v2 pages even with is_compressed=false
					// (ARROW-17100.parquet, ARROW-10353); the length tells them apart.
					if !v2.IsCompressed && len(body) == size {
						codec = Uncompressed
					}
				}
				pages = append(pages, corpusPage{codec: codec, body: body, uncompressedSize: size})
				pos = bodyEnd
			}
		}
	}
	return pages, nil
}

// Test_Decompress_corpus decompresses every page of every valid corpus file and checks its
// length against the page header; corpus files named in the codec task are required to have
// pages of the codec they are about.
func Test_Decompress_corpus(t *testing.T) {
	mustHave := map[string]Codec{
		"parquet-testing/data/concatenated_gzip_members.parquet":         Gzip,
		"parquet-testing/data/hadoop_lz4_compressed.parquet":             LZ4,
		"parquet-testing/data/hadoop_lz4_compressed_larger.parquet":      LZ4,
		"parquet-testing/data/non_hadoop_lz4_compressed.parquet":         LZ4,
		"parquet-testing/data/lz4_raw_compressed.parquet":                LZ4Raw,
		"parquet-testing/data/lz4_raw_compressed_larger.parquet":         LZ4Raw,
		"parquet-testing/data/page_v2_empty_compressed.parquet":          Zstd,
		"parquet-testing/data/large_string_map.brotli.parquet":           Brotli,
		"parquet-testing/data/datapage_v2.snappy.parquet":                Snappy,
		"parquet-testing/data/byte_stream_split.zstd.parquet":            Zstd,
		"parquet-testing/data/datapage_v2_empty_datapage.snappy.parquet": Snappy,
		"hyparquet/brotli_compressed.parquet":                            Brotli,
	}
	perCodec := map[Codec]int{}
	var buf []byte
	for _, name := range testcorpus.Files(t, ".parquet") {
		if strings.Contains(name, "bad_data/") || strings.Contains(name, "fuzzing/") {
			continue
		}
		file := testcorpus.Read(t, name)
		pages, err := walkPages(file)
		if err != nil {
			t.Logf("%s: cannot walk pages (%v); skipped", name, err)
			require.True(t, mustHave[name] == 0, name)
			continue
		}
		found := false
		for i, p := range pages {
			const maxSize = 64 << 20
			if p.uncompressedSize > maxSize {
				// large_string_map.brotli.parquet: a 1 GiB page in 4 KB of brotli. The cap
				// must refuse it before decoding.
				_, err := Decompress(buf, p.codec, p.body, p.uncompressedSize, maxSize)
				require.ErrorIs(t, err, ErrTooLarge, name, "page", i)
				t.Logf("%s page %d: %d-byte %s page refused by the %d-byte cap", name, i, p.uncompressedSize, p.codec, maxSize)
				found = found || p.codec == mustHave[name]
				continue
			}
			out, err := Decompress(buf, p.codec, p.body, p.uncompressedSize, maxSize)
			require.NoError(t, err, name, "page", i, p.codec)
			require.Equal(t, p.uncompressedSize, len(out), name, "page", i)
			buf = out
			perCodec[p.codec]++
			found = found || p.codec == mustHave[name]
		}
		if c, ok := mustHave[name]; ok {
			require.True(t, found, name, "has no", c, "page")
		}
	}
	t.Logf("pages decompressed per codec: %v", perCodec)
	for _, c := range []Codec{Uncompressed, Snappy, Gzip, Brotli, LZ4, Zstd, LZ4Raw} {
		require.True(t, perCodec[c] > 0, "no corpus page for", c)
	}
}

// Test_Decompress_corpusMalformed runs the malformed and fuzz-regression files through the same
// walk: errors are expected, panics and unbounded allocations are not.
func Test_Decompress_corpusMalformed(t *testing.T) {
	n := 0
	for _, name := range testcorpus.Files(t, "") {
		if !strings.Contains(name, "bad_data/") && !strings.Contains(name, "fuzzing/") {
			continue
		}
		pages, err := walkPages(testcorpus.Read(t, name))
		if err != nil {
			continue
		}
		for _, p := range pages {
			_, _ = Decompress(nil, p.codec, p.body, p.uncompressedSize, 16<<20)
			n++
		}
	}
	t.Logf("%d pages of malformed files tried", n)
}

// Test_LZ4_corpusFraming checks which LZ4 path each corpus file takes: Hadoop framing for the
// hadoop_* files (several frames in one page for the larger one), raw-block fallback for the
// file written by old parquet-cpp.
func Test_LZ4_corpusFraming(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		hadoop    bool
		minFrames int
	}{
		{name: "hadoop", file: "hadoop_lz4_compressed", hadoop: true, minFrames: 1},
		{name: "hadoop larger", file: "hadoop_lz4_compressed_larger", hadoop: true, minFrames: 2},
		{name: "old parquet-cpp raw", file: "non_hadoop_lz4_compressed", hadoop: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pages, err := walkPages(testcorpus.Read(t, "parquet-testing/data/"+tc.file+".parquet"))
			require.NoError(t, err)
			maxFrames := 0
			for _, p := range pages {
				out := make([]byte, p.uncompressedSize)
				require.Equal(t, tc.hadoop, tryHadoopLZ4(out, p.body))
				if !tc.hadoop {
					n, err := decodeLZ4Block(out, p.body)
					require.NoError(t, err)
					require.Equal(t, p.uncompressedSize, n)
					continue
				}
				frames := 0
				for b := p.body; len(b) >= 8; frames++ {
					b = b[8+binary.BigEndian.Uint32(b[4:]):]
				}
				maxFrames = max(maxFrames, frames)
			}
			require.True(t, maxFrames >= tc.minFrames, "frames", maxFrames)
		})
	}
}
