package delta

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// testdataDir is the shared Delta test corpus (DAT reader cases and delta-rs tables).
const testdataDir = "../../../../shared/testdata/delta"

func tableDir(t testing.TB, rel string) string {
	t.Helper()
	dir := filepath.Join(testdataDir, rel)
	if _, err := os.Stat(filepath.Join(dir, "_delta_log")); err != nil {
		t.Skipf("testdata not available: %v", err)
	}
	return dir
}

// listLog lists _delta_log/ as a host would (names and sizes).
func listLog(t testing.TB, dir string) []LogFile {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "_delta_log"))
	require.NoError(t, err)
	var out []LogFile
	for _, e := range ents {
		if f, ok := ParseLogName(e.Name()); ok {
			info, err := e.Info()
			require.NoError(t, err)
			f.Size, f.ModTime = info.Size(), info.ModTime().UnixMilli()
			out = append(out, f)
		}
	}
	return out
}

func readLog(t testing.TB, dir, name string) []Action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "_delta_log", name))
	require.NoError(t, err)
	a, err := ParseCommit(name, b)
	require.NoError(t, err)
	return a
}

// replayCommits replays commits first..last from JSON only (no checkpoint).
func replayCommits(t testing.TB, dir string, last int64) (*Snapshot, error) {
	t.Helper()
	r := NewReplay()
	for v := int64(0); v <= last; v++ {
		require.NoError(t, r.Commit(v, readLog(t, dir, CommitName(v))))
	}
	return r.Snapshot()
}

// loadPlanned follows PlanListing; a plan that needs a checkpoint Parquet file cannot be
// completed here (reading it is the integration's job) and is reported with needParquet.
func loadPlanned(t testing.TB, dir string, version int64) (snap *Snapshot, plan Plan, needParquet bool, err error) {
	t.Helper()
	plan, err = PlanListing(listLog(t, dir), version)
	if err != nil {
		return nil, plan, false, err
	}
	r := NewReplay()
	if plan.CheckpointVersion >= 0 {
		if !plan.CheckpointJSON {
			return nil, plan, true, nil
		}
		acts := readLog(t, dir, plan.Checkpoint[0])
		require.NoError(t, r.Checkpoint(plan.CheckpointVersion, acts))
		if len(SidecarNames(acts)) > 0 {
			return nil, plan, true, nil // sidecars are Parquet
		}
	}
	for i, name := range plan.Commits {
		require.NoError(t, r.Commit(plan.CheckpointVersion+1+int64(i), readLog(t, dir, name)))
	}
	snap, err = r.Snapshot()
	return snap, plan, false, err
}

// rowsOf renders the live files of a snapshot of single-row files as sorted "partition
// values | number" rows, where number comes from the file's statistics (min == max for one
// row), so that a snapshot can be compared with a DAT case's expected table content.
func rowsOf(t testing.TB, s *Snapshot, col string) []string {
	t.Helper()
	var out []string
	for i, f := range s.Files {
		require.True(t, f.Stats != nil && f.Stats.NumRecords == 1, f.Path)
		var parts []string
		for c, pc := range s.PartitionColumns {
			parts = append(parts, pc.Name+"="+show(f.Partition[c]))
		}
		st, ok := s.FileStats(i)(col)
		require.True(t, ok && st.HasMin, f.Path)
		out = append(out, fmt.Sprintf("%s|%d", strings.Join(parts, ","), st.Min.I))
	}
	sort.Strings(out)
	return out
}

func show(v hive.Value) string {
	switch {
	case v.Null:
		return "null"
	case v.V.Kind == prune.Bytes:
		return string(v.V.B)
	case v.V.Kind == prune.Date:
		return fmt.Sprintf("d%d", v.V.I)
	}
	return fmt.Sprint(v.V.I)
}

func numRecords(s *Snapshot) int64 {
	var n int64
	for _, f := range s.Files {
		n += f.Stats.NumRecords
	}
	return n
}

// checkOnDisk checks that every live file exists under the table directory: the decoded paths
// are the real object keys.
func checkOnDisk(t testing.TB, dir string, s *Snapshot) {
	t.Helper()
	require.NoError(t, s.CheckFiles(func(p string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil
	}))
}

// Test_DAT replays the four Delta Acceptance Tests reader cases at every version they ship an
// expected table for. Expected rows were read from expected/<version>/table_content.parquet
// (arrow-go, once) and are written here as partition values and the `number` column.
func Test_DAT(t *testing.T) {
	tests := []struct {
		name    string
		table   string
		version int64
		rows    []string // nil: compare the row count only
		count   int64
	}{
		{name: "basic_append v0", table: "dat/basic_append/delta", version: 0, count: 3},
		{name: "basic_append v1", table: "dat/basic_append/delta", version: 1, count: 5},
		{name: "basic_append latest", table: "dat/basic_append/delta", version: -1, count: 5},
		{name: "basic_partitioned v0", table: "dat/basic_partitioned/delta", version: 0, count: 3,
			rows: []string{"letter=a|1", "letter=b|2", "letter=c|3"}},
		{name: "basic_partitioned v1", table: "dat/basic_partitioned/delta", version: 1, count: 6,
			rows: []string{"letter=a|1", "letter=a|4", "letter=b|2", "letter=c|3", "letter=e|5", "letter=null|6"}},
		{name: "multi_partitioned v0", table: "dat/multi_partitioned/delta", version: 0, count: 3,
			rows: []string{"letter=a,date=d0,data=hello|1", "letter=b,date=d0,data=world|2", "letter=b,date=d1,data=world|3"}},
		{name: "multi_partitioned v1", table: "dat/multi_partitioned/delta", version: 1, count: 5,
			rows: []string{"letter=a,date=d0,data=hello|1", "letter=a,date=null,data=x|4", "letter=b,date=d0,data=world|2", "letter=b,date=d1,data=world|3", "letter=null,date=null,data=null|5"}},
		{name: "multi_partitioned v2", table: "dat/multi_partitioned/delta", version: 2, count: 2,
			rows: []string{"letter=/%20%f,date=d0,data=hello|6", "letter=b,date=d0,data=😈|7"}},
		{name: "with_schema_change v1", table: "dat/with_schema_change/delta", version: 1, count: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tableDir(t, tc.table)
			s, _, needParquet, err := loadPlanned(t, dir, tc.version)
			require.NoError(t, err)
			require.True(t, !needParquet)
			require.Equal(t, tc.count, numRecords(s))
			if tc.rows != nil {
				require.Equal(t, tc.rows, rowsOf(t, s, "number"))
			}
			checkOnDisk(t, dir, s)
		})
	}
}

func Test_DAT_schema_change(t *testing.T) {
	dir := tableDir(t, "dat/with_schema_change/delta")
	s0, _, _, err := loadPlanned(t, dir, 0)
	require.NoError(t, err)
	require.Equal(t, "letter", s0.Schema[0].Name)
	s1, _, _, err := loadPlanned(t, dir, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"num1", "num2"}, []string{s1.Schema[0].Name, s1.Schema[1].Name})
	st, ok := s1.Files[0].Stats.Column("num1")
	require.True(t, ok)
	require.Equal(t, prune.IntValue(22), st.Min)
	require.Equal(t, prune.IntValue(66), st.Max)
}

func mustRead(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "_delta_log", name))
	require.NoError(t, err)
	return b
}
