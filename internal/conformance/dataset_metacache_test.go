package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/metacache/mctest"
	"github.com/pqscan/pqscan/internal/require"
)

// listedCacheDataset serves DIR/ds/ (files of rows rows each, the i-th starting at i*1000) on a
// listing server, and gives the options of an open with a metadata store of its own.
func listedCacheDataset(t *testing.T, files []string, rows int64) (string, *faultserver.Server, string, pqscan.Options) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "ds"), 0o755))
	for i, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "ds", f), mctest.File(t, rows, int64(i)*1000), 0o644))
	}
	srv := faultserver.New(faultserver.Options{Dir: dir})
	base, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	store, err := pqscan.MetadataDir(t.TempDir(), 0)
	require.NoError(t, err)
	return dir, srv, base, pqscan.Options{MetadataCache: store}
}

// A listed dataset opened again with Options.MetadataCache reads no file's tail: the listing's
// size and ETag show each stored tail is of the file as listed. Each file then costs one
// request fewer, and the rows are those by construction. A file replaced between the opens
// (another ETag in the listing) is read again, with its new rows.
func Test_datasetMetadataCache(t *testing.T) {
	files := []string{"a.parquet", "b.parquet", "c.parquet"}
	dir, srv, base, o := listedCacheDataset(t, files, 10000)
	so := pqscan.ScanOptions{Where: "id < 10"} // a row group before the tail: one data request
	open := func() ([]string, map[string]faultserver.PathStats) {
		t.Helper()
		before := srv.Stats()
		rows, _, err := deltaRowsWith(t, base+"/ds", o, so)
		require.NoError(t, err)
		out := map[string]faultserver.PathStats{}
		for _, f := range files {
			a, b := before["/ds/"+f], srv.Stats()["/ds/"+f]
			out[f] = faultserver.PathStats{Requests: b.Requests - a.Requests, Bytes: b.Bytes - a.Bytes}
		}
		return rows, out
	}
	first, st1 := open()
	require.Equal(t, 30, len(first))
	again, st2 := open()
	sameRows(t, "again", again, first)
	for _, f := range files {
		require.True(t, st2[f].Requests == st1[f].Requests-1 && st2[f].Bytes < st1[f].Bytes, f, st1[f], st2[f])
	}
	// Replaced: c.parquet's rows now start at 5000; its tail is read again.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ds", "c.parquet"), mctest.File(t, 10000, 5000), 0o644))
	replaced, st3 := open()
	want, _, err := deltaRowsWith(t, dir+"/ds", pqscan.Options{}, so)
	require.NoError(t, err)
	sameRows(t, "replaced", replaced, want)
	require.Equal(t, st1["c.parquet"].Requests, st3["c.parquet"].Requests, "the replaced file's tail is read")
	t.Logf("first %v; again %v", st1, st2)
}
