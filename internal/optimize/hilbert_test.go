package optimize

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/geosample"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_sortHilbert: --sort-by hilbert(geometry) puts rows in the Hilbert order of their
// geometries' bounding-box centres, and the GeoParquet metadata is kept.
func Test_sortHilbert(t *testing.T) {
	rows, err := geosample.Rows(geosample.Config{Kind: geosample.Buildings, Rows: 5000})
	require.NoError(t, err)
	slices.Reverse(rows)
	var in bytes.Buffer
	require.NoError(t, geosample.Write(&in, rows, 1000, `{"version":"1.1.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB"}}}`))
	var out bytes.Buffer
	_, err = Rewrite(context.Background(), openBytes(t, in.Bytes()), &out, Options{SortBy: []string{"hilbert(geometry)"}, Version: "test", TempDir: t.TempDir()})
	require.NoError(t, err)
	f := openBytes(t, out.Bytes())
	geoKept := false
	for _, kv := range f.Metadata().KeyValue {
		geoKept = geoKept || kv.Key == "geo"
	}
	require.True(t, geoKept)
	var keys []uint64
	var s geo.Shape
	arrowRecords(t, out.Bytes(), func(rec arrow.RecordBatch) {
		g := rec.Column(2).(*array.Binary)
		for i := 0; i < g.Len(); i++ {
			require.NoError(t, s.Parse(g.Value(i)))
			b, _ := s.Bounds()
			keys = append(keys, geo.Hilbert((b.XMin+b.XMax)/2, (b.YMin+b.YMax)/2))
		}
	})
	require.Equal(t, 5000, len(keys))
	require.True(t, slices.IsSorted(keys))
	_, err = Rewrite(context.Background(), openBytes(t, in.Bytes()), &out, Options{SortBy: []string{"hilbert(category)"}, Version: "test", TempDir: t.TempDir()})
	require.True(t, errors.Is(err, ErrSortKey))
}
