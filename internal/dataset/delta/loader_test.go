package delta

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// runLoader plays the host for a Loader over a table directory: it lists _delta_log/ (when
// the loader asks), GETs objects (404 when absent) and, for checkpoint Parquet, pushes the
// actions given in parquet (the integration reads them with the engine; tests that cannot
// supply them pass nil and expect the Parquet request). It returns the rounds taken.
func runLoader(t testing.TB, dir string, l *Loader, parquet map[string][]Action) (int, []Request, error) {
	t.Helper()
	rounds := 0
	for {
		reqs, done, err := l.Next()
		if err != nil || done {
			return rounds, nil, err
		}
		rounds++
		for _, r := range reqs {
			switch r.Kind {
			case ReqList:
				err = l.PushList(listLog(t, dir))
			case ReqGet:
				b, rerr := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Path)))
				err = l.PushObject(r.Path, b, rerr == nil)
			case ReqCheckpoint:
				acts, ok := parquet[r.Path]
				if !ok {
					return rounds, reqs, nil
				}
				err = l.PushCheckpoint(r.Path, acts, true)
			}
			if err != nil {
				return rounds, nil, err
			}
		}
	}
}

func Test_Loader(t *testing.T) {
	tests := []struct {
		name    string
		table   string
		opts    LoaderOptions
		files   int
		version int64
		rounds  int
	}{
		{name: "listing, commits only", table: "dat/multi_partitioned/delta", opts: LoaderOptions{Version: -1, CanList: true}, files: 2, version: 2, rounds: 2},
		{name: "listing, older version", table: "dat/multi_partitioned/delta", opts: LoaderOptions{Version: 1, CanList: true}, files: 5, version: 1, rounds: 2},
		{name: "cdn, one probe batch", table: "dat/multi_partitioned/delta", opts: LoaderOptions{Version: -1}, files: 2, version: 2, rounds: 2},
		{name: "cdn, batches of one", table: "dat/multi_partitioned/delta", opts: LoaderOptions{Version: -1, ProbeBatch: 1}, files: 2, version: 2, rounds: 5},
		{name: "cdn, older version", table: "dat/basic_partitioned/delta", opts: LoaderOptions{Version: 0}, files: 3, version: 0, rounds: 2},
		{name: "cdn, checkpointed table replays older versions from commit 0", table: "delta-rs/simple_table_with_checkpoint", opts: LoaderOptions{Version: 4, ProbeBatch: 16}, files: 0, version: 4, rounds: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tableDir(t, tc.table)
			l := NewLoader(tc.opts)
			rounds, missing, err := runLoader(t, dir, l, nil)
			require.NoError(t, err)
			require.Equal(t, 0, len(missing))
			require.Equal(t, tc.rounds, rounds)
			s, err := l.Snapshot()
			require.NoError(t, err)
			require.Equal(t, tc.version, s.Version)
			if tc.files > 0 {
				require.Equal(t, tc.files, len(s.Files))
			}
		})
	}
}

// Test_Loader_checkpoints: where a checkpoint is Parquet, the loader asks for it in the same
// round as the commits; given its actions (here: the commit-only replay's state expressed as
// actions, standing in for the engine's decoded rows) it completes the snapshot.
func Test_Loader_checkpoints(t *testing.T) {
	dir := tableDir(t, "delta-rs/simple_table_with_checkpoint")
	for _, canList := range []bool{true, false} {
		l := NewLoader(LoaderOptions{Version: -1, CanList: canList})
		_, reqs, err := runLoader(t, dir, l, nil)
		require.NoError(t, err)
		var cp []string
		for _, r := range reqs {
			if r.Kind == ReqCheckpoint {
				cp = append(cp, r.Path)
			}
		}
		require.Equal(t, []string{"_delta_log/00000000000000000010.checkpoint.parquet"}, cp, canList)

		// INTEGRATION: these actions must come from reading the checkpoint Parquet.
		ref, err := replayCommits(t, dir, 10)
		require.NoError(t, err)
		acts := []Action{{Protocol: &ref.Protocol}, {Metadata: &ref.Metadata}}
		for _, f := range ref.Files {
			acts = append(acts, Action{Add: &Add{Path: f.Path, Size: f.Size}})
		}
		l = NewLoader(LoaderOptions{Version: -1, CanList: canList})
		_, reqs, err = runLoader(t, dir, l, map[string][]Action{cp[0]: acts})
		require.NoError(t, err)
		require.Equal(t, 0, len(reqs))
		s, err := l.Snapshot()
		require.NoError(t, err)
		require.Equal(t, int64(10), s.Version)
		require.Equal(t, len(ref.Files), len(s.Files))
	}
}

// Test_Loader_v2: a V2 JSON checkpoint is fetched as an object, then its sidecar is asked for
// as Parquet in a round of its own.
func Test_Loader_v2(t *testing.T) {
	dir := tableDir(t, "delta-rs/checkpoint-v2-table")
	for _, canList := range []bool{true, false} {
		l := NewLoader(LoaderOptions{Version: -1, CanList: canList})
		_, reqs, err := runLoader(t, dir, l, nil)
		require.NoError(t, err)
		require.Equal(t, []Request{{Kind: ReqCheckpoint, Path: "_delta_log/_sidecars/00000000000000000008.checkpoint.0000000001.0000000001.d55fb2cb-b8d3-4362-8572-c52142a9da1f.parquet"}}, reqs, canList)
	}
}

func Test_Loader_errors(t *testing.T) {
	t.Run("not a table", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(dir, "_delta_log"), 0o755))
		for _, canList := range []bool{true, false} {
			_, _, err := runLoader(t, dir, NewLoader(LoaderOptions{Version: -1, CanList: canList}), nil)
			require.ErrorIs(t, err, ErrNotATable, canList)
		}
	})
	t.Run("future version", func(t *testing.T) {
		dir := tableDir(t, "dat/basic_append/delta")
		for _, canList := range []bool{true, false} {
			_, _, err := runLoader(t, dir, NewLoader(LoaderOptions{Version: 7, CanList: canList}), nil)
			require.ErrorIs(t, err, ErrVersionNotFound, canList)
		}
	})
	t.Run("listed commit vanishes", func(t *testing.T) {
		l := NewLoader(LoaderOptions{Version: -1, CanList: true})
		_, _, _ = l.Next()
		require.NoError(t, l.PushList(logFiles(t, "00000000000000000000.json")))
		err := l.PushObject("_delta_log/00000000000000000000.json", nil, false)
		require.ErrorIs(t, err, ErrMissingFile)
		_, _, err = l.Next()
		require.True(t, errors.Is(err, ErrMissingFile))
	})
	t.Run("unrequested push", func(t *testing.T) {
		l := NewLoader(LoaderOptions{Version: -1})
		require.ErrorIs(t, l.PushObject("_delta_log/x.json", nil, true), ErrOrder)
	})
	t.Run("snapshot too early", func(t *testing.T) {
		_, err := NewLoader(LoaderOptions{}).Snapshot()
		require.ErrorIs(t, err, ErrOrder)
	})
}
