package tablescan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// Test_keepUnit: a unit session (FilesFrom, FilesTo) reads the footers of its own files and of
// the files the table schema comes from (the first file partitions leave, every such file
// with UnionSchema, none when the host gives the schema), and no other byte.
func Test_keepUnit(t *testing.T) {
	files := []File{{Path: "k=1/a.parquet", Size: 100}, {Path: "k=2/b.parquet", Size: 100}, {Path: "k=3/c.parquet", Size: 100}, {Path: "k=4/d.parquet", Size: 100}}
	for _, tc := range []struct {
		name     string
		opts     Options
		footers  []int    // the files whose bytes the first step asks for
		skipped  []string // the report lines' SkippedBy
		optsFail bool
	}{
		{name: "schema from the first file", opts: Options{FilesFrom: 2, FilesTo: 3}, footers: []int{0, 2}, skipped: []string{"unit", "unit", "", "unit"}},
		{name: "the unit holds the first file", opts: Options{FilesTo: 2}, footers: []int{0, 1}, skipped: []string{"", "", "unit", "unit"}},
		{name: "the first file a partition leaves", opts: Options{FilesFrom: 3, Options: scan.Options{Where: "k >= 2"}}, footers: []int{1, 3}, skipped: []string{"partition", "unit", "unit", ""}},
		{name: "union: every file's footer", opts: Options{FilesFrom: 1, FilesTo: 2, UnionSchema: true}, footers: []int{0, 1, 2, 3}, skipped: []string{"unit", "", "unit", "unit"}},
		{name: "a run of files past the end", opts: Options{FilesFrom: 2, FilesTo: 9}, footers: []int{0, 2, 3}, skipped: []string{"unit", "unit", "", ""}},
		{name: "an empty run", opts: Options{FilesFrom: 2, FilesTo: 2}, optsFail: true},
		{name: "a negative start", opts: Options{FilesFrom: -1}, optsFail: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Files = files
			tb, err := New(o, nil)
			if tc.optsFail {
				require.ErrorIs(t, err, ErrOptions)
				return
			}
			require.NoError(t, err)
			st := tb.Next()
			require.Equal(t, scan.NeedData, st.Kind)
			var asked []int
			for _, r := range st.Reqs {
				if len(asked) == 0 || asked[len(asked)-1] != r.File {
					asked = append(asked, r.File)
				}
			}
			require.Equal(t, tc.footers, asked)
			var skipped []string
			for _, f := range tb.Report().Files {
				skipped = append(skipped, f.SkippedBy)
			}
			require.Equal(t, tc.skipped, skipped)
		})
	}
}
