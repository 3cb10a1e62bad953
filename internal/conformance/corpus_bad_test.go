package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// mustFailInData are files in parquet-testing/data that are deliberately broken (data/README.md
// and the corpus README): a reader that checks CRCs or chunk bounds must reject them.
// nation.dict-malformed.parquet is not among them: its writer ("parquet-mr", no version) has
// PARQUET-816, and like arrow-cpp and arrow-go pqscan pads its chunk ranges and reads it
// (internal/scan/quirks_test.go).
var mustFailInData = map[string]string{
	"parquet-testing/data/datapage_v1-corrupt-checksum.parquet":           "page CRC mismatch",
	"parquet-testing/data/rle-dict-uncompressed-corrupt-checksum.parquet": "dictionary page CRC mismatch",
	"parquet-testing/data/large_string_map.brotli.parquet":                "1 GiB strings exceed the 256 MiB memory cap",
}

// badButDecodable are bad_data files that a careful reader may legitimately decode, with the
// row count it must then return. ARROW-GH-43605's dictionary indices use RLE bit width 0, which
// is the correct width for a one-entry dictionary (ceil(log2(1)) = 0): parquet-java and Velox
// read its 21,186 rows; Arrow C++ rejects it.
var badButDecodable = map[string]int64{
	"parquet-testing/bad_data/ARROW-GH-43605.parquet": 21186,
}

const badTimeout = 20 * time.Second

// TestCorpusBad scans every malformed, encrypted and fuzz file of the corpus. Malformed and
// encrypted files must fail with an error (never return rows); fuzz files may decode or fail,
// but nothing may panic, hang, or hit the engine's internal-error path (a recovered panic).
func TestCorpusBad(t *testing.T) {
	root := testcorpus.Dir(t)
	type kind int
	const (
		mustError kind = iota
		mustErrorEncrypted
		mayDecode
	)
	files := map[string]kind{}
	for p := range mustFailInData {
		files[p] = mustError
	}
	for _, p := range testcorpus.Files(t, ".parquet") {
		if strings.HasPrefix(p, "parquet-testing/bad_data/") {
			files[p] = mustError
		}
	}
	for _, p := range testcorpus.Files(t, ".parquet.encrypted") {
		files[p] = mustErrorEncrypted
	}
	fuzzDir := filepath.Join(root, "arrow-testing", "parquet", "fuzzing")
	entries, err := os.ReadDir(fuzzDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".md") {
			files["arrow-testing/parquet/fuzzing/"+e.Name()] = mayDecode
		}
	}

	var failures []string
	counts := map[string]int{}
	for _, p := range testcorpus.Files(t, "") {
		k, ok := files[p]
		if !ok {
			continue
		}
		t.Run(p, func(t *testing.T) {
			start := time.Now()
			res, err := scanBytes(testcorpus.Read(t, p), pqscan.Options{}, pqscan.ScanOptions{}, badTimeout)
			if d := time.Since(start); d > 2*time.Second {
				t.Logf("slow: %v", d)
			}
			var msg string
			switch {
			case errors.Is(err, errTimeout):
				msg = "hang: " + err.Error()
			case err != nil && strings.HasPrefix(err.Error(), "PANIC"):
				msg = firstLine(err)
			case errors.Is(err, scan.ErrInternal):
				msg = "internal error (a recovered panic or an encoder bug): " + firstLine(err)
			case k == mustError && err == nil && badButDecodable[p] != 0:
				if res.rows != badButDecodable[p] {
					msg = fmt.Sprintf("decoded %d rows, want an error or %d rows", res.rows, badButDecodable[p])
				}
			case k == mustError && err == nil:
				msg = fmt.Sprintf("want an error, got %d rows", res.rows)
			case k == mustErrorEncrypted && (err == nil || !strings.Contains(err.Error(), "encrypted Parquet is not supported")):
				msg = fmt.Sprintf("want the encrypted-Parquet error, got %v", err)
			}
			switch {
			case msg != "":
				counts["failed"]++
				failures = append(failures, p+": "+msg)
				t.Error(msg)
			case err != nil:
				counts["rejected"]++
				t.Logf("rejected: %v", firstLine(err))
			default:
				counts["decoded"]++
				t.Logf("decoded %d rows", res.rows)
			}
		})
	}
	t.Logf("bad/encrypted/fuzz files: %d, rejected with an error %d, decoded %d (fuzz files and badButDecodable), failed %d",
		len(files), counts["rejected"], counts["decoded"], counts["failed"])
	for _, f := range failures {
		t.Logf("FAIL %s", f)
	}
}
