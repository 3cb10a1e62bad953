package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/icebergtest"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_icebergFaults: a table whose metadata objects are missing or cut short, or whose
// delete file is gone over HTTP, fails with an error naming the object, from the open or the
// first scan (which reads the manifests); never rows.
func Test_icebergFaults(t *testing.T) {
	const (
		list     = "metadata/snap-6247215453669530946-1-bb0c25c8-adcf-4b05-8d6d-142300e83cc8.avro"
		manifest = "metadata/bb0c25c8-adcf-4b05-8d6d-142300e83cc8-m0.avro"
	)
	truncate := func(rel string) func(root string) error {
		return func(root string) error {
			p := filepath.Join(root, rel)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, b[:len(b)/2], 0o644)
		}
	}
	for _, tc := range []struct {
		name   string
		change func(root string) error
		is     error
		want   string
	}{
		{"missing manifest", func(root string) error { return os.Remove(filepath.Join(root, manifest)) }, iceberg.ErrMissingFile, manifest},
		{"missing manifest list", func(root string) error { return os.Remove(filepath.Join(root, list)) }, iceberg.ErrMissingFile, list},
		{"truncated manifest", truncate(manifest), nil, manifest},
		{"truncated manifest list", truncate(list), nil, list},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyIcebergTable(t, "lithium__no_partitioning")
			require.NoError(t, countTable(root))
			require.NoError(t, tc.change(root))
			err := countTable(root)
			require.ErrorContains(t, err, tc.want)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
		})
	}

	t.Run("position delete file 404 over HTTP", func(t *testing.T) {
		const posFile = "data/00000-26-3221b69e-b966-4966-b438-81696899d868-00001-deletes.parquet"
		root := copyIcebergTable(t, "lithium__refdeletes3")
		require.NoError(t, os.Remove(filepath.Join(root, posFile)))
		fs := faultserver.New(faultserver.Options{Dir: filepath.Dir(root)})
		base, err := fs.Start("127.0.0.1:0")
		require.NoError(t, err)
		defer fs.Close()
		for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
			ctx := context.Background()
			ds, err := pqscan.OpenDataset(ctx, []string{base + "/" + filepath.Base(root) + "/"}, pqscan.Options{Engine: eng})
			require.NoError(t, err)
			_, _, err = ds.Count(ctx, pqscan.ScanOptions{})
			ds.Close()
			require.ErrorContains(t, err, posFile)
		}
	})
}

// Test_icebergFileChangedMidScan: a data file that changes between its footer and its pages
// (another ETag) fails the scan with ErrFileChanged naming the file, never mixing versions.
func Test_icebergFileChangedMidScan(t *testing.T) {
	tbl := icebergtest.Table{Parts: 1, Files: 1, Rows: 1000}
	root := t.TempDir()
	require.NoError(t, tbl.Write(root, filepath.Join(testcorpus.Dir(t), icebergtest.Template)))
	data := icebergtest.DataFile(0, 0)
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, data) {
			// The first answer is of one version, every later one of another.
			w.Header().Set("ETag", map[bool]string{true: `"v1"`, false: `"v2"`}[served.Add(1) == 1])
		}
		http.FileServer(http.Dir(root)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		served.Store(0)
		ds, err := pqscan.OpenDataset(ctx, []string{srv.URL + "/metadata/v1.metadata.json"}, pqscan.Options{Engine: eng, TailSize: 64})
		require.NoError(t, err)
		_, err = scanErr(ctx, ds, pqscan.ScanOptions{})
		ds.Close()
		require.ErrorIs(t, err, pqscan.ErrFileChanged)
		require.ErrorContains(t, err, filepath.Base(data)) // in the URL, escaped
	}
}
