package pqout

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_geoMetadata: GeoArrow WKB columns come out as a GeoParquet 1.1 `geo` entry that the
// engine's own metadata reader accepts, with the CRS kept where GeoParquet can say it and
// declared unknown (null) where it cannot; a schema without one writes no entry.
func Test_geoMetadata(t *testing.T) {
	wkb := func(name, ext string) arrow.Field {
		keys, vals := []string{"ARROW:extension:name"}, []string{"geoarrow.wkb"}
		if ext != "" {
			keys, vals = append(keys, "ARROW:extension:metadata"), append(vals, ext)
		}
		return arrow.Field{Name: name, Type: arrow.BinaryTypes.Binary, Nullable: true, Metadata: arrow.NewMetadata(keys, vals)}
	}
	tests := []struct {
		name      string
		fields    []arrow.Field
		primary   string   // "" means no geo entry
		crs       []string // per geometry column in field order: "" for absent (CRS84)
		spherical []bool
	}{
		{name: "no geometry", fields: []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}},
		{name: "CRS84 by default", fields: []arrow.Field{wkb("geometry", `{"crs":"OGC:CRS84","crs_type":"authority_code"}`)}, primary: "geometry", crs: []string{""}, spherical: []bool{false}},
		{name: "no extension metadata", fields: []arrow.Field{wkb("g", "")}, primary: "g", crs: []string{""}, spherical: []bool{false}},
		{name: "PROJJSON kept", fields: []arrow.Field{wkb("g", `{"crs":{"type":"GeographicCRS","name":"x"},"crs_type":"projjson"}`)}, primary: "g", crs: []string{`{"type":"GeographicCRS","name":"x"}`}, spherical: []bool{false}},
		{name: "SRID unknown", fields: []arrow.Field{wkb("g", `{"crs":"3857","crs_type":"srid"}`)}, primary: "g", crs: []string{"null"}, spherical: []bool{false}},
		{name: "spherical edges, two columns", fields: []arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			wkb("a", `{"crs":"OGC:CRS84","crs_type":"authority_code","edges":"spherical"}`),
			wkb("b", `not json`),
		}, primary: "a", crs: []string{"", "null"}, spherical: []bool{true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := New(&buf, arrow.NewSchema(tc.fields, nil), Options{})
			require.NoError(t, err)
			require.NoError(t, w.Close())
			rdr, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
			require.NoError(t, err)
			defer rdr.Close()
			v := rdr.MetaData().KeyValueMetadata().FindValue("geo")
			if tc.primary == "" {
				require.True(t, v == nil, "geo entry written for a schema without geometries")
				return
			}
			require.True(t, v != nil, "no geo entry")
			m, err := geo.ParseMeta([]byte(*v))
			require.NoError(t, err)
			require.Equal(t, tc.primary, m.Primary)
			i := 0
			for _, f := range tc.fields {
				if _, ok := f.Metadata.GetValue("ARROW:extension:name"); !ok {
					continue
				}
				c, ok := m.Columns[f.Name]
				require.True(t, ok, "column", f.Name)
				require.Equal(t, "WKB", c.Encoding)
				require.Equal(t, tc.crs[i], string(c.CRS))
				require.Equal(t, tc.spherical[i], c.Spherical)
				i++
			}
		})
	}
}
