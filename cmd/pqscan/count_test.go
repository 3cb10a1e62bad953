package main

import (
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_count: pqscan count prints the number alone (from the footer without a predicate), the
// same over the wasm engine, the report on stderr with --explain, and usage errors exit 2.
func Test_count(t *testing.T) {
	file := testcorpus.Dir(t) + "/hyparquet/page_index.parquet"
	tests := []cliCase{
		{name: "no predicate", args: []string{"count", file}, stdout: "3000\n"},
		{name: "predicate", args: []string{"count", file, "--where", "id >= 1000"}, stdout: "2000\n"},
		{name: "predicate over wasm", args: []string{"count", "--engine", "wasm", file, "--where", "id >= 1300 AND id < 1700"}, stdout: "400\n"},
		{name: "explain reports the rows counted from metadata", args: []string{"count", file, "--where", "id >= 1000", "--explain"},
			stdout: "2000\n", stderrHas: `"rowsCountedFromMetadata": 1804`},
		{name: "cat --count prints the count as a row", args: []string{"cat", file, "--count", "--where", "id < 10"}, stdout: "{\"count\":10}\n"},
		{name: "two sources are one table", args: []string{"count", file, file, "--where", "id >= 1000"}, stdout: "4000\n"},
		{name: "no source", args: []string{"count", "--where", "id >= 1000"}, code: 2, stderrHas: "needs a SRC"},
		{name: "bad where", args: []string{"count", file, "--where", "nope > 1"}, code: 1, stderrHas: "nope"},
	}
	runCLICases(t, tests)
}

// Test_minmax: pqscan minmax prints one row with min and max (from the footer when the
// statistics are exact, read otherwise), the same over the wasm engine, in csv, and the
// report with --explain; bad columns and usage errors fail.
func Test_minmax(t *testing.T) {
	root := testcorpus.Dir(t)
	file := root + "/hyparquet/page_index.parquet"
	trunc := root + "/parquet-testing/data/binary_truncated_min_max.parquet"
	tests := []cliCase{
		{name: "from metadata", args: []string{"minmax", file, "id", "--explain"}, stdout: `{"min":0,"max":2999}` + "\n", stderrHas: `"rowGroupsFromMetadata": 2`},
		{name: "predicate over wasm", args: []string{"minmax", "--engine", "wasm", file, "id", "--where", "id >= 1300 AND id < 1700"}, stdout: `{"min":1300,"max":1699}` + "\n"},
		{name: "truncated statistics are read", args: []string{"minmax", trunc, "utf8_full_truncation", "--format", "csv"}, stdout: "min,max\nAlice Johnson,Kevin Bacon\n"},
		{name: "cat --min-max prints the answer as a row", args: []string{"cat", file, "--min-max", "id", "--where", "id < 10"}, stdout: `{"min":0,"max":9}` + "\n"},
		{name: "count does not combine with --min-max", args: []string{"count", file, "--min-max", "id"}, code: 1, stderrHas: "does not combine"},
		{name: "cat --min-max over a dataset", args: []string{"cat", file, file, "--min-max", "id"}, stdout: `{"min":0,"max":2999}` + "\n"},
		{name: "minmax over a dataset", args: []string{"minmax", file, file, "id", "--where", "id >= 1300 AND id < 1700"}, stdout: `{"min":1300,"max":1699}` + "\n"},
		{name: "no such column", args: []string{"minmax", file, "nope"}, code: 1, stderrHas: "nope"},
		{name: "needs a column", args: []string{"minmax", file}, code: 2, stderrHas: "SRC... and COL"},
		{name: "no limit", args: []string{"minmax", file, "id", "--limit", "3"}, code: 2, stderrHas: "no --limit"},
	}
	runCLICases(t, tests)
}

// cliCase is one CLI run: its exit code, stdout (checked when the code is 0) and a part of
// stderr.
type cliCase struct {
	name      string
	args      []string
	code      int
	stdout    string
	stderrHas string
}

func runCLICases(t *testing.T, tests []cliCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			require.Equal(t, tc.code, code, errs)
			if tc.code == 0 {
				require.Equal(t, tc.stdout, out)
			}
			require.True(t, strings.Contains(errs, tc.stderrHas), errs)
		})
	}
}
