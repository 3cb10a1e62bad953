package conformance

import (
	"fmt"
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
// commit of its log, with the probe for the next ones and, in the same round, the commit its
// stored state ends with again (which shows the table is still the one the state is of):
// neither _last_checkpoint nor the commits before. A table replaced by another ignores the
// state. The rows are the local table's at each version.
func Test_deltaMetadataCacheReopen(t *testing.T) {
	t.Run("native", func(t *testing.T) { deltaReopen(t, nil) })
	t.Run("wasm", func(t *testing.T) { deltaReopen(t, wasmHost(t)) }) // the session and its state in the module
}

func deltaReopen(t *testing.T, engine pqscan.Engine) {
	src := filepath.Join(testcorpus.Dir(t), "delta", "delta-rs", "simple_table")
	dir := t.TempDir()
	copyTree(t, src, dir)
	commit3 := filepath.Join(dir, "_delta_log", "00000000000000000003.json")
	saved, err := os.ReadFile(commit3)
	require.NoError(t, err)
	require.NoError(t, os.Remove(commit3)) // the table at version 2
	require.NoError(t, os.Remove(filepath.Join(dir, "_delta_log", "00000000000000000004.json")))

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
	o := pqscan.Options{MetadataCache: store, Engine: engine}
	check := func(what string) *pqscan.DeltaSnapshot {
		t.Helper()
		rows, m := openMetadata(t, srv.URL+"/", o)
		want, _ := openMetadata(t, dir+"/", pqscan.Options{})
		sameRows(t, what, rows, want)
		require.True(t, m.Delta != nil, what)
		return m.Delta
	}
	d := check("version 2")
	require.True(t, d.Version == 2 && !d.Resumed && d.ResumedFrom == nil && d.CommitsRead == 0, d)
	first := take()
	require.True(t, slices.Contains(first, "_last_checkpoint"), first)

	require.NoError(t, os.WriteFile(commit3, saved, 0o644))
	d = check("version 3")
	// The open says it resumed from the state of version 2 and read one commit after it.
	require.True(t, d.Version == 3 && d.Resumed && d.ResumedFrom != nil && *d.ResumedFrom == 2 && d.CommitsRead == 1, d)
	second := take()
	var want []string
	for v := 2; v <= 10; v++ {
		want = append(want, fmt.Sprintf("%020d.json", v))
	}
	require.True(t, slices.Equal(second, want), "only the new commit, the state's and the probes", second)

	// Replaced by a table of another log, longer: its commit 3 (empty) is not the state's.
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "_delta_log")))
	copyTree(t, filepath.Join(testcorpus.Dir(t), "delta", "delta-rs", "delta-0.8.0"), dir)
	for _, v := range []string{"2", "3", "4"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "_delta_log", "0000000000000000000"+v+".json"), nil, 0o644))
	}
	d = check("replaced")
	require.True(t, !d.Resumed && d.ResumedFrom == nil, "a replaced table's state is not resumed", d)
	t.Logf("first open %v; after one more commit %v; replaced %v", first, second, take())
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
