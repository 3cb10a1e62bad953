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

// Test_icebergDeleteFileAbsolutePath: an Iceberg manifest naming its position delete file by a
// bare absolute path (/x/…-deletes.parquet, outside the table location) names that file, as
// a data file's bare path does: a local table reads it only where the open's scope covers it
// (ErrOutOfScope otherwise, though a file of that name lies under the table folder), and a
// remote table refuses it (it names a local file), with no request for it.
func Test_icebergDeleteFileAbsolutePath(t *testing.T) {
	const name = "icebird__java_bunnies" // a position delete file (and an equality one): 15 rows
	src := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", name)
	want := icebirdRows(t, filepath.Join(testcorpus.Dir(t), "iceberg", "expected", name, "oracle", "icebird", "rows.current.jsonl"))
	dir := t.TempDir()
	table, outside := filepath.Join(dir, "table"), filepath.Join(dir, "outside")
	copyTree(t, src, table)
	dels, _ := filepath.Glob(filepath.Join(src, "data", "*-pos-deletes.parquet"))
	require.Equal(t, 1, len(dels))
	del, err := os.ReadFile(dels[0])
	require.NoError(t, err)
	bare := filepath.ToSlash(filepath.Join(outside, filepath.Base(dels[0])))
	require.True(t, strings.HasPrefix(bare, "/"), bare)
	// The manifests name the delete file at the bare path; a copy lies there, and one under
	// the table folder (where resolving the path against the table would find it).
	avros, _ := filepath.Glob(filepath.Join(table, "metadata", "*.avro"))
	for _, p := range avros {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		b = rewriteAvro(t, b, func(s string) string {
			if strings.HasSuffix(s, "-pos-deletes.parquet") {
				return bare
			}
			return s
		})
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	for _, p := range []string{bare, filepath.Join(table, filepath.FromSlash(bare))} {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, del, 0o644))
	}
	read := func(src string, o pqscan.Options) ([]string, error) { return readTable(t, src, o) }
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		http.FileServer(http.Dir(table)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, e := range scopeEngines(t) {
		_, err := read(table+"/", pqscan.Options{Engine: e.engine})
		require.ErrorIs(t, err, pqscan.ErrOutOfScope, e.name)
		require.ErrorContains(t, err, bare, e.name)
		got, err := read(table+"/", pqscan.Options{Engine: e.engine, AllowPrefixes: []string{outside + "/"}})
		require.NoError(t, err, e.name)
		require.Equal(t, want, got, e.name)

		_, err = read(srv.URL+"/", pqscan.Options{Engine: e.engine})
		require.ErrorIs(t, err, pqscan.ErrOutOfScope, e.name)
		require.ErrorContains(t, err, "names a local file, and the table is remote", e.name)
		mu.Lock()
		require.True(t, !slices.ContainsFunc(asked, func(p string) bool { return strings.HasSuffix(p, "-pos-deletes.parquet") }), e.name, asked)
		asked = nil
		mu.Unlock()
	}
}
