package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// icebergLog is the snapshot-log of a corpus table's current metadata file.
func icebergLog(t *testing.T, root, metadata string) []struct {
	TimestampMs int64 `json:"timestamp-ms"`
	SnapshotID  int64 `json:"snapshot-id"`
} {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "metadata", metadata))
	require.NoError(t, err)
	var m struct {
		Log []struct {
			TimestampMs int64 `json:"timestamp-ms"`
			SnapshotID  int64 `json:"snapshot-id"`
		} `json:"snapshot-log"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	return m.Log
}

// Test_icebergTimeTravel: every snapshot of the corpus tables the oracle read, chosen by its
// id (IcebergSnapshotID) and by the time it became current (IcebergAsOf, a millisecond
// before the next), reads the oracle's rows with the snapshot's own schema (a column added
// later is absent), natively and in the wasm module, with its deletes applied. A time before the first snapshot and both options together are errors.
func Test_icebergTimeTravel(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(testcorpus.Dir(t), "iceberg")
	engines := []pqscan.Engine{pqscan.Native{}, wasmHost(t)}
	read := 0
	for _, row := range testcorpus.IcebergTables(t) {
		name := row["name"]
		root := filepath.Join(dir, "tables", name, row["table_root"])
		log := icebergLog(t, root, row["metadata_file"])
		for i, e := range log {
			oracle := filepath.Join(dir, "expected", name, "oracle", "icebird", "rows.snapshot-"+strconv.FormatInt(e.SnapshotID, 10)+".jsonl")
			if i == len(log)-1 {
				oracle = filepath.Join(dir, "expected", name, "oracle", "icebird", "rows.current.jsonl")
			}
			if _, err := os.Stat(oracle); err != nil {
				continue // above the oracle's row limit: summaries only
			}
			asOf := e.TimestampMs
			if i+1 < len(log) {
				asOf = log[i+1].TimestampMs - 1
			}
			for _, o := range []pqscan.Options{{IcebergSnapshotID: &e.SnapshotID}, {IcebergAsOf: time.UnixMilli(asOf)}} {
				for _, eng := range engines {
					o.Engine = eng
					what := name + " snapshot " + strconv.FormatInt(e.SnapshotID, 10)
					ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, o)
					require.NoError(t, err, what)
					var cols []string
					for _, f := range ds.Schema().Fields() {
						cols = append(cols, f.Name)
					}
					got := datasetRows(t, ds)
					ds.Close()
					require.Equal(t, icebirdRows(t, oracle, cols...), got, what)
					read++
				}
			}
		}
	}
	require.True(t, read > 40, "snapshots read:", read)

	root := filepath.Join(dir, "tables", "icebird__spark_bunnies")
	first := icebergLog(t, root, "v5.metadata.json")[0]
	for _, eng := range engines {
		_, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{Engine: eng, IcebergAsOf: time.UnixMilli(first.TimestampMs - 1)})
		require.ErrorContains(t, err, "none at or before 2025-03-30T04:54:14.185Z")
		_, err = pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{Engine: eng, IcebergSnapshotID: new(int64(42))})
		require.ErrorContains(t, err, "snapshot not found: 42")
	}
	_, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{IcebergSnapshotID: &first.SnapshotID, IcebergAsOf: time.UnixMilli(first.TimestampMs)})
	require.ErrorIs(t, err, pqscan.ErrSource)
	require.True(t, strings.Contains(err.Error(), "together"), err)
}
