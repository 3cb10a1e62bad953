package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_datasetSample checks what the demo's dataset mode (web/, e2e/tests/demo.test.js)
// depends on: the first days' Hive folders only, two files each, replacing what was there;
// the demo query (datasetWhere) skips the first two days by partition values and keeps one
// row group of each file it reads by statistics.
func Test_datasetSample(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the month dataset")
	}
	out := filepath.Join(t.TempDir(), "ds")
	require.NoError(t, os.MkdirAll(filepath.Join(out, "stale"), 0o755))
	files, err := writeDataset(out, datasetConfig(140_000), 3)
	require.NoError(t, err)
	require.Equal(t, []string{
		"event_date=2026-10-01/part-0.parquet", "event_date=2026-10-01/part-1.parquet",
		"event_date=2026-10-02/part-0.parquet", "event_date=2026-10-02/part-1.parquet",
		"event_date=2026-10-03/part-0.parquet", "event_date=2026-10-03/part-1.parquet",
	}, files)
	_, err = os.Stat(filepath.Join(out, "stale"))
	require.True(t, errors.Is(err, os.ErrNotExist), "the old folder is replaced")

	ctx := context.Background()
	d, err := pqscan.OpenDataset(ctx, []string{out + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer d.Close()
	r, err := d.Scan(ctx, pqscan.ScanOptions{Where: datasetWhere})
	require.NoError(t, err)
	rows := readRows(t, r)
	rep := r.Report()
	require.True(t, rows > 0, "the demo query matches rows")
	require.Equal(t, 6, rep.FilesTotal)
	require.Equal(t, 2, rep.FilesAfterPartitions, "only 2026-10-03 survives the partition values")
	for _, f := range rep.Files[:4] {
		require.Equal(t, "partition", f.SkippedBy, f.Path)
	}
	for _, f := range rep.Files[4:] {
		kept := 0
		for _, g := range f.RowGroups {
			if g.SkippedBy != "statistics" {
				kept++
			}
		}
		require.True(t, len(f.RowGroups) >= 2, f.Path, "has several row groups")
		require.Equal(t, 1, kept, f.Path, "statistics keep one row group")
	}
}
