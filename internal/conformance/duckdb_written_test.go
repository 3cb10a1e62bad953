package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// TestDuckDBWritten: DuckDB as a writer. duckdb/write.mjs writes one table covering DuckDB's
// types (3,000 rows, nulls in every column) six ways: format v1 and v2 (DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT pages), every codec DuckDB writes, small row
// groups, no dictionaries. DuckDB's reading of its own files (duckdb/dump.mjs) is the oracle:
// pqscan must read every file and agree on every value, with the differences of
// duckWrittenDeviations (DuckDB's types that Parquet has no exact home for) and nothing else.
func TestDuckDBWritten(t *testing.T) {
	node := testcorpus.DuckNode(t)
	dir := t.TempDir()
	cmd := exec.Command(node, testcorpus.DuckScript("write.mjs"), dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("write.mjs: %v", err)
	}
	files := strings.Fields(string(out))
	if len(files) < 6 {
		t.Fatalf("write.mjs wrote %d files", len(files))
	}
	used := map[string]bool{}
	var values int
	duckDumpEach(t, node, dir, files, func(d duckFile) {
		if d.Error != "" {
			t.Errorf("%s: DuckDB cannot read its own file: %s", d.File, d.Error)
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, d.File))
		if err != nil {
			t.Fatal(err)
		}
		res, err := scanBytes(data, pqscan.Options{}, pqscan.ScanOptions{}, corpusTimeout)
		if err != nil {
			t.Errorf("%s: %v", d.File, err)
			return
		}
		n, _, msgs := compareWithDuckDB(d, res, used)
		values += n
		for _, m := range msgs {
			t.Errorf("%s: %s", d.File, m)
		}
	})
	t.Logf("DuckDB-written files: %d files, %d values compared", len(files), values)

	// WHERE over the same files, counted by DuckDB and by pqscan: DuckDB's statistics, bloom
	// filters and v2 pages on the pruning side.
	// DuckDB reads its own UNION column back as an unnamed struct, whose members SQL cannot
	// name ("un"."num" is a Binder Error), so no predicate uses it.
	unions := map[string][]duckDeviation{}
	for _, f := range files {
		unions[f] = []duckDeviation{{column: "un", reason: "a UNION reads back as an unnamed struct"}}
	}
	if compared := whereDuckDB(t, dir, files, 25*whereDraws, unions); compared < 500 {
		t.Errorf("only %d predicates compared", compared)
	}
}
