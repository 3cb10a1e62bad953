package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// symlinkHive builds, in a temporary folder, a Hive table assembled with symbolic links (the
// rules are internal/localfs's): partition directories linked to folders in store/, a real
// partition directory holding a linked file, a link from a partition back to the table (a
// cycle), and broken links to a file and to a directory. It returns the table folder and
// its files as the walk names them.
func symlinkHive(t *testing.T) (hive string, files []string) {
	t.Helper()
	tmp := t.TempDir()
	store, hive := filepath.Join(tmp, "store"), filepath.Join(tmp, "hive")
	writeDay(t, store, dayFile{dir: "one", first: 0, rows: 150}, 0)
	writeDay(t, store, dayFile{dir: "two", first: 1000, rows: 120}, 1)
	writeDay(t, store, dayFile{dir: "three", first: 2000, rows: 90}, 2)
	link := func(target, name string) {
		require.NoError(t, os.Symlink(target, filepath.Join(hive, filepath.FromSlash(name))))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(hive, "event_date=2024-01-03"), 0o755))
	link(filepath.Join("..", "store", "one"), "event_date=2024-01-01")
	link(filepath.Join(store, "two"), "event_date=2024-01-02") // absolute
	link(filepath.Join("..", "..", "store", "three", "part-2.parquet"), "event_date=2024-01-03/part-2.parquet")
	link(filepath.Join("..", "..", "hive"), "event_date=2024-01-01/loop") // store/one/loop -> hive
	link("nowhere.parquet", "event_date=2024-01-03/gone.parquet")
	link(filepath.Join("..", "store", "nowhere"), "event_date=2024-01-04")
	for i, d := range []string{"event_date=2024-01-01", "event_date=2024-01-02", "event_date=2024-01-03"} {
		files = append(files, filepath.Join(hive, d, fmt.Sprintf("part-%d.parquet", i)))
	}
	return hive, files
}

// Test_datasetSymlinks: a Hive folder whose partition directories and files are symbolic
// links reads the rows DuckDB's read_parquet reads through the same links, by folder and by
// glob; the cycle is not followed (each file once) and the broken links are left out, as
// DuckDB leaves them out. (DuckDB's `**` does not descend into linked directories; ours
// does, so a folder and a glob name the same files.) The links lead out of the named folder,
// so their targets' folder is an allowed prefix; without it the open is out of scope.
func Test_datasetSymlinks(t *testing.T) {
	hive, files := symlinkHive(t)
	lines := testcorpus.DuckLines(t, fmt.Sprintf(
		"SELECT id, value, name, CAST(event_date AS VARCHAR) FROM read_parquet('%s', hive_partitioning = true) ORDER BY id",
		filepath.ToSlash(filepath.Join(hive, "*", "*.parquet"))))
	var rows [][]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &rows))
	var want []string
	for _, r := range rows {
		want = append(want, fmt.Sprintf("%v|%v|%v|%v", r...))
	}
	require.Equal(t, 360, len(want))
	ctx := context.Background()
	store := filepath.Join(filepath.Dir(hive), "store")
	for _, src := range []string{hive + "/", hive + "/*/*.parquet", hive + "/**"} {
		t.Run(src, func(t *testing.T) {
			_, err := pqscan.OpenDataset(ctx, []string{src}, pqscan.Options{})
			require.ErrorIs(t, err, pqscan.ErrOutOfScope)
			ds, err := pqscan.OpenDataset(ctx, []string{src}, pqscan.Options{AllowPrefixes: []string{store}})
			require.NoError(t, err)
			defer ds.Close()
			require.Equal(t, files, ds.Files())
			r, err := ds.Scan(ctx, pqscan.ScanOptions{})
			require.NoError(t, err)
			got := readAll(t, r)
			sort.SliceStable(got, func(i, j int) bool { return got[i] < got[j] })
			sort.SliceStable(want, func(i, j int) bool { return want[i] < want[j] })
			require.Equal(t, want, got)
		})
	}
}

// Test_deltaSymlinks: a local Delta table assembled with links reads as the table itself:
// partition directories linked to copies elsewhere, a data file linked in a real partition
// directory, and the log's commits linked (their listed sizes are the targets'), once their
// targets' folder is allowed.
func Test_deltaSymlinks(t *testing.T) {
	src := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_partitioned")
	tmp := t.TempDir()
	store, table := filepath.Join(tmp, "store"), filepath.Join(tmp, "table")
	require.NoError(t, os.CopyFS(store, os.DirFS(filepath.Join(src, "delta"))))
	require.NoError(t, os.MkdirAll(filepath.Join(table, "_delta_log"), 0o755))
	ents, err := os.ReadDir(store)
	require.NoError(t, err)
	linked := 0
	for _, e := range ents {
		switch {
		case e.Name() == "_delta_log":
			logs, err := os.ReadDir(filepath.Join(store, e.Name()))
			require.NoError(t, err)
			for _, l := range logs {
				require.NoError(t, os.Symlink(filepath.Join(store, e.Name(), l.Name()), filepath.Join(table, e.Name(), l.Name())))
			}
		case e.Name() == "letter=a": // a real directory of linked files
			parts, err := os.ReadDir(filepath.Join(store, e.Name()))
			require.NoError(t, err)
			require.NoError(t, os.Mkdir(filepath.Join(table, e.Name()), 0o755))
			for _, p := range parts {
				require.NoError(t, os.Symlink(filepath.Join("..", "..", "store", e.Name(), p.Name()), filepath.Join(table, e.Name(), p.Name())))
			}
		default:
			require.NoError(t, os.Symlink(filepath.Join("..", "store", e.Name()), filepath.Join(table, e.Name())))
			linked++
		}
	}
	require.True(t, linked >= 3, "linked partition directories", linked)
	want := oracleTable(t, filepath.Join(src, "expected", "latest", "table_content.parquet"))
	_, _, err = deltaRows(t, table, nil, pqscan.ScanOptions{})
	require.ErrorIs(t, err, pqscan.ErrOutOfScope) // the links lead out of the named table
	got, _, err := deltaRowsWith(t, table, pqscan.Options{AllowPrefixes: []string{store}}, pqscan.ScanOptions{})
	require.NoError(t, err)
	sameRows(t, "linked basic_partitioned", got, want)
}
