package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_countScope: a Delta log whose add path climbs out of the table folder fails naming it,
// unless --allow names the folder it climbs into.
func Test_countScope(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta",
		"part-00000-3c9f01c2-6db4-4cbc-a744-dbc2f79eb78a-c000.snappy.parquet"))
	require.NoError(t, err)
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	require.NoError(t, os.MkdirAll(filepath.Join(table, "_delta_log"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil-outside.parquet"), data, 0o644))
	commit := `{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"x","format":{"provider":"parquet"},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"number\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{}}}
{"add":{"path":"../evil-outside.parquet","partitionValues":{},"size":996,"modificationTime":1,"dataChange":true}}
`
	require.NoError(t, os.WriteFile(filepath.Join(table, "_delta_log", "00000000000000000000.json"), []byte(commit), 0o644))
	runCLICases(t, []cliCase{
		{name: "outside the table", args: []string{"count", table + "/"}, code: 1, stderrHas: `add action "../evil-outside.parquet"`},
		{name: "outside the table over wasm", args: []string{"count", "--engine", "wasm", table + "/"}, code: 1, stderrHas: "outside the scope"},
		{name: "in an allowed prefix", args: []string{"count", "--allow", dir + "/," + "https://example.invalid/x/", table + "/"}, stdout: "3\n"},
	})
}
