package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_icebergHTTP: the corpus tables served over HTTP read the oracle's rows as from the
// folder: a folder URL on a server with a ListObjectsV2 listing (metadata/ listed: the
// newest metadata file is found without a hint), a folder URL on a plain file server (only
// where the table has metadata/version-hint.text; without one, a clear error), and a
// metadata file's URL on either, with their deletes applied (the delete files read by range).
func Test_icebergHTTP(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(testcorpus.Dir(t), "iceberg")
	lister := faultserver.New(faultserver.Options{Dir: filepath.Join(dir, "tables"), ListPageSize: 7})
	listURL, err := lister.Start("127.0.0.1:0")
	require.NoError(t, err)
	defer lister.Close()
	plain := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(dir, "tables"))))
	defer plain.Close()
	for _, row := range testcorpus.IcebergTables(t) {
		name := row["name"]
		rel := "/" + name + "/"
		if row["table_root"] != "." {
			rel += row["table_root"] + "/"
		}
		want := icebirdRows(t, filepath.Join(dir, "expected", name, "oracle", "icebird", "rows.current.jsonl"))
		for _, src := range []string{listURL + rel, plain.URL + rel, plain.URL + rel + "metadata/" + row["metadata_file"]} {
			for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
				ds, err := pqscan.OpenDataset(ctx, []string{src}, pqscan.Options{Engine: eng})
				switch {
				case err != nil && src == plain.URL+rel && row["version_hint"] == "none":
					require.ErrorContains(t, err, "no Delta log nor Iceberg version hint", src)
					continue
				}
				require.NoError(t, err, src)
				got := datasetRows(t, ds)
				ds.Close()
				require.Equal(t, want, got, src)
			}
		}
	}
}
