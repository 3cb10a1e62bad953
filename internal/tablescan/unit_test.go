package tablescan

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/testcorpus"
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

// Test_unitsEqualWholeScan: a table scan's units (runs of files) in order return the whole
// scan's batches byte for byte, or its error, over files whose schemas differ (a column
// renamed in some), by name, by position and as a union, with and without a predicate. (Runs
// of one file's rows cut its batches elsewhere: jsbridge/test/pool-dataset.test.js compares
// their rows.)
func Test_unitsEqualWholeScan(t *testing.T) {
	tiny, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "parquet-testing/data/alltypes_tiny_pages_plain.parquet"))
	require.NoError(t, err)
	renamed := bytes.ReplaceAll(tiny, []byte("double_col"), []byte("DOUBLE_col"))
	data := [][]byte{renamed, tiny, renamed, tiny}
	var files []File
	for i, b := range data {
		files = append(files, File{Path: fmt.Sprintf("f%d.parquet", i), Size: int64(len(b)), Version: "v"})
	}
	run := func(o Options) ([]byte, error) {
		o.Files = files
		tb, err := New(o, nil)
		if err != nil {
			return nil, err
		}
		d := &drive.Driver{Sess: tb, Sized: true, Files: func(i int) (httpclient.Source, string, error) {
			return httpclient.NewReaderAt(bytes.NewReader(data[i]), int64(len(data[i]))), files[i].Path, nil
		}}
		var out []byte
		for {
			st, err := d.Step(context.Background())
			if err != nil {
				return nil, err
			}
			switch st.Kind {
			case scan.Done:
				return out, nil
			case scan.Batch:
				out = append(out, st.IPC...)
			}
		}
	}
	compared := 0
	for _, base := range []Options{{}, {ByPosition: true}, {UnionSchema: true}} {
		for _, where := range []string{"", "id > 3000", "double_col > 50", "DOUBLE_col > 50"} {
			o := base
			o.Where = where
			what := fmt.Sprintf("byPosition %v, union %v, where %q", base.ByPosition, base.UnionSchema, where)
			whole, werr := run(o)
			var units []byte
			var uerr error
			for i := range files {
				u := o
				u.FilesFrom, u.FilesTo = i, i+1
				b, err := run(u)
				units = append(units, b...)
				if uerr == nil {
					uerr = err
				}
			}
			if werr != nil {
				require.True(t, uerr != nil && uerr.Error() == werr.Error(), what, werr, uerr)
				continue
			}
			require.NoError(t, uerr, what)
			require.True(t, len(whole) > 0 && bytes.Equal(whole, units), what)
			compared++
		}
	}
	require.True(t, compared >= 8, "compared", compared)
}
