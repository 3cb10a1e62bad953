package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_enginesIdentical: `pqscan cat --format jsonl` prints the same bytes (and the same error,
// or the same exit code) with --engine wasm and --engine native, for every Parquet file of the
// corpus (valid, malformed, fuzz and encrypted).
func Test_enginesIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("scans the whole corpus twice")
	}
	root := testcorpus.Dir(t)
	files := append(testcorpus.Files(t, ".parquet", ".parquet.encrypted"), fuzzFiles(t)...)
	same, withRows := 0, 0
	for _, f := range files {
		if strings.Contains(f, "large_string_map") {
			continue // 2 GiB of strings: a memory-cap error in both, but slow to reach twice
		}
		p := filepath.Join(root, f)
		nCode, nOut, nErr := runCLI(t, "cat", p, "--format", "jsonl", "--engine", "native")
		wCode, wOut, wErr := runCLI(t, "cat", p, "--format", "jsonl", "--engine", "wasm")
		if nCode != wCode || nOut != wOut {
			t.Errorf("%s: native exit %d (%d bytes, %q) vs wasm exit %d (%d bytes, %q)", f, nCode, len(nOut), firstLine(nErr), wCode, len(wOut), firstLine(wErr))
			continue
		}
		if nCode == 0 && nOut != "" {
			withRows++
		}
		same++
	}
	t.Logf("%d files identical (%d with rows)", same, withRows)
	if withRows < 100 {
		t.Fatalf("only %d files produced rows", withRows)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fuzzFiles are the arrow-testing fuzz regression files (no extension).
func fuzzFiles(t *testing.T) []string {
	var out []string
	for _, f := range testcorpus.Files(t, "") {
		if strings.Contains(f, "fuzzing/clusterfuzz-testcase") {
			out = append(out, f)
		}
	}
	return out
}
