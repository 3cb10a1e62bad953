package delta

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/require"
)

// asOfTable writes commits 0..len(mtimes)-1, each adding file vN.parquet, with the given
// file modification times (ms); ict[v] > 0 writes commitInfo.inCommitTimestamp; meta[v] is
// the metaData configuration written at version v (version 0 always has one).
func asOfTable(t *testing.T, mtimes, ict []int64, meta map[int64]string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755))
	for v, mt := range mtimes {
		s := ""
		if v < len(ict) && ict[v] > 0 {
			s += fmt.Sprintf(`{"commitInfo":{"inCommitTimestamp":%d}}`+"\n", ict[v])
		}
		if v == 0 {
			s += `{"protocol":{"minReaderVersion":1,"minWriterVersion":7,"writerFeatures":["inCommitTimestamp"]}}` + "\n"
		}
		if c, ok := meta[int64(v)]; ok || v == 0 {
			s += `{"metaData":{"id":"t","format":{"provider":"parquet"},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{` + c + `}}}` + "\n"
		}
		s += fmt.Sprintf(`{"add":{"path":"v%d.parquet","partitionValues":{},"size":1,"modificationTime":0,"dataChange":true}}`+"\n", v)
		p := filepath.Join(dir, "_delta_log", CommitName(int64(v)))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		require.NoError(t, os.Chtimes(p, time.UnixMilli(mt), time.UnixMilli(mt)))
	}
	return dir
}

func Test_Loader_asOf(t *testing.T) {
	ict := `"delta.enableInCommitTimestamps":"true"`
	later := ict + `,"delta.inCommitTimestampEnablementVersion":"3","delta.inCommitTimestampEnablementTimestamp":"30000"`
	many := make([]int64, 40)
	manyICT := make([]int64, 40)
	for v := range many {
		many[v], manyICT[v] = int64(90000-v), int64(1000*(v+1)) // file times backwards: only the ICTs count
	}
	tests := []struct {
		name        string
		mtimes, ict []int64
		meta        map[int64]string
		asOf        int64
		want        int64 // -1: ErrVersionNotFound
	}{
		{name: "between commits", mtimes: []int64{1000, 2000, 3000, 4000}, asOf: 2500, want: 1},
		{name: "at a commit", mtimes: []int64{1000, 2000, 3000, 4000}, asOf: 3000, want: 2},
		{name: "after the latest", mtimes: []int64{1000, 2000, 3000, 4000}, asOf: 1e12, want: 3},
		{name: "before the first", mtimes: []int64{1000, 2000}, asOf: 999, want: -1},
		{name: "file times made increasing", mtimes: []int64{1000, 3000, 2000, 4000}, asOf: 3000, want: 1},
		{name: "file times made increasing, next", mtimes: []int64{1000, 3000, 2000, 4000}, asOf: 3001, want: 2},
		{name: "inCommitTimestamp from creation", mtimes: many, ict: manyICT, meta: map[int64]string{0: ict}, asOf: 17500, want: 16},
		{name: "inCommitTimestamp, first", mtimes: many, ict: manyICT, meta: map[int64]string{0: ict}, asOf: 1000, want: 0},
		{name: "inCommitTimestamp, before the first", mtimes: many, ict: manyICT, meta: map[int64]string{0: ict}, asOf: 999, want: -1},
		{name: "inCommitTimestamp, latest", mtimes: many, ict: manyICT, meta: map[int64]string{0: ict}, asOf: 1e12, want: 39},
		{name: "enabled later: before it by file time", mtimes: []int64{1000, 2000, 50000, 99000, 99000}, ict: []int64{0, 0, 0, 30000, 40000},
			meta: map[int64]string{3: later}, asOf: 2000, want: 1},
		{name: "enabled later: file time after the enablement is not used", mtimes: []int64{1000, 2000, 25000, 99000, 99000}, ict: []int64{0, 0, 0, 30000, 40000},
			meta: map[int64]string{3: later}, asOf: 29999, want: 2},
		{name: "enabled later: after it by inCommitTimestamp", mtimes: []int64{1000, 2000, 50000, 99000, 99000}, ict: []int64{0, 0, 0, 30000, 40000},
			meta: map[int64]string{3: later}, asOf: 39999, want: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := asOfTable(t, tc.mtimes, tc.ict, tc.meta)
			l := NewLoader(LoaderOptions{Version: -1, CanList: true, AsOf: &tc.asOf})
			_, _, err := runLoader(t, dir, l, nil)
			if tc.want < 0 {
				require.ErrorIs(t, err, ErrVersionNotFound)
				require.ErrorContains(t, err, "no commit at or before")
				return
			}
			require.NoError(t, err)
			s, err := l.Snapshot()
			require.NoError(t, err)
			require.Equal(t, tc.want, s.Version)
			require.Equal(t, int(tc.want+1), len(s.Files))
		})
	}
	t.Run("inCommitTimestamp search past a checkpoint", func(t *testing.T) {
		dir := asOfTable(t, many, manyICT, map[int64]string{0: ict})
		// A V2 JSON checkpoint at 30: the latest snapshot reads it and commits 31..39 only,
		// the search fetches earlier commits in rounds of asOfProbes.
		cp := `{"checkpointMetadata":{"version":30}}` + "\n" + `{"protocol":{"minReaderVersion":1,"minWriterVersion":7}}` + "\n" +
			`{"metaData":{"id":"t","format":{"provider":"parquet"},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":[],"configuration":{` + ict + `}}}` + "\n"
		for v := 0; v <= 30; v++ {
			cp += fmt.Sprintf(`{"add":{"path":"v%d.parquet","partitionValues":{},"size":1,"modificationTime":0,"dataChange":true}}`+"\n", v)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "_delta_log", "00000000000000000030.checkpoint.e5ac4dc4-be27-4106-8a55-609707487f83.json"), []byte(cp), 0o644))
		for _, c := range []struct{ asOf, want int64 }{{17500, 16}, {31000, 30}, {35500, 34}, {1000, 0}} {
			l := NewLoader(LoaderOptions{Version: -1, CanList: true, AsOf: &c.asOf})
			rounds, _, err := runLoader(t, dir, l, nil)
			require.NoError(t, err)
			s, err := l.Snapshot()
			require.NoError(t, err)
			require.Equal(t, c.want, s.Version)
			require.Equal(t, int(c.want+1), len(s.Files))
			require.True(t, rounds <= 5, "rounds %d", rounds)
		}
	})
	t.Run("inCommitTimestamp missing", func(t *testing.T) {
		dir := asOfTable(t, []int64{1000, 2000}, []int64{1000}, map[int64]string{0: ict})
		asOf := int64(1500)
		_, _, err := runLoader(t, dir, NewLoader(LoaderOptions{Version: -1, CanList: true, AsOf: &asOf}), nil)
		require.ErrorIs(t, err, ErrMalformed)
	})
	t.Run("no listing", func(t *testing.T) {
		dir := asOfTable(t, []int64{1000}, nil, nil)
		asOf := int64(1500)
		_, _, err := runLoader(t, dir, NewLoader(LoaderOptions{Version: -1, AsOf: &asOf}), nil)
		require.ErrorIs(t, err, ErrVersionNotFound)
	})
}
