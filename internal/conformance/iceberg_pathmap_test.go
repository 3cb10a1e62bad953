package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Path maps: a corpus table whose data/ folder (data files, position and equality delete
// files, Puffin deletion vectors) moved out of the table folder, nothing rewritten, reads its
// oracle's rows once the location's data/ prefix is mapped to the new folder: the delete
// files' targets still match the data files by the paths the metadata writes.

// pathMapTables are corpus tables with every kind of delete file, by their data/ prefix as
// the metadata writes it.
var pathMapTables = map[string]string{
	"icebird__java_bunnies":     "s3a://hyperparam-iceberg/java/bunnies/data", // position and equality deletes
	"lithium__deletion_vectors": "s3a://warehouse/deletion_vectors/data",      // deletion vectors
}

// movedIcebergTable copies the corpus table name into a temporary folder and moves its data/
// folder to another one: it returns the table folder and the folder now holding data/.
func movedIcebergTable(t *testing.T, name string) (root, moved string) {
	t.Helper()
	// A name a URL must escape: the base's and the mapped rest's escapes are decoded once.
	root, moved = copyIcebergTable(t, name), filepath.Join(t.TempDir(), "moved dir %41")
	require.NoError(t, os.Mkdir(moved, 0o755))
	require.NoError(t, os.Rename(filepath.Join(root, "data"), filepath.Join(moved, "data")))
	return root, moved
}

func icebergWant(t *testing.T, name string) []string {
	return icebirdRows(t, filepath.Join(testcorpus.Dir(t), "iceberg", "expected", name, "oracle", "icebird", "rows.current.jsonl"))
}

func readTable(t *testing.T, src string, o pqscan.Options) ([]string, error) {
	t.Helper()
	ds, err := pqscan.OpenDataset(context.Background(), []string{src}, o)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	// Manifests and delete files are read by the scan, so their errors come from it.
	rows, err := orderedRowsErr(t, ds, pqscan.ScanOptions{})
	sort.Strings(rows)
	return rows, err
}

// Test_icebergPathMap: natively and in the module, with the base a local folder and a file:
// URL; without the mapping the moved files are missing.
func Test_icebergPathMap(t *testing.T) {
	for name, prefix := range pathMapTables {
		root, moved := movedIcebergTable(t, name)
		want := icebergWant(t, name)
		for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
			for _, base := range []string{filepath.Join(moved, "data"), (&url.URL{Scheme: "file", Path: filepath.ToSlash(moved) + "/data/"}).String()} {
				got, err := readTable(t, root+"/", pqscan.Options{Engine: eng, PathMap: map[string]string{prefix: base}})
				require.NoError(t, err, name, base)
				require.Equal(t, want, got, name, base)
			}
			// A shorter prefix maps the folder above: the longest (the table location) wins
			// for the metadata, the mapping for nothing, so data/ is missing.
			_, err := readTable(t, root+"/", pqscan.Options{Engine: eng, PathMap: map[string]string{"s3a://nowhere": moved}})
			require.ErrorContains(t, err, "data", name)
			_, err = readTable(t, root+"/", pqscan.Options{Engine: eng})
			require.ErrorContains(t, err, "data", name)
		}
	}
}

// Test_icebergPathMapHTTP: a table over HTTP whose data/ moved to another server; a mapping
// of a remote table's files onto a local folder is refused before anything is read.
func Test_icebergPathMapHTTP(t *testing.T) {
	for name, prefix := range pathMapTables {
		root, moved := movedIcebergTable(t, name)
		lister := faultserver.New(faultserver.Options{Dir: root}) // a table without a version hint is listed
		tableURL, err := lister.Start("127.0.0.1:0")
		require.NoError(t, err)
		defer lister.Close()
		other := httptest.NewServer(http.FileServer(http.Dir(moved)))
		defer other.Close()
		want := icebergWant(t, name)
		for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
			got, err := readTable(t, tableURL+"/", pqscan.Options{Engine: eng, PathMap: map[string]string{prefix: other.URL + "/data"}})
			require.NoError(t, err, name)
			require.Equal(t, want, got, name)
			_, err = readTable(t, tableURL+"/", pqscan.Options{Engine: eng, PathMap: map[string]string{prefix: filepath.Join(moved, "data")}})
			require.ErrorIs(t, err, pqscan.ErrOutOfScope, name)
			require.ErrorContains(t, err, "the table is remote", name)
		}
	}
}

// Test_icebergPathMapMalformed: a malformed map fails the open, saying what is wrong.
func Test_icebergPathMapMalformed(t *testing.T) {
	root := filepath.Join(testcorpus.Dir(t), "iceberg", "tables", "icebird__java_bunnies") + "/"
	for m, msg := range map[string]string{
		"relative/prefix": "not an absolute URI",
		"s3a://b/t":       "is not an http(s) URL",
	} {
		base := "/tmp"
		if m == "s3a://b/t" {
			base = "folder"
		}
		_, err := readTable(t, root, pqscan.Options{PathMap: map[string]string{m: base}})
		require.ErrorIs(t, err, pqscan.ErrSource, m)
		require.ErrorContains(t, err, msg, m)
	}
	_, err := pqscan.ParsePathMap("s3a://b/t")
	require.ErrorIs(t, err, pqscan.ErrSource)
	require.ErrorContains(t, err, "not PREFIX=BASE")
}
