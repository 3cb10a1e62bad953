package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_inspectIceberg: inspect on an Iceberg table lists its snapshots and the files of the
// snapshot read, with their partitions, rows, sizes and deleted rows, as text and as JSON;
// --snapshot-id picks an older one.
func Test_inspectIceberg(t *testing.T) {
	dir := filepath.Join(testcorpus.Dir(t), "iceberg", "tables")
	nulls := filepath.Join(dir, "lithium__partitioning_with_null_value") + "/"

	code, out, errs := runCLI(t, "inspect", nulls, "--format", "json")
	require.Equal(t, 0, code, errs)
	var tbl pqscan.IcebergTable
	require.NoError(t, json.Unmarshal([]byte(out), &tbl))
	require.Equal(t, 2, len(tbl.Snapshots))
	require.Equal(t, tbl.Snapshots[1].ID, tbl.Snapshot)
	require.Equal(t, "append", tbl.Snapshots[1].Operation)
	require.Equal(t, "4", tbl.Snapshots[1].Summary["added-records"])
	require.Equal(t, 4, len(tbl.Files))
	parts := map[string]bool{}
	for _, f := range tbl.Files {
		require.Equal(t, int64(1), f.Records)
		require.Equal(t, int64(0), f.Deleted)
		require.True(t, f.Size > 0)
		parts[f.Partition] = true
	}
	require.True(t, parts["c1=null/c2=20150"], parts)

	code, out, errs = runCLI(t, "inspect", nulls, "--snapshot-id", "90806248637524814")
	require.Equal(t, 0, code, errs)
	require.Equal(t, 4, strings.Count(out, "\n"), out) // the table, two snapshots, the total
	require.True(t, strings.Contains(out, "snapshot 90806248637524814: 2025-03-10T08:35:51.611Z append") &&
		strings.Contains(out, "(read)") && strings.HasSuffix(out, "snapshot 90806248637524814: 0 files, 0 rows, 0 bytes, 0 deleted rows\n"), out)

	code, out, errs = runCLI(t, "inspect", filepath.Join(dir, "lithium__refdeletes3")+"/")
	require.Equal(t, 0, code, errs)
	require.True(t, strings.HasSuffix(out, ": 6 files, 16 rows, 3641 bytes, 6 deleted rows\n"), out)
	require.Equal(t, 6, strings.Count(out, ", 1 deleted\n"), out)
}
