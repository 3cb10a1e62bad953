package format

import (
	"encoding/binary"
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
// valid files must decode, none may panic (a panic fails the test run).
func Test_DecodeFileMetaData_corpus(t *testing.T) {
	var decoded, failed int
	for _, name := range corpusFiles(t) {
		file := testcorpus.Read(t, name)
		meta, magic, ok := footer(file)
		if !ok {
			failed++
			continue
		}
		m, err := DecodeFileMetaData(meta)
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
