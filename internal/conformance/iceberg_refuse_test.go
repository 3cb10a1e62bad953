package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_icebergRefused: what is not Parquet (an ORC or Avro data file, an ORC position delete
// file) and a format version this reader does not know fail with ErrUnsupportedFeature naming
// the file and the reason, never with rows.
func Test_icebergRefused(t *testing.T) {
	setFormat := func(content int64, format string) func(root string) error {
		return func(root string) error {
			manifests, err := filepath.Glob(filepath.Join(root, "metadata", "*-m*.avro"))
			if err != nil {
				return err
			}
			for _, p := range manifests {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				out := rewriteAvroValues(t, b, func(v any) any {
					df := v.(map[string]any)["data_file"].(map[string]any)
					if df["content"] == content {
						df["file_format"] = format
					}
					return v
				})
				if err := os.WriteFile(p, out, 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	newest := func(root string) string {
		files, _ := filepath.Glob(filepath.Join(root, "metadata", "*.metadata.json"))
		sort.Strings(files)
		return files[len(files)-1]
	}
	for _, tc := range []struct {
		name, table string
		change      func(root string) error
		want        func(root string) []string
	}{
		{name: "ORC data file", table: "lithium__no_partitioning", change: setFormat(0, "ORC"),
			want: func(string) []string {
				return []string{"20250310_161728_00004_i9wr4-40df733f-a909-4d83-8516-ac48ad8965c0.parquet", "is ORC (only Parquet is read)"}
			}},
		{name: "Avro data file", table: "lithium__no_partitioning", change: setFormat(0, "AVRO"),
			want: func(string) []string { return []string{"20250310_161728_00004_i9wr4-40df733f", "is AVRO"} }},
		{name: "ORC position delete file", table: "lithium__refdeletes3", change: setFormat(1, "ORC"),
			want: func(string) []string { return []string{"-deletes.parquet", "ORC"} }},
		{name: "format version 4", table: "lithium__no_partitioning",
			change: func(root string) error {
				p := newest(root)
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				return os.WriteFile(p, regexp.MustCompile(`"format-version"\s*:\s*2`).ReplaceAll(b, []byte(`"format-version":4`)), 0o644)
			},
			want: func(root string) []string { return []string{filepath.Base(newest(root)), "format-version 4"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyIcebergTable(t, tc.table)
			require.NoError(t, tc.change(root))
			err := countTable(root)
			require.ErrorIs(t, err, pqscan.ErrUnsupportedFeature)
			for _, w := range tc.want(root) {
				require.ErrorContains(t, err, w)
			}
		})
	}
}
