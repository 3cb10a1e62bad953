package conformance

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_readerTighten: Reader.Tighten before the first Next joins the WHERE (the same rows as
// a scan with both conjuncts; several arguments are ANDed); a refused conjunct is ErrTighten
// and the scan goes on; a dataset scan refuses one (no runtime filters over tables yet); after
// io.EOF a tighten does nothing. (The requests a tighten saves: wazerohost/tighten_test.go.)
func Test_readerTighten(t *testing.T) {
	ctx := context.Background()
	f, err := pqscan.Open(ctx, filepath.Join(testcorpus.Dir(t), "hyparquet/page_index.parquet"), pqscan.Options{})
	require.NoError(t, err)
	defer f.Close()
	ids := func(rd *pqscan.Reader, tighten ...string) []int32 {
		var out []int32
		if len(tighten) > 0 {
			require.ErrorIs(t, rd.Tighten("no_such > 1"), pqscan.ErrTighten)
			require.ErrorIs(t, rd.Tighten(), pqscan.ErrTighten)
			require.NoError(t, rd.Tighten(tighten...))
		}
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				require.NoError(t, rd.Tighten("id < 0"))
				return out
			}
			require.NoError(t, err)
			out = append(out, rec.Column(0).(*array.Int32).Int32Values()...)
			rec.Release()
		}
	}
	rd, err := f.Scan(ctx, pqscan.ScanOptions{Columns: []string{"id"}, Where: "id >= 100"})
	require.NoError(t, err)
	got := ids(rd, "id < 2000", "id IN (5, 150, 1999, 2500)")
	rd.Close()
	rd, err = f.Scan(ctx, pqscan.ScanOptions{Columns: []string{"id"}, Where: "id >= 100 AND id < 2000 AND id IN (5, 150, 1999, 2500)"})
	require.NoError(t, err)
	want := ids(rd)
	rd.Close()
	require.Equal(t, []int32{150, 1999}, want)
	require.Equal(t, want, got)

	days := []dayFile{{dir: "event_date=2024-01-01", first: 0, rows: 50}, {dir: "event_date=2024-01-02", first: 1000, rows: 50}}
	root, _, _ := buildDataset(t, days)
	ds, err := pqscan.OpenDataset(ctx, []string{root + "/"}, pqscan.Options{})
	require.NoError(t, err)
	defer ds.Close()
	drd, err := ds.Scan(ctx, pqscan.ScanOptions{})
	require.NoError(t, err)
	defer drd.Close()
	require.ErrorIs(t, drd.Tighten("id > 3"), pqscan.ErrTighten)
}
