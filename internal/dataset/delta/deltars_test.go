package delta

import (
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_DeltaRS runs every delta-rs table through the listing planner and, where the plan
// needs no checkpoint Parquet, through the replay. Tables whose latest snapshot starts from a
// checkpoint Parquet (or a V2 checkpoint's Parquet sidecars) are checked here only up to the
// plan; INTEGRATION: the integrator must read those Parquet files with pqscan's engine, turn
// the rows into actions with ActionsFromRows, and compare with the commit-only replay below
// (Test_DeltaRS_commitsOnly), which these tables allow because they keep every commit.
func Test_DeltaRS(t *testing.T) {
	tests := []struct {
		name        string
		table       string
		files       int
		checkpoint  int64 // plan's checkpoint version (-1 none)
		commits     int
		needParquet bool
		err         error
		errMsg      string
	}{
		{name: "simple_table", table: "simple_table", files: 5, checkpoint: -1, commits: 5},
		{name: "simple_table_with_checkpoint", table: "simple_table_with_checkpoint", checkpoint: 10, commits: 0, needParquet: true},
		{name: "with_checkpoint_no_last_checkpoint", table: "with_checkpoint_no_last_checkpoint", checkpoint: 2, commits: 1, needParquet: true},
		{name: "checkpoint-v2-table", table: "checkpoint-v2-table", checkpoint: 8, commits: 1, needParquet: true},
		{name: "delta-0.8.0", table: "delta-0.8.0", files: 2, checkpoint: -1, commits: 2},
		{name: "delta-0.8.0-partitioned", table: "delta-0.8.0-partitioned", files: 6, checkpoint: -1, commits: 1},
		{name: "delta-0.8.0-null-partition", table: "delta-0.8.0-null-partition", files: 2, checkpoint: -1, commits: 1},
		{name: "delta-0.8.0-special-partition", table: "delta-0.8.0-special-partition", files: 2, checkpoint: -1, commits: 1},
		{name: "delta-2.2.0-partitioned-types", table: "delta-2.2.0-partitioned-types", files: 3, checkpoint: -1, commits: 1},
		{name: "partition-type-primitives", table: "partition-type-primitives", files: 16, checkpoint: -1, commits: 1},
		{name: "table_with_edge_timestamps", table: "table_with_edge_timestamps", files: 2, checkpoint: -1, commits: 1},
		{name: "table-with-dv-small", table: "table-with-dv-small", files: 1, checkpoint: -1, commits: 2},
		{name: "table_with_deletion_logs", table: "table_with_deletion_logs", checkpoint: 20, commits: 0, needParquet: true},
		{name: "table_with_column_mapping", table: "table_with_column_mapping", files: 2, checkpoint: -1, commits: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tableDir(t, "delta-rs/"+tc.table)
			s, plan, needParquet, err := loadPlanned(t, dir, -1)
			require.Equal(t, tc.checkpoint, plan.CheckpointVersion)
			require.Equal(t, tc.commits, len(plan.Commits))
			require.Equal(t, tc.needParquet, needParquet)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.ErrorContains(t, err, tc.errMsg)
				return
			}
			require.NoError(t, err)
			if needParquet {
				return
			}
			require.Equal(t, tc.files, len(s.Files))
			checkOnDisk(t, dir, s)
		})
	}
}

// Test_DeltaRS_commitsOnly replays the tables that have checkpoints from their JSON commits
// alone (all commits are kept), which is the reference the checkpoint path must equal.
func Test_DeltaRS_commitsOnly(t *testing.T) {
	tests := []struct {
		name    string
		table   string
		version int64
		files   int
		err     error
	}{
		{name: "simple_table_with_checkpoint", table: "simple_table_with_checkpoint", version: 10, files: 11},
		{name: "checkpoint-v2-table", table: "checkpoint-v2-table", version: 9, files: 8},
		{name: "table_with_deletion_logs before deletion vectors", table: "table_with_deletion_logs", version: 2, files: 1},
		{name: "table_with_deletion_logs latest", table: "table_with_deletion_logs", version: 20, files: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tableDir(t, "delta-rs/"+tc.table)
			s, err := replayCommits(t, dir, tc.version)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.files, len(s.Files))
			checkOnDisk(t, dir, s)
		})
	}
}

// with_checkpoint_no_last_checkpoint ships its log without data files: the replay succeeds and
// CheckFiles names the first missing file, as a host that listed the table would report it.
func Test_DeltaRS_missingDataFiles(t *testing.T) {
	dir := tableDir(t, "delta-rs/with_checkpoint_no_last_checkpoint")
	s, err := replayCommits(t, dir, 3)
	require.NoError(t, err)
	require.Equal(t, 1, len(s.Files))
	err = s.CheckFiles(func(string) bool { return false })
	require.ErrorIs(t, err, ErrMissingFile)
	require.ErrorContains(t, err, "part-00000-70b1dcdf-0236-4f63-a072-124cdbafd8a0-c000.snappy.parquet (added in version 3)")
}

