package format

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// footer returns the FileMetaData bytes of a Parquet file and its trailing magic, or ok=false
// when the file is too short or the length does not fit.
func footer(file []byte) (meta []byte, magic string, ok bool) {
	if len(file) < 12 {
		return nil, "", false
	}
	n := binary.LittleEndian.Uint32(file[len(file)-8:])
	magic = string(file[len(file)-4:])
	if uint64(n) > uint64(len(file)-8) {
		return nil, magic, false
	}
	return file[len(file)-8-int(n) : len(file)-8], magic, true
}

// corpusFiles lists every Parquet file in the corpus, fuzz and encrypted files included.
func corpusFiles(t testing.TB) []string {
	files := testcorpus.Files(t, ".parquet", ".parquet.encrypted")
	for _, f := range testcorpus.Files(t, "") {
		if strings.Contains(f, "/fuzzing/") && !strings.HasSuffix(f, ".parquet") &&
			!strings.HasSuffix(f, ".md") {
			files = append(files, f)
		}
	}
	return files
}

// Test_DecodeFileMetaData_corpus decodes the footer of every corpus file, valid and malformed:
// valid files must decode; none may panic (a panic fails the test run) or allocate beyond the
// bound of memory_test.go.
func Test_DecodeFileMetaData_corpus(t *testing.T) {
	var decoded, failed int
	for _, name := range corpusFiles(t) {
		file := testcorpus.Read(t, name)
		meta, magic, ok := footer(file)
		if !ok {
			failed++
			continue
		}
		var m *FileMetaData
		var err error
		checkExpansion(t, name, meta, func(b []byte) { m, err = DecodeFileMetaData(b) })
		valid := magic == Magic && !strings.Contains(name, "fuzzing/") && !strings.Contains(name, "bad_data/")
		if err != nil {
			failed++
			if valid {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		decoded++
		if valid {
			require.True(t, len(m.Schema) > 0, name)
		}
	}
	t.Logf("decoded %d footers, %d rejected", decoded, failed)
}

// Test_decoders_randomInput feeds seeded random bytes, and single-byte mutations of real
// footers, to every decoder: each must return an error or a value, within the allocation bound.
func Test_decoders_randomInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	decoders := []struct {
		name   string
		decode func([]byte)
	}{
		{"FileMetaData", func(b []byte) { _, _ = DecodeFileMetaData(b) }},
		{"PageHeader", func(b []byte) { _, _, _ = DecodePageHeader(b) }},
		{"ColumnIndex", func(b []byte) { _, _ = DecodeColumnIndex(b) }},
		{"OffsetIndex", func(b []byte) { _, _ = DecodeOffsetIndex(b) }},
		{"BloomFilterHeader", func(b []byte) { _, _, _ = DecodeBloomFilterHeader(b) }},
	}
	for _, d := range decoders {
		for i := 0; i < 2000; i++ {
			b := make([]byte, rng.IntN(200))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			d.decode(b)
		}
	}
	var decoded int
	for _, name := range []string{"parquet-testing/data/alltypes_tiny_pages.parquet",
		"hyparquet/page_index.parquet", "parquet-testing/data/nested_maps.snappy.parquet"} {
		meta, _, _ := footer(testcorpus.Read(t, name))
		for i := 0; i < 1000; i++ {
			b := append([]byte(nil), meta...)
			b[rng.IntN(len(b))] = byte(rng.Uint32())
			if _, err := DecodeFileMetaData(b); err == nil {
				decoded++
			}
		}
		checkExpansion(t, name, meta, func(b []byte) { _, _ = DecodeFileMetaData(b) })
	}
	t.Logf("%d of 3000 mutated footers still decoded", decoded)
}
