package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

func Test_optimizeExplainInspect(t *testing.T) {
	in := filepath.Join(testcorpus.Dir(t), "parquet-testing", "data", "alltypes_tiny_pages.parquet")
	out := filepath.Join(t.TempDir(), "out.parquet")
	code, _, stderr := runCLI(t, "optimize", in, out, "--sort-by", "int_col,id", "--bloom", "id", "--bloom", "auto",
		"--row-group-size", "1000", "--page-rows", "100", "--codec", "snappy")
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.Contains(stderr, "7300 rows, 8 row groups") && strings.Contains(stderr, "bloom id"), stderr)

	code, stdout, stderr := runCLI(t, "inspect", out)
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.Contains(stdout, "created_by: pqscan optimize ("), stdout)
	require.True(t, !strings.Contains(stdout, "advice: no-page-index"), stdout)

	code, stdout, stderr = runCLI(t, "explain", in, "--where", "int_col = 3", "--where", "id = 77", "--columns", "id", "--compare", out)
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.Contains(stdout, "int_col = 3") && strings.Contains(stdout, "→"), stdout)
	t.Log("\n" + stdout)

	tests := []struct {
		name string
		args []string
		code int
		errs string
	}{
		{name: "one path", args: []string{"optimize", in}, code: 2, errs: "IN and OUT"},
		{name: "bad codec", args: []string{"optimize", in, out, "--codec", "lzo"}, code: 2, errs: "codec"},
		{name: "bad size", args: []string{"optimize", in, out, "--row-group-size", "12XB"}, code: 2, errs: "row-group-size"},
		{name: "page size and rows", args: []string{"optimize", in, out, "--page-size", "1MB", "--page-rows", "10"}, code: 2, errs: "exclude"},
		{name: "bad bloom", args: []string{"optimize", in, out, "--bloom", "id:x"}, code: 2, errs: "ndv"},
		{name: "bad bloom mode", args: []string{"optimize", in, out, "--bloom-mode", "sometimes"}, code: 2, errs: "--bloom-mode"},
		{name: "missing sort key", args: []string{"optimize", in, filepath.Join(filepath.Dir(out), "x.parquet"), "--sort-by", "nope"}, code: 1, errs: "sort key"},
		{name: "explain two SRCs", args: []string{"explain", in, in}, code: 2, errs: "exactly one SRC"},
		{name: "explain bad filter", args: []string{"explain", in, "--where", "id = = 3"}, code: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			require.Equal(t, tc.code, code, stderr)
			require.True(t, strings.Contains(stderr, tc.errs), stderr)
		})
	}
	// Several inputs (a list, or a folder) are compacted into one file, rows in file order.
	many := filepath.Join(filepath.Dir(out), "many.parquet")
	code, _, stderr = runCLI(t, "optimize", in, out, many, "--row-group-size", "10000")
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.Contains(stderr, "14600 rows, 2 row groups"), stderr)
	code, stdout, stderr = runCLI(t, "count", many, "--where", "id = 77")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "2\n", stdout)

	// inspect over the two inputs advises compacting them (small files); the one output not.
	code, stdout, stderr = runCLI(t, "inspect", in, out)
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.Contains(stdout, "dataset: 2 files") && strings.Contains(stdout, "advice: compact-small-files"), stdout)
	t.Log("\n" + stdout)

	// --bloom-mode if-no-dict: every chunk of int_col (10 values) and id (1,000 per row group)
	// stays dictionary-encoded, so none gets a filter (internal/optimize checks files where
	// some chunks fall back).
	dictOut := filepath.Join(filepath.Dir(out), "dict.parquet")
	code, _, stderr = runCLI(t, "optimize", in, dictOut, "--bloom", "id", "--bloom", "int_col", "--bloom-mode", "if-no-dict", "--row-group-size", "1000")
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.Contains(stderr, "bloom filters on 0 chunks (16 fully dictionary-encoded chunks without)"), stderr)
	code, stdout, stderr = runCLI(t, "count", dictOut, "--where", "id = 77")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "1\n", stdout)

	// --int96 utc: the legacy timestamps become instants, the convention recorded.
	plain := filepath.Join(testcorpus.Dir(t), "parquet-testing", "data", "alltypes_plain.parquet")
	conv := filepath.Join(filepath.Dir(out), "int96.parquet")
	code, _, stderr = runCLI(t, "optimize", plain, conv, "--int96", "utc")
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr = runCLI(t, "inspect", conv)
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.Contains(stdout, "key_value: pqscan.int96 = utc: timestamp_col"), stdout)
	code, _, stderr = runCLI(t, "optimize", plain, conv, "--int96", "gmt")
	require.Equal(t, 2, code, stderr)

	// A failed rewrite leaves no output file behind.
	_, err := os.Stat(filepath.Join(filepath.Dir(out), "x.parquet"))
	require.True(t, os.IsNotExist(err), err)
}
