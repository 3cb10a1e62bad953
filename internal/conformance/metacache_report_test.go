package conformance

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// openMetadata opens src as a dataset, scans every row and returns the rows and what the
// dataset says came from the metadata store.
func openMetadata(t *testing.T, src string, o pqscan.Options) ([]string, pqscan.DatasetMetadata) {
	t.Helper()
	ds, err := pqscan.OpenDataset(context.Background(), []string{src}, o)
	require.NoError(t, err, src)
	defer ds.Close()
	rows := datasetRows(t, ds)
	return rows, ds.Metadata()
}

// Test_datasetMetadataReport: a dataset opened twice with Options.MetadataCache says, the
// second time, what came from the store: a listed folder's tails (one request each), an
// Iceberg table's metadata file, manifest list and manifests and its data files' tails; the
// first open says nothing came from it. The rows are the oracle's both times.
func Test_datasetMetadataReport(t *testing.T) {
	t.Run("listed", func(t *testing.T) {
		_, _, base, o := listedCacheDataset(t, []string{"a.parquet", "b.parquet", "c.parquet"}, 1000)
		first, m1 := openMetadata(t, base+"/ds/", o)
		require.Equal(t, 3000, len(first))
		require.True(t, m1.TailsFromCache == 0 && m1.RequestsSaved == 0 && m1.Delta == nil, m1)
		again, m2 := openMetadata(t, base+"/ds/", o)
		sameRows(t, "again", again, first)
		require.True(t, m2.TailsFromCache == 3 && m2.RequestsSaved == 3 && len(m2.ObjectsFromCache) == 0, m2)
	})
	t.Run("iceberg", func(t *testing.T) {
		dir := filepath.Join(testcorpus.Dir(t), "iceberg")
		name := "lithium__no_partitioning"
		srv := faultserver.New(faultserver.Options{Dir: filepath.Join(dir, "tables")})
		base, err := srv.Start("127.0.0.1:0")
		require.NoError(t, err)
		defer srv.Close()
		want := icebirdRows(t, filepath.Join(dir, "expected", name, "oracle", "icebird", "rows.current.jsonl"))
		for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
			store, err := pqscan.MetadataDir(t.TempDir(), 0)
			require.NoError(t, err)
			o := pqscan.Options{MetadataCache: store, Engine: eng}
			first, m1 := openMetadata(t, base+"/"+name+"/", o)
			require.Equal(t, want, first)
			require.True(t, len(m1.ObjectsFromCache) == 0 && m1.TailsFromCache == 0, m1)
			again, m2 := openMetadata(t, base+"/"+name+"/", o)
			require.Equal(t, want, again)
			objs := slices.Clone(m2.ObjectsFromCache)
			slices.Sort(objs)
			require.True(t, len(objs) == 3 && strings.HasSuffix(objs[0], ".metadata.json") &&
				strings.HasSuffix(objs[1], "-m0.avro") && strings.Contains(objs[2], "/snap-"), objs)
			require.True(t, m2.TailsFromCache > 0 && m2.RequestsSaved == int64(3+m2.TailsFromCache), m2)
		}
	})
}
