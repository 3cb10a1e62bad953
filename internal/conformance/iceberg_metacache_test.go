package conformance

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_icebergRecreatedHadoopTable: a Hadoop-style Iceberg table (version-hint.text,
// metadata/vN.metadata.json) dropped and re-created under the same path reuses its metadata
// files' names; opened again with Options.MetadataCache it reads the new table's rows, never
// the old table's metadata from the store. Both tables are at v5; the server does not list.
func Test_icebergRecreatedHadoopTable(t *testing.T) {
	ice := filepath.Join(testcorpus.Dir(t), "iceberg")
	dir := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		store, err := pqscan.MetadataDir(t.TempDir(), 0)
		require.NoError(t, err)
		o := pqscan.Options{MetadataCache: store, Engine: eng}
		for _, name := range []string{"icebird__java_bunnies", "icebird__spark_bunnies", "icebird__java_bunnies"} {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "t")))
			copyTree(t, filepath.Join(ice, "tables", name), filepath.Join(dir, "t"))
			got, _ := openMetadata(t, srv.URL+"/t/", o)
			want := icebirdRows(t, filepath.Join(ice, "expected", name, "oracle", "icebird", "rows.current.jsonl"))
			require.Equal(t, want, got, name)
		}
	}
}
