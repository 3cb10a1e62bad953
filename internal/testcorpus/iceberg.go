package testcorpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// IcebergTables are the rows of the corpus's iceberg/MANIFEST.tsv (one per Iceberg test
// table: name, table_root, metadata_file, version_hint, current_snapshot_files, …) by column
// name.
func IcebergTables(t testing.TB) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t), "iceberg", "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	head := strings.Split(lines[0], "\t")
	var out []map[string]string
	for _, l := range lines[1:] {
		r := map[string]string{}
		for i, v := range strings.Split(l, "\t") {
			if i < len(head) {
				r[head[i]] = v
			}
		}
		out = append(out, r)
	}
	return out
}
