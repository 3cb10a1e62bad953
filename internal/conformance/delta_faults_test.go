package conformance

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// copyTable copies the Delta table at src to a temporary folder, leaving out the
// _delta_log/ entries drop says to, and returns the copy's path.
func copyTable(t *testing.T, src string, drop func(name string) bool) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if strings.HasPrefix(rel, "_delta_log"+string(filepath.Separator)) && drop(filepath.Base(rel)) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	require.NoError(t, err)
	return dst
}

func deltaRSDir(t *testing.T, name string) string {
	return filepath.Join(testcorpus.Dir(t), "delta", "delta-rs", name)
}

// Test_deltaCheckpointOnly drops the JSON commits a checkpoint covers: the table must read the
// same from the checkpoint Parquet (classic) or the V2 JSON checkpoint and its Parquet
// sidecars, read with pqscan's engine.
func Test_deltaCheckpointOnly(t *testing.T) {
	for name, cp := range map[string]string{"simple_table_with_checkpoint": "00000000000000000010", "checkpoint-v2-table": "00000000000000000008",
		"table_with_deletion_logs": "00000000000000000020"} { // its file's deletion vector is in the checkpoint's add row
		src := deltaRSDir(t, name)
		dir := copyTable(t, src, func(n string) bool {
			return strings.HasSuffix(n, ".json") && !strings.Contains(n, "checkpoint") && n <= cp+".json"
		})
		got, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{})
		require.NoError(t, err, name)
		sameRows(t, name, got, deltaOracle(t, src))
	}
}

// Test_deltaVersions reads older snapshots, before and after a checkpoint.
func Test_deltaVersions(t *testing.T) {
	for _, c := range []struct {
		name string
		v    int64
	}{{"simple_table_with_checkpoint", 5}, {"simple_table_with_checkpoint", 10}, {"simple_table", 0}, {"simple_table", 2}, {"checkpoint-v2-table", 7}} {
		dir := deltaRSDir(t, c.name)
		got, _, err := deltaRows(t, dir, &c.v, pqscan.ScanOptions{})
		require.NoError(t, err, c.name, c.v)
		sameRows(t, c.name, got, deltaOracleAt(t, dir, c.v))
	}
	v := int64(99)
	_, _, err := deltaRows(t, deltaRSDir(t, "simple_table"), &v, pqscan.ScanOptions{})
	require.ErrorIs(t, err, delta.ErrVersionNotFound)
}

// Test_deltaSkipping checks that partition values and file statistics skip files before their
// footers or, when they prove every row matches, leave the file's scan without a filter, and
// that the rows are those of the same scan without any skipping.
func Test_deltaSkipping(t *testing.T) {
	dat := filepath.Join(testcorpus.Dir(t), "delta", "dat")
	for _, c := range []struct {
		table, where                 string
		total, afterPart, afterStats int
		// noResidual: the files read whose scan got no filter (partition values or file
		// statistics proved every row matches); the rows are still those of a scan that
		// filters every row (NoPrune).
		noResidual int
	}{
		{"basic_partitioned", "letter = 'a'", 6, 2, 2, 2},
		{"basic_partitioned", "letter IS NULL", 6, 1, 1, 1},
		{"basic_partitioned", "number > 5", 6, 6, 1, 1},
		{"basic_append", "number >= 4", 2, 2, 1, 1},
		{"basic_append", "letter = 'b' AND number = 2", 2, 2, 1, 0},
		{"basic_append", "a_float < 0", 2, 2, 0, 0},
		{"basic_append", "number > 0", 2, 2, 2, 2},
		{"basic_append", "number <= 3 OR letter = 'e'", 2, 2, 2, 1},
		{"basic_partitioned", "letter = 'b' AND number > 0", 6, 1, 1, 1},
		{"multi_partitioned", "number = 7", 0, 0, 0, 0},
	} {
		dir := filepath.Join(dat, c.table, "delta")
		got, r, err := deltaRows(t, dir, nil, pqscan.ScanOptions{Where: c.where})
		require.NoError(t, err, c.where)
		want, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{Where: c.where, NoPrune: true})
		require.NoError(t, err, c.where)
		sameRows(t, c.table+" "+c.where, got, want)
		rep := r.Report()
		if c.total == 0 {
			continue
		}
		require.Equal(t, c.total, rep.FilesTotal, c.where)
		require.Equal(t, c.afterPart, rep.FilesAfterPartitions, c.where)
		require.Equal(t, c.afterStats, rep.FilesAfterStats, c.where)
		require.True(t, rep.FilesRead <= c.afterStats, c.where)
		require.Equal(t, c.noResidual, rep.FilesNoResidual, c.where)
	}
}

