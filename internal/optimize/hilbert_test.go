package optimize

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan"
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

// Test_coveringAdded: a GeoParquet 1.0 file gets a bbox covering column and 1.1 metadata;
// viewport counts equal the input's, and fetch less.
func Test_coveringAdded(t *testing.T) {
	rows, err := geosample.Rows(geosample.Config{Kind: geosample.Places, Rows: 40000})
	require.NoError(t, err)
	slices.Reverse(rows)
	// A GeoParquet 1.0 file: id and geometry, no covering.
	md := arrow.NewMetadata([]string{"geo"}, []string{`{"version":"1.0.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB","geometry_types":["Point"]}}}`})
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "geometry", Type: arrow.BinaryTypes.Binary}}, &md)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.ID)
		b.Field(1).(*array.BinaryBuilder).Append(r.WKB)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var noBBox, out bytes.Buffer
	fw, err := pqarrow.NewFileWriter(schema, &noBBox, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	require.NoError(t, err)
	require.NoError(t, fw.Write(rec))
	require.NoError(t, fw.Close())
	_, err = Rewrite(context.Background(), openBytes(t, noBBox.Bytes()), &out, Options{SortBy: []string{"hilbert(geometry)"}, RowGroupRows: 8192, Version: "test", TempDir: t.TempDir()})
	require.NoError(t, err)
	f := openBytes(t, out.Bytes())
	var meta string
	for _, kv := range f.Metadata().KeyValue {
		if kv.Key == "geo" {
			meta = kv.Value
		}
	}
	m, err := geo.ParseMeta([]byte(meta))
	require.NoError(t, err)
	require.Equal(t, "1.1.0", m.Version)
	require.True(t, m.Columns["geometry"].Covering != nil)
	before := openBytes(t, noBBox.Bytes())
	for _, where := range []string{
		"ST_Intersects(geometry, ST_MakeEnvelope(2.35, 48.855, 2.354, 48.858))",
		"ST_Intersects(geometry, ST_MakeEnvelope(-40, 0, -30, 10))",
		"geometry && ST_MakeEnvelope(139, 35, 140, 36)",
	} {
		n0, r0, err := before.Count(context.Background(), pqscan.ScanOptions{Where: where})
		require.NoError(t, err)
		n1, r1, err := f.Count(context.Background(), pqscan.ScanOptions{Where: where})
		require.NoError(t, err)
		require.Equal(t, n0, n1)
		if r1.BytesRequested >= r0.BytesRequested {
			t.Errorf("%s: %d bytes with the covering, %d without", where, r1.BytesRequested, r0.BytesRequested)
		}
	}
}
