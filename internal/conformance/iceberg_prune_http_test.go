package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/faultserver"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// requestLog is an http.Handler that records the paths it is asked for, then serves them.
type requestLog struct {
	h     http.Handler
	mu    sync.Mutex
	paths []string
}

func (l *requestLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.paths = append(l.paths, r.URL.Path)
	l.mu.Unlock()
	l.h.ServeHTTP(w, r)
}

// take returns the distinct paths asked since the last take, sorted, under prefix (cut).
func (l *requestLog) take(prefix string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, p := range l.paths {
		if rel, ok := strings.CutPrefix(p, prefix); ok && !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	l.paths = nil
	sort.Strings(out)
	return out
}

// Test_icebergScanPrunesManifests: each scan of an Iceberg table over HTTP reads only the
// manifests its own predicate may match (by their partition summaries, with the spec each
// was written with) and then only the data files it may match, before any footer; a manifest
// read once is not fetched again. The table's partition spec evolved from identity(c1) to
// identity(c3): one manifest per spec.
func Test_icebergScanPrunesManifests(t *testing.T) {
	ctx := context.Background()
	const table = "lithium__partition_evolution"
	log := &requestLog{h: faultserver.New(faultserver.Options{Dir: filepath.Join(testcorpus.Dir(t), "iceberg", "tables")})}
	srv := httptest.NewServer(log)
	defer srv.Close()
	for _, eng := range []pqscan.Engine{pqscan.Native{}, wasmHost(t)} {
		ds, err := pqscan.OpenDataset(ctx, []string{srv.URL + "/" + table + "/"}, pqscan.Options{Engine: eng})
		require.NoError(t, err)
		opened := log.take("/" + table + "/")
		for _, p := range opened {
			require.True(t, strings.HasPrefix(p, "metadata/") && !strings.HasSuffix(p, "-m0.avro"), "the open reads no manifest:", opened)
		}
		const (
			spec1 = "metadata/4d7915f9-6916-46a6-8d60-15f71252c17e-m0.avro" // identity(c1), identity(c2)
			spec2 = "metadata/8a56b416-7620-4255-938a-a003682bc394-m0.avro" // identity(c3)
			c3is2 = "data/c3=2.0/20250311_095902_00004_jx9gc-8917792a-57e7-46eb-9a6a-204323cc05f0.parquet"
			c1is2 = "data/c1=2/c2=2025-03-04/20250311_095424_00001_jx9gc-0028c817-71c7-441e-94ce-388913690ea1.parquet"
		)
		for _, tc := range []struct {
			where string
			want  []string // the objects the scan fetches
		}{
			// c1 = 3 is only under the second spec: its manifest, then its one file.
			{"c1 = 3", []string{c3is2, spec2}},
			// c3 = 42 is outside the second spec's partitions; the first spec's files are
			// skipped by their c3 metrics but one.
			{"c3 = 42", []string{c1is2, spec1}},
			// Everything read before is held: the manifests, the footers.
			{"c1 = 3", nil},
			{"", []string{
				"data/c1=1/c2=2025-03-02/20250311_095424_00001_jx9gc-5ee68e7a-8194-4bed-ab99-76751223b13d.parquet",
				"data/c1=1/c2=2025-03-03/20250311_095424_00001_jx9gc-96ef0a9a-8769-4932-b6dd-4d4f287b887d.parquet",
				"data/c1=1/c2=2025-03-04/20250311_095424_00001_jx9gc-bd980f5f-8829-4479-9ffb-6e932e8bd749.parquet",
				"data/c1=1/c2=2025-03-05/20250311_095424_00001_jx9gc-b69d185a-acfb-47ca-af4c-326129ce9c4a.parquet",
				"data/c1=2/c2=2025-03-03/20250311_095424_00001_jx9gc-779adb6b-fa28-4505-ac6e-5b1e4ba6372d.parquet"}},
		} {
			rows := datasetRowsWhere(t, ds, pqscan.ScanOptions{Where: tc.where})
			require.True(t, len(rows) > 0, tc.where)
			require.Equal(t, tc.want, log.take("/"+table+"/"), tc.where)
		}
		ds.Close()
	}
}