// Test_deltaFaults: a malformed or truncated commit, a missing data file and a version gap
// are errors naming what is wrong; none returns rows.
func Test_deltaFaults(t *testing.T) {
	src := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta")
	commit1 := "00000000000000000001.json"
	open := func(dir string) error {
		ds, err := pqscan.OpenDataset(context.Background(), []string{dir + "/"}, pqscan.Options{})
		if err == nil {
			ds.Close()
		}
		return err
	}
	t.Run("truncated", func(t *testing.T) {
		dir := copyTable(t, src, func(string) bool { return false })
		p := filepath.Join(dir, "_delta_log", commit1)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o644))
		err = open(dir)
		require.ErrorIs(t, err, delta.ErrMalformed)
		require.ErrorContains(t, err, commit1)
	})
	t.Run("malformed", func(t *testing.T) {
		dir := copyTable(t, src, func(string) bool { return false })
		require.NoError(t, os.WriteFile(filepath.Join(dir, "_delta_log", commit1), []byte("{\"add\":{\"path\":3}}\n"), 0o644))
		err := open(dir)
		require.ErrorIs(t, err, delta.ErrMalformed)
		require.ErrorContains(t, err, commit1)
	})
	t.Run("missing file", func(t *testing.T) {
		dir := copyTable(t, src, func(string) bool { return false })
		ents, err := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
		require.NoError(t, err)
		require.NoError(t, os.Remove(ents[0]))
		err = open(dir)
		require.ErrorIs(t, err, delta.ErrMissingFile)
		require.ErrorContains(t, err, filepath.Base(ents[0]))
	})
	t.Run("version gap", func(t *testing.T) {
		dir := copyTable(t, deltaRSDir(t, "simple_table"), func(n string) bool { return n == "00000000000000000002.json" })
		err := open(dir)
		require.ErrorIs(t, err, delta.ErrVersionGap)
		require.ErrorContains(t, err, "00000000000000000002.json missing")
	})
	t.Run("size differs", func(t *testing.T) {
		dir := copyTable(t, src, func(string) bool { return false })
		ents, err := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
		require.NoError(t, err)
		f, err := os.OpenFile(ents[0], os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		f.Write([]byte("x"))
		f.Close()
		err = open(dir)
		require.ErrorIs(t, err, pqscan.ErrFileChanged)
	})
	t.Run("only source", func(t *testing.T) {
		_, err := pqscan.OpenDataset(context.Background(), []string{src + "/", src + "/"}, pqscan.Options{})
		require.ErrorIs(t, err, pqscan.ErrSource)
	})
}

// Test_deltaEmpty: a snapshot whose files were all removed is an empty table with the log's
// schema, not an error.
func Test_deltaEmpty(t *testing.T) {
	src := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta")
	dir := copyTable(t, src, func(string) bool { return false })
	ents, err := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
	require.NoError(t, err)
	var commit []byte
	for _, p := range ents {
		commit = append(commit, `{"remove":{"path":"`+filepath.Base(p)+`","deletionTimestamp":1,"dataChange":true}}`+"\n"...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_delta_log", "00000000000000000002.json"), commit, 0o644))
	got, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	require.Equal(t, 0, len(got))
	ds, err := pqscan.OpenDataset(context.Background(), []string{dir + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	require.Equal(t, 3, ds.Schema().NumFields())
}

// Test_deltaSkippingDifferential: over every readable delta-rs and DAT table, predicates on
// each column (partition and data) return the same rows with skipping as without.
func Test_deltaSkippingDifferential(t *testing.T) {
	var dirs []string
	for _, name := range []string{"simple_table", "simple_table_with_checkpoint", "checkpoint-v2-table", "delta-0.8.0",
		"delta-0.8.0-null-partition", "delta-0.8.0-partitioned", "delta-0.8.0-special-partition",
		"delta-2.2.0-partitioned-types", "partition-type-primitives", "table_with_edge_timestamps"} {
		dirs = append(dirs, deltaRSDir(t, name))
	}
	for _, c := range []string{"basic_append", "basic_partitioned", "multi_partitioned", "with_schema_change"} {
		dirs = append(dirs, filepath.Join(testcorpus.Dir(t), "delta", "dat", c, "delta"))
	}
	extra := map[string][]string{
		"delta-2.2.0-partitioned-types": {"c1 = 4", "c1 > 4", "c2 = 'b'", "c3 < 6"},
		"partition-type-primitives":     {"is_active = 'true'", "year = '2020'", "id >= 10"},
		"multi_partitioned":             {"letter = '/%20%f'", "date = DATE '1970-01-01'", "number = 7"},
		"delta-0.8.0-special-partition": {"x = 'A/A'", "x = 'B B'"},
		"table_with_edge_timestamps":    {"BIG_DATE > TIMESTAMP '9999-12-30 12:00:00'", "SOME_VALUE = 2"},
		"simple_table_with_checkpoint":  {"version = 3", "version > 8"},
	}
	for _, dir := range dirs {
		ds, err := pqscan.OpenDataset(context.Background(), []string{dir + "/"}, pqscan.Options{})
		require.NoError(t, err, dir)
		var preds []string
		for _, f := range ds.Schema().Fields() {
			preds = append(preds, `"`+f.Name+`" IS NULL`, `"`+f.Name+`" IS NOT NULL`)
		}
		ds.Close()
		key := filepath.Base(dir)
		if key == "delta" {
			key = filepath.Base(filepath.Dir(dir))
		}
		preds = append(preds, extra[key]...)
		for _, w := range preds {
			got, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{Where: w})
			require.NoError(t, err, key, w)
			want, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{Where: w, NoPrune: true})
			require.NoError(t, err, key, w)
			sameRows(t, key+" "+w, got, want)
		}
	}
}

// Test_deltaFoldCase: Delta column names are case-insensitive; a schema that spells a column
// differently from the files still reads its values (not nulls).
func Test_deltaFoldCase(t *testing.T) {
	src := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta")
	want, _, err := deltaRows(t, src, nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	dir := copyTable(t, src, func(string) bool { return false })
	p := filepath.Join(dir, "_delta_log", "00000000000000000000.json")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	renamed := strings.Replace(string(b), `\"name\":\"number\"`, `\"name\":\"NUMBER\"`, 1)
	require.True(t, renamed != string(b), "schemaString not found")
	require.NoError(t, os.WriteFile(p, []byte(renamed), 0o644))
	got, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	for i := range want {
		parts := strings.Split(strings.Replace(want[i], "number=", "NUMBER=", 1), "|")
		sort.Strings(parts)
		want[i] = strings.Join(parts, "|")
	}
	sameRows(t, "fold case", got, want)
}
