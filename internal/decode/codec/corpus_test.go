package codec

import (
	"encoding/binary"
	"errors"
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
			if m.NumValues == 0 && m.DataPageOffset == 0 {
				// A chunk of no values whose offsets point at the magic (pyarrow's empty
				// tables: issue97, column_chunk_key_value_metadata): no page to walk.
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

// corpusMinPages is the number of pages of each codec that Test_Decompress_corpus decompressed
// on the shared corpus when it was written: a floor (the corpus may grow), so that a walk or a
// codec that silently finds fewer pages fails.
var corpusMinPages = map[Codec]int{
	Uncompressed: 52297,
	Snappy:       910,
	Gzip:         37,
	Brotli:       9,
	LZ4:          19,
	Zstd:         1474,
	LZ4Raw:       7,
}

// corpusUnwalkable lists the valid-directory corpus files whose pages walkPages cannot walk,
// with the reason: any other walk failure fails the test.
var corpusUnwalkable = map[string]string{
	"parquet-testing/data/nation.dict-malformed.parquet": "page at 421 overruns its chunk", // malformed on purpose
}

// corpusRefused lists the pages whose header claims more than the test's 64 MiB cap: the cap
// must refuse them before decoding.
var corpusRefused = map[string]int{
	"parquet-testing/data/large_string_map.brotli.parquet": 2, // pages claiming 1 GiB in a few KB of brotli
}

// Test_Decompress_corpus decompresses every page of every valid corpus file and checks its
// length against the page header; corpus files named in the codec task are required to have
// pages of the codec they are about, and every codec must decompress at least the pages it did
// when the test was written (corpusMinPages).
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
	const maxSize = 64 << 20
	perCodec := map[Codec]int{}
	refused := map[string]int{}
	unwalkable := map[string]string{}
	var buf []byte
	for _, name := range testcorpus.Files(t, ".parquet") {
		if strings.Contains(name, "bad_data/") || strings.Contains(name, "fuzzing/") {
			continue
		}
		file := testcorpus.Read(t, name)
		pages, err := walkPages(file)
		if err != nil {
			unwalkable[name] = err.Error()
			continue
		}
		found := false
		for i, p := range pages {
			out, err := Decompress(buf, p.codec, p.body, p.uncompressedSize, maxSize)
			if p.uncompressedSize > maxSize {
				require.ErrorIs(t, err, ErrTooLarge, name, "page", i)
				require.Equal(t, 0, len(out), name, "page", i)
				refused[name]++
			} else {
				require.NoError(t, err, name, "page", i, p.codec)
				require.Equal(t, p.uncompressedSize, len(out), name, "page", i)
				buf = out
				perCodec[p.codec]++
			}
			found = found || p.codec == mustHave[name]
		}
		if c, ok := mustHave[name]; ok {
			require.True(t, found, name, "has no", c, "page")
		}
	}
	t.Logf("pages decompressed per codec: %v", perCodec)
	require.Equal(t, len(corpusMinPages), len(perCodec), "codecs exercised", perCodec)
	for _, c := range []Codec{Uncompressed, Snappy, Gzip, Brotli, LZ4, Zstd, LZ4Raw} {
		n := corpusMinPages[c]
		require.True(t, perCodec[c] >= n, c, "pages decompressed:", perCodec[c], "want at least", n)
	}
	require.Equal(t, fmt.Sprint(corpusUnwalkable), fmt.Sprint(unwalkable), "files whose pages cannot be walked")
	require.Equal(t, fmt.Sprint(corpusRefused), fmt.Sprint(refused), "pages refused by the cap")
}

// corpusMalformedMin is the number of pages of malformed and fuzz-regression files that
// Test_Decompress_corpusMalformed tried when it was written (a floor).
const corpusMalformedMin = 458

// Test_Decompress_corpusMalformed runs the malformed and fuzz-regression files through the same
// walk: errors are expected, panics and unbounded allocations are not. A page that decodes has
// the header's size; one that fails, fails with one of this package's errors.
func Test_Decompress_corpusMalformed(t *testing.T) {
	sentinels := []error{ErrUnknownCodec, ErrLZONotSupported, ErrInvalidSize, ErrTooLarge, ErrSizeMismatch, ErrCorrupt}
	n := 0
	for _, name := range testcorpus.Files(t, "") {
		if !strings.Contains(name, "bad_data/") && !strings.Contains(name, "fuzzing/") {
			continue
		}
		pages, err := walkPages(testcorpus.Read(t, name))
		if err != nil {
			continue
		}
		for i, p := range pages {
			out, err := Decompress(nil, p.codec, p.body, p.uncompressedSize, 16<<20)
			if err == nil {
				require.Equal(t, p.uncompressedSize, len(out), name, "page", i)
			} else {
				known := false
				for _, s := range sentinels {
					known = known || errors.Is(err, s)
				}
				require.True(t, known, name, "page", i, "error without a codec sentinel:", err)
			}
			n++
		}
	}
	t.Logf("%d pages of malformed files tried", n)
	require.True(t, n >= corpusMalformedMin, "malformed pages tried:", n, "want at least", corpusMalformedMin)
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