func Test_DeltaRS_olderVersions(t *testing.T) {
	dir := tableDir(t, "delta-rs/simple_table_with_checkpoint")
	// Below the checkpoint: replayed from commit 0 without Parquet.
	s, plan, needParquet, err := loadPlanned(t, dir, 9)
	require.NoError(t, err)
	require.True(t, !needParquet)
	require.Equal(t, int64(-1), plan.CheckpointVersion)
	require.Equal(t, 10, len(plan.Commits))
	require.Equal(t, int64(9), s.Version)
	checkOnDisk(t, dir, s)
	_, _, _, err = loadPlanned(t, dir, 11)
	require.ErrorIs(t, err, ErrVersionNotFound)
}

func Test_DeltaRS_partitions(t *testing.T) {
	t.Run("special characters decode to the on-disk directory", func(t *testing.T) {
		dir := tableDir(t, "delta-rs/delta-0.8.0-special-partition")
		s, _, _, err := loadPlanned(t, dir, -1)
		require.NoError(t, err)
		require.Equal(t, "x=A%2FA", s.Files[0].Path[:len("x=A%2FA")])
		require.Equal(t, prune.StringValue("A/A"), s.Files[0].Partition[0].V)
		require.Equal(t, prune.StringValue("B B"), s.Files[1].Partition[0].V)
	})
	t.Run("null partition", func(t *testing.T) {
		dir := tableDir(t, "delta-rs/delta-0.8.0-null-partition")
		s, _, _, err := loadPlanned(t, dir, -1)
		require.NoError(t, err)
		require.Equal(t, prune.StringValue("A"), s.Files[0].Partition[0].V)
		require.True(t, s.Files[1].Partition[0].Null)
	})
	t.Run("integer partition typed from the schema", func(t *testing.T) {
		dir := tableDir(t, "delta-rs/delta-2.2.0-partitioned-types")
		s, _, _, err := loadPlanned(t, dir, -1)
		require.NoError(t, err)
		require.Equal(t, prune.Int, s.PartitionColumns[0].Type.Kind)
		require.Equal(t, prune.IntValue(4), s.Files[0].Partition[0].V)
		require.Equal(t, 2, len(s.DataSchema())+1) // c3 stored, c1/c2 partitions
		e, err := prune.Parse("c1 >= 5 AND c3 = 4")
		require.NoError(t, err)
		b, err := prune.Bind(e, func(p string) (prune.ColumnType, bool) {
			for _, f := range s.Schema {
				if f.Name == p {
					return f.Type.Prune()
				}
			}
			return prune.ColumnType{}, false
		})
		require.NoError(t, err)
		var keep []bool
		for i := range s.Files {
			keep = append(keep, b.MayMatch(s.FileStats(i)))
		}
		// c1=4 (partition fails), c1=5 with c3=6 (stats fail), c1=6 with c3=4 (kept).
		require.Equal(t, []bool{false, false, true}, keep)
	})
	t.Run("edge timestamps: year 9999 parses, max widened by the millisecond truncation", func(t *testing.T) {
		dir := tableDir(t, "delta-rs/table_with_edge_timestamps")
		s, _, _, err := loadPlanned(t, dir, -1)
		require.NoError(t, err)
		st, ok := s.Files[0].Stats.Column("BIG_DATE")
		require.True(t, ok)
		require.Equal(t, prune.TimestampValue(253402214400000000), st.Min)
		require.Equal(t, prune.TimestampValue(253402214400000999), st.Max)
		require.True(t, !st.MinExact && !st.MaxExact)
	})
	t.Run("dv table readable before the first deletion vector", func(t *testing.T) {
		dir := tableDir(t, "delta-rs/table-with-dv-small")
		s, _, _, err := loadPlanned(t, dir, 0)
		require.NoError(t, err)
		require.Equal(t, 1, len(s.Files))
	})
}

func Test_DeltaRS_v2Checkpoint(t *testing.T) {
	dir := tableDir(t, "delta-rs/checkpoint-v2-table")
	plan, err := PlanListing(listLog(t, dir), -1)
	require.NoError(t, err)
	require.Equal(t, []string{"00000000000000000008.checkpoint.e5ac4dc4-be27-4106-8a55-609707487f83.json"}, plan.Checkpoint)
	require.True(t, plan.CheckpointJSON)
	acts := readLog(t, dir, plan.Checkpoint[0])
	require.Equal(t, []string{"_sidecars/00000000000000000008.checkpoint.0000000001.0000000001.d55fb2cb-b8d3-4362-8572-c52142a9da1f.parquet"}, SidecarNames(acts))
	// Without the sidecar's actions the snapshot is refused.
	r := NewReplay()
	require.NoError(t, r.Checkpoint(8, acts))
	require.NoError(t, r.Commit(9, readLog(t, dir, plan.Commits[0])))
	_, err = r.Snapshot()
	require.ErrorIs(t, err, ErrMissingFile)
	require.ErrorContains(t, err, "d55fb2cb")
	// _last_checkpoint agrees with the listing, for hosts that cannot list.
	b := mustRead(t, dir, "_last_checkpoint")
	lc, err := ParseLastCheckpoint(b)
	require.NoError(t, err)
	cv, names, isJSON := ProbeStart(lc, -1)
	require.Equal(t, int64(8), cv)
	require.Equal(t, plan.Checkpoint, names)
	require.True(t, isJSON)
}
