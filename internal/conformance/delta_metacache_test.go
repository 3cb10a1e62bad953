package conformance

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// A Delta table reopened with Options.MetadataCache after one more commit reads only that
// commit of its log (and probes for the next, and for _last_checkpoint, which may have moved):
// the commits it read before are immutable and come from the store. The rows are the local
// table's at each version.
func Test_deltaMetadataCacheReopen(t *testing.T) {
	src := filepath.Join(testcorpus.Dir(t), "delta", "dat", "basic_append", "delta")
	dir := t.TempDir()
	copyTree(t, src, dir)
	commit1 := filepath.Join(dir, "_delta_log", "00000000000000000001.json")
	saved, err := os.ReadFile(commit1)
	require.NoError(t, err)
	require.NoError(t, os.Remove(commit1)) // the table at version 0

	var mu sync.Mutex
	var gets []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if strings.Contains(r.URL.Path, "/_delta_log/") && r.URL.Query().Get("list-type") == "" {
			gets = append(gets, strings.TrimPrefix(r.URL.Path, "/_delta_log/"))
		}
		mu.Unlock()
		http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		g := gets
		gets = nil
		slices.Sort(g)
		return g
	}
	store, err := pqscan.MetadataDir(t.TempDir(), 0)
	require.NoError(t, err)
	o := pqscan.Options{MetadataCache: store}
	read := func() []string {
		rows, _, err := deltaRowsWith(t, srv.URL, o, pqscan.ScanOptions{})
		require.NoError(t, err)
		return rows
	}
	want0, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	sameRows(t, "version 0", read(), want0)
	first := take()
	require.True(t, slices.Contains(first, "00000000000000000000.json"), first)

	require.NoError(t, os.WriteFile(commit1, saved, 0o644))
	want1, _, err := deltaRows(t, dir, nil, pqscan.ScanOptions{})
	require.NoError(t, err)
	sameRows(t, "version 1", read(), want1)
	second := take()
	require.True(t, slices.Contains(second, "00000000000000000001.json"), second)
	require.True(t, !slices.Contains(second, "00000000000000000000.json"), "the first commit came from the store", second)
	t.Logf("first open %v; after one more commit %v", first, second)
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	}))
}
