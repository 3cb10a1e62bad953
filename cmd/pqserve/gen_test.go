package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
)

// The demo query of web/app.js, mk/js.mk and e2e/tests/*.test.js.
const demoWhere = "tenant_id = 42 AND event_type = 'purchase'"

// Test_sample checks what the demo and the e2e tests assume of the sample dataset: four row
// groups, the demo query matching more than ten rows (of the first 100) in one row group,
// found with the page index reading under a quarter of the pages and under a tenth of the
// file's bytes.
func Test_sample(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 200,000 rows")
	}
	path := filepath.Join(t.TempDir(), "events.parquet")
	require.NoError(t, writeSample(path, sampleConfig(200_000)))
	ctx := context.Background()
	f, err := pqscan.Open(ctx, path, pqscan.Options{})
	require.NoError(t, err)
	defer f.Close()
	r, err := f.Scan(ctx, pqscan.ScanOptions{Where: demoWhere, Limit: 100})
	require.NoError(t, err)
	rows := readRows(t, r)
	rep := r.Report()
	t.Logf("demo query: %d rows; report %+v", rows, rep)
	require.True(t, rows > 10, "demo query rows", rows)
	require.Equal(t, 4, rep.RowGroupsTotal)
	require.Equal(t, 1, rep.RowGroupsAfterStats, "row groups kept by statistics")
	require.True(t, rep.PagesAfterPageIndex < rep.PagesTotal/4, "pages after the page index", rep.PagesAfterPageIndex, "of", rep.PagesTotal)
	require.True(t, rep.BytesPushed < rep.FileSize/10, "bytes read", rep.BytesPushed, "of", rep.FileSize)
}

// readRows reads r to its end, closes it and returns its row count.
func readRows(t *testing.T, r *pqscan.Reader) int64 {
	t.Helper()
	defer r.Close()
	rows := int64(0)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows
		}
		require.NoError(t, err)
		rows += rec.NumRows()
		rec.Release()
	}
}
