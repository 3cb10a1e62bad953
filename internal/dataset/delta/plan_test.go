package delta

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func logFiles(t testing.TB, names ...string) []LogFile {
	t.Helper()
	var out []LogFile
	for _, n := range names {
		f, ok := ParseLogName(n)
		require.True(t, ok, n)
		out = append(out, f)
	}
	return out
}

func Test_ParseLogName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
		want LogFile
	}{
		{name: "commit", in: "00000000000000000010.json", ok: true, want: LogFile{Name: "00000000000000000010.json", Kind: KindCommit, Version: 10, Size: -1}},
		{name: "with directory", in: "tbl/_delta_log/00000000000000000001.json", ok: true, want: LogFile{Name: "00000000000000000001.json", Kind: KindCommit, Version: 1, Size: -1}},
		{name: "classic checkpoint", in: "00000000000000000010.checkpoint.parquet", ok: true, want: LogFile{Name: "00000000000000000010.checkpoint.parquet", Kind: KindCheckpoint, Version: 10, Size: -1}},
		{name: "multi-part", in: "00000000000000000010.checkpoint.0000000002.0000000003.parquet", ok: true, want: LogFile{Name: "00000000000000000010.checkpoint.0000000002.0000000003.parquet", Kind: KindCheckpointPart, Version: 10, Part: 2, Parts: 3, Size: -1}},
		{name: "v2 json", in: "00000000000000000006.checkpoint.f5ee283b-37c7-46af-b64c-8f77c6a5c43a.json", ok: true, want: LogFile{Name: "00000000000000000006.checkpoint.f5ee283b-37c7-46af-b64c-8f77c6a5c43a.json", Kind: KindCheckpointV2, Version: 6, UUID: "f5ee283b-37c7-46af-b64c-8f77c6a5c43a", JSON: true, Size: -1}},
		{name: "v2 parquet", in: "00000000000000000006.checkpoint.f5ee283b-37c7-46af-b64c-8f77c6a5c43a.parquet", ok: true, want: LogFile{Name: "00000000000000000006.checkpoint.f5ee283b-37c7-46af-b64c-8f77c6a5c43a.parquet", Kind: KindCheckpointV2, Version: 6, UUID: "f5ee283b-37c7-46af-b64c-8f77c6a5c43a", Size: -1}},
		{name: "crc", in: "00000000000000000006.crc", ok: true, want: LogFile{Name: "00000000000000000006.crc", Kind: KindCRC, Version: 6, Size: -1}},
		{name: "compaction backwards", in: "00000000000000000006.00000000000000000004.compacted.json"},
		{name: "compaction", in: "00000000000000000004.00000000000000000006.compacted.json", ok: true, want: LogFile{Name: "00000000000000000004.00000000000000000006.compacted.json", Kind: KindCompaction, Version: 4, End: 6, Size: -1}},
		{name: "last checkpoint", in: "_last_checkpoint", ok: true, want: LogFile{Name: "_last_checkpoint", Kind: KindLastCheckpoint, Size: -1}},
		{name: "hadoop crc", in: ".00000000000000000000.json.crc", ok: false},
		{name: "short version", in: "0000000010.json", ok: false},
		{name: "part beyond count", in: "00000000000000000010.checkpoint.0000000004.0000000003.parquet", ok: false},
		{name: "bad uuid", in: "00000000000000000006.checkpoint.not-a-uuid.json", ok: false},
		{name: "tmp", in: ".tmp", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseLogName(tc.in)
			require.Equal(t, tc.ok, ok)
			if ok {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

func Test_PlanListing(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		version int64
		want    Plan
		err     error
	}{
		{name: "commits only", files: []string{"00000000000000000000.json", "00000000000000000001.json"}, version: -1,
			want: Plan{Version: 1, CheckpointVersion: -1, Commits: []string{"00000000000000000000.json", "00000000000000000001.json"}}},
		{name: "checkpoint then commits", files: []string{"00000000000000000002.checkpoint.parquet", "00000000000000000002.json", "00000000000000000003.json", "00000000000000000004.json", "_last_checkpoint"}, version: -1,
			want: Plan{Version: 4, CheckpointVersion: 2, Checkpoint: []string{"00000000000000000002.checkpoint.parquet"}, Commits: []string{"00000000000000000003.json", "00000000000000000004.json"}}},
		{name: "older version before checkpoint", files: []string{"00000000000000000000.json", "00000000000000000001.json", "00000000000000000002.checkpoint.parquet", "00000000000000000002.json"}, version: 1,
			want: Plan{Version: 1, CheckpointVersion: -1, Commits: []string{"00000000000000000000.json", "00000000000000000001.json"}}},
		{name: "complete multi-part", files: []string{"00000000000000000005.checkpoint.0000000002.0000000002.parquet", "00000000000000000005.checkpoint.0000000001.0000000002.parquet", "00000000000000000006.json"}, version: -1,
			want: Plan{Version: 6, CheckpointVersion: 5, Checkpoint: []string{"00000000000000000005.checkpoint.0000000001.0000000002.parquet", "00000000000000000005.checkpoint.0000000002.0000000002.parquet"}, Commits: []string{"00000000000000000006.json"}}},
		{name: "incomplete multi-part falls back to an older checkpoint", files: []string{"00000000000000000002.checkpoint.parquet", "00000000000000000003.json", "00000000000000000004.json", "00000000000000000005.checkpoint.0000000001.0000000002.parquet", "00000000000000000005.json"}, version: -1,
			want: Plan{Version: 5, CheckpointVersion: 2, Checkpoint: []string{"00000000000000000002.checkpoint.parquet"}, Commits: []string{"00000000000000000003.json", "00000000000000000004.json", "00000000000000000005.json"}}},
		{name: "v2 json preferred over classic", files: []string{"00000000000000000004.checkpoint.parquet", "00000000000000000004.checkpoint.e5ac4dc4-be27-4106-8a55-609707487f83.json"}, version: -1,
			want: Plan{Version: 4, CheckpointVersion: 4, Checkpoint: []string{"00000000000000000004.checkpoint.e5ac4dc4-be27-4106-8a55-609707487f83.json"}, CheckpointJSON: true}},
		{name: "compaction replaces its commits", files: []string{"00000000000000000000.json", "00000000000000000001.json", "00000000000000000002.json", "00000000000000000003.json", "00000000000000000004.json",
			"00000000000000000001.00000000000000000002.compacted.json", "00000000000000000001.00000000000000000003.compacted.json"}, version: -1,
			want: Plan{Version: 4, CheckpointVersion: -1, Commits: []string{"00000000000000000000.json", "00000000000000000001.00000000000000000003.compacted.json", "00000000000000000004.json"}}},
		{name: "compaction up to an older version", files: []string{"00000000000000000000.json", "00000000000000000001.json", "00000000000000000002.json", "00000000000000000003.json",
			"00000000000000000000.00000000000000000002.compacted.json", "00000000000000000000.00000000000000000003.compacted.json"}, version: 2,
			want: Plan{Version: 2, CheckpointVersion: -1, Commits: []string{"00000000000000000000.00000000000000000002.compacted.json"}}},
		{name: "compaction beyond the latest version ignored", files: []string{"00000000000000000000.json", "00000000000000000001.json", "00000000000000000000.00000000000000000005.compacted.json"}, version: -1,
			want: Plan{Version: 1, CheckpointVersion: -1, Commits: []string{"00000000000000000000.json", "00000000000000000001.json"}}},
		{name: "compaction across the checkpoint ignored", files: []string{"00000000000000000002.checkpoint.parquet", "00000000000000000002.json", "00000000000000000003.json", "00000000000000000001.00000000000000000003.compacted.json"}, version: -1,
			want: Plan{Version: 3, CheckpointVersion: 2, Checkpoint: []string{"00000000000000000002.checkpoint.parquet"}, Commits: []string{"00000000000000000003.json"}}},
		{name: "compaction over a missing commit is a gap", files: []string{"00000000000000000000.json", "00000000000000000002.json", "00000000000000000000.00000000000000000002.compacted.json"}, version: -1, err: ErrVersionGap},
		{name: "gap", files: []string{"00000000000000000000.json", "00000000000000000002.json"}, version: -1, err: ErrVersionGap},
		{name: "gap after checkpoint", files: []string{"00000000000000000002.checkpoint.parquet", "00000000000000000004.json"}, version: -1, err: ErrVersionGap},
		{name: "cleaned history", files: []string{"00000000000000000005.checkpoint.parquet", "00000000000000000006.json"}, version: 3, err: ErrVersionNotFound},
		{name: "future version", files: []string{"00000000000000000000.json"}, version: 1, err: ErrVersionNotFound},
		{name: "empty log", files: []string{"_last_checkpoint", "00000000000000000000.crc"}, version: -1, err: ErrNotATable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PlanListing(logFiles(t, tc.files...), tc.version)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// probe drives a Prober against a set of existing versions and returns the found commits and
// the number of rounds (batches) it took.
func probe(t testing.TB, p *Prober, exists func(int64) bool) ([]int64, int, error) {
	rounds := 0
	for !p.Done() {
		vs := p.Next()
		if len(vs) == 0 {
			break
		}
		rounds++
		for _, v := range vs {
			if err := p.Push(v, exists(v)); err != nil {
				return p.Commits(), rounds, err
			}
		}
	}
	return p.Commits(), rounds, nil
}

func Test_Prober(t *testing.T) {
	upTo := func(n int64) func(int64) bool { return func(v int64) bool { return v <= n } }
	tests := []struct {
		name          string
		after, target int64
		batch         int
		exists        func(int64) bool
		commits       []int64
		rounds        int
		err           error
	}{
		{name: "one at a time", after: -1, target: -1, batch: 1, exists: upTo(2), commits: []int64{0, 1, 2}, rounds: 4},
		{name: "batched", after: -1, target: -1, batch: 8, exists: upTo(2), commits: []int64{0, 1, 2}, rounds: 1},
		{name: "two batches", after: 10, target: -1, batch: 4, exists: upTo(16), commits: []int64{11, 12, 13, 14, 15, 16}, rounds: 2},
		{name: "after a checkpoint with no newer commit", after: 10, target: -1, batch: 4, exists: upTo(10), commits: nil, rounds: 1},
		{name: "target stops early", after: -1, target: 1, batch: 8, exists: upTo(100), commits: []int64{0, 1}, rounds: 1},
		{name: "target beyond the log", after: -1, target: 5, batch: 2, exists: upTo(2), err: ErrVersionNotFound},
		{name: "gap", after: -1, target: -1, batch: 4, exists: func(v int64) bool { return v != 1 && v < 4 }, err: ErrVersionGap},
		{name: "no table", after: -1, target: -1, batch: 2, exists: upTo(-1), err: ErrNotATable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			commits, rounds, err := probe(t, NewProber(tc.after, tc.target, tc.batch), tc.exists)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.commits, commits)
			require.Equal(t, tc.rounds, rounds)
		})
	}
	p := NewProber(-1, -1, 2)
	require.ErrorIs(t, p.Push(7, true), ErrOrder)
}

func Test_ProbeStart(t *testing.T) {
	two := 2
	lc := &LastCheckpoint{Version: 10, Parts: &two}
	cv, names, _ := ProbeStart(lc, -1)
	require.Equal(t, int64(10), cv)
	require.Equal(t, 2, len(names))
	cv, names, _ = ProbeStart(lc, 4) // older than the checkpoint: from commit 0
	require.Equal(t, int64(-1), cv)
	require.Equal(t, 0, len(names))
	cv, _, _ = ProbeStart(nil, -1)
	require.Equal(t, int64(-1), cv)
}

func Test_Replay_errors(t *testing.T) {
	proto, _ := ParseCommit("p", []byte(lineProtocol))
	meta, _ := ParseCommit("m", []byte(lineMetadata))
	add, _ := ParseCommit("a", []byte(addLine("p=2024-01-01/a.parquet", `"2024-01-01"`)))
	t.Run("gap", func(t *testing.T) {
		r := NewReplay()
		require.NoError(t, r.Commit(0, proto))
		require.ErrorIs(t, r.Commit(2, meta), ErrVersionGap)
	})
	t.Run("commits after a checkpoint start right after it", func(t *testing.T) {
		r := NewReplay()
		require.NoError(t, r.Checkpoint(5, append(proto, meta...)))
		require.ErrorIs(t, r.Commit(7, add), ErrVersionGap)
		require.NoError(t, r.Commit(6, add))
		s, err := r.Snapshot()
		require.NoError(t, err)
		require.Equal(t, int64(6), s.Version)
		require.Equal(t, int64(6), s.Files[0].Version)
	})
	t.Run("checkpoint after commit", func(t *testing.T) {
		r := NewReplay()
		require.NoError(t, r.Commit(0, proto))
		require.ErrorIs(t, r.Checkpoint(0, meta), ErrOrder)
	})
	t.Run("unknown sidecar", func(t *testing.T) {
		require.ErrorIs(t, NewReplay().Sidecar("_sidecars/x.parquet", add), ErrOrder)
	})
	t.Run("no protocol", func(t *testing.T) {
		r := NewReplay()
		require.NoError(t, r.Commit(0, meta))
		_, err := r.Snapshot()
		require.ErrorIs(t, err, ErrNoProtocol)
	})
	t.Run("no metadata", func(t *testing.T) {
		r := NewReplay()
		require.NoError(t, r.Commit(0, proto))
		_, err := r.Snapshot()
		require.ErrorIs(t, err, ErrNoMetadata)
	})
	t.Run("nothing", func(t *testing.T) {
		_, err := NewReplay().Snapshot()
		require.ErrorIs(t, err, ErrNotATable)
	})
	t.Run("bad partition value names the file", func(t *testing.T) {
		bad, _ := ParseCommit("a", []byte(addLine("p=x/a.parquet", `"x"`)))
		r := NewReplay()
		require.NoError(t, r.Commit(0, append(append(proto, meta...), bad...)))
		_, err := r.Snapshot()
		require.ErrorIs(t, err, ErrPartition)
		require.ErrorContains(t, err, `p=x/a.parquet: column "p"`)
	})
	t.Run("remove cancels by path and deletion vector", func(t *testing.T) {
		c, err := ParseCommit("c", []byte(lineProtocol+"\n"+lineMetadata+"\n"+addLine("a.parquet", `""`)+"\n"+addLine("b.parquet", "null")+"\n"+
			`{"remove":{"path":"b.parquet","deletionVector":{"storageType":"u","pathOrInlineDv":"x","sizeInBytes":1,"cardinality":1}}}`+"\n"+
			`{"remove":{"path":"a.parquet"}}`))
		require.NoError(t, err)
		r := NewReplay()
		require.NoError(t, r.Commit(0, c))
		s, err := r.Snapshot()
		require.NoError(t, err)
		require.Equal(t, 1, len(s.Files)) // b survives: the remove named another deletion vector
		require.Equal(t, "b.parquet", s.Files[0].Path)
		require.True(t, s.Files[0].Partition[0].Null)
	})
}
