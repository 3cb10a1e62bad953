package wazerohost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_corpusMatchesNative scans every Parquet file of the corpus (valid, malformed and fuzz
// regressions) through the wasm module and through the engine linked natively: the IPC bytes,
// the report (without timings) and the error message must be identical. This is what makes the
// native engine a valid stand-in for the browser's in every other test.
func Test_corpusMatchesNative(t *testing.T) {
	if testing.Short() {
		t.Skip("scans the whole corpus through wasm")
	}
	h := newHost(t, Config{})
	files := inventory(t)
	require.True(t, len(files) > 250, "corpus too small", len(files))
	var ok, failed, batches, zstdFiles int
	for _, f := range files {
		file := testcorpus.Read(t, f)
		want, panicked := runNativeRecover(t, file, scan.Options{})
		if panicked != "" {
			t.Errorf("%s: the native engine panicked: %s", f, panicked)
			continue
		}
		before := h.Stats().HostZstd
		got, _ := runWasm(t, h, file, scan.Options{})
		if !equalResults(t, f, want.comparable(), got.comparable()) {
			continue
		}
		if h.Stats().HostZstd > before {
			zstdFiles++
		}
		if want.err == "" {
			ok++
		} else {
			failed++
		}
		batches += len(want.streams)
	}
	t.Logf("%d files identical (%d scanned, %d rejected identically), %d batches, %d with ZSTD pages; %+v",
		ok+failed, ok, failed, batches, zstdFiles, h.Stats())
	// The corpus's ZSTD pages (valid and corrupt) went through the host's decoder: the module
	// has no other.
	require.True(t, zstdFiles >= 10, "files with ZSTD pages decoded by the host", zstdFiles)
}

// Test_optionsMatchNative repeats the comparison with projection, filters, limits and small
// batches on files with several row groups, pages and indexes.
func Test_optionsMatchNative(t *testing.T) {
	h := newHost(t, Config{})
	tests := []struct {
		name string
		file string
		opts scan.Options
	}{
		{name: "projection", file: "parquet-testing/data/alltypes_plain.parquet", opts: scan.Options{Columns: []string{"id", "string_col"}}},
		{name: "where", file: "parquet-testing/data/alltypes_plain.parquet", opts: scan.Options{Where: "id > 3 AND bool_col = true"}},
		{name: "limit offset", file: "parquet-testing/data/alltypes_plain.parquet", opts: scan.Options{Limit: 3, Offset: 2}},
		{name: "small batches", file: "parquet-testing/data/alltypes_tiny_pages_plain.parquet", opts: scan.Options{BatchRows: 1000}},
		{name: "page index where", file: "parquet-testing/data/alltypes_tiny_pages_plain.parquet", opts: scan.Options{Where: "id >= 5000 AND id < 5100"}},
		{name: "no prune", file: "parquet-testing/data/alltypes_tiny_pages_plain.parquet", opts: scan.Options{Where: "id >= 5000 AND id < 5100", NoPrune: true}},
		{name: "dictionary arrays", file: "parquet-testing/data/alltypes_tiny_pages_plain.parquet", opts: scan.Options{DictionaryArrays: true, Limit: 2000}},
		{name: "tiny tail", file: "parquet-testing/data/alltypes_tiny_pages_plain.parquet", opts: scan.Options{TailSize: 64, Limit: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := testcorpus.Read(t, tc.file)
			want := runNative(t, file, tc.opts)
			require.True(t, want.err == "", want.err)
			require.True(t, len(want.streams) > 0, "no batches")
			got, err := runWasm(t, h, file, tc.opts)
			require.NoError(t, err)
			equalResults(t, tc.name, want.comparable(), got.comparable())
		})
	}
}

// inventory lists every Parquet file of the corpus (fuzz files have no .parquet suffix), from
// the first column of INVENTORY.tsv.
func inventory(t *testing.T) []string {
	var files []string
	for i, line := range strings.Split(string(testcorpus.Read(t, "INVENTORY.tsv")), "\n") {
		if path, _, _ := strings.Cut(line, "\t"); i > 0 && path != "" {
			files = append(files, path)
		}
	}
	return files
}

// runNativeRecover is runNative that reports an engine panic instead of crashing the test binary.
func runNativeRecover(t *testing.T, file []byte, opts scan.Options) (res result, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	return runNative(t, file, opts), ""
}

// equalResults reports the first difference in a readable form.
func equalResults(t *testing.T, name string, want, got result) bool {
	t.Helper()
	switch {
	case want.err != got.err:
		t.Errorf("%s: error differs:\nnative: %s\n  wasm: %s", name, want.err, got.err)
	case len(want.streams) != len(got.streams):
		t.Errorf("%s: %d batches native, %d wasm", name, len(want.streams), len(got.streams))
	case fmt.Sprint(want.report) != fmt.Sprint(got.report):
		t.Errorf("%s: report differs:\nnative: %+v\n  wasm: %+v", name, want.report, got.report)
	default:
		for i := range want.streams {
			if string(want.streams[i]) != string(got.streams[i]) {
				t.Errorf("%s: batch %d: IPC bytes differ (%d native, %d wasm)%s", name, i,
					len(want.streams[i]), len(got.streams[i]), firstDiff(want.streams[i], got.streams[i]))
				return false
			}
		}
		return true
	}
	return false
}

func firstDiff(a, b []byte) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf(" at byte %d", i)
		}
	}
	return ""
}
