package rowfmt

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_geojson: the FeatureCollection and the lines parse, and each feature equals its row:
// the geometry's coordinates (orb's WKB encoding of known geometries) and the properties.
func Test_geojson(t *testing.T) {
	geoms := []orb.Geometry{
		orb.Point{1.5, -2},
		orb.LineString{{0, 0}, {1, 1}},
		orb.Polygon{{{0, 0}, {4, 0}, {4, 4}, {0, 0}}, {{1, 1}, {2, 1}, {2, 2}, {1, 1}}},
		orb.MultiPolygon{{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}},
		orb.Collection{orb.Point{3, 4}, orb.MultiPoint{{5, 6}}},
		nil,
	}
	md := arrow.NewMetadata([]string{"ARROW:extension:name", "ARROW:extension:metadata"}, []string{"geoarrow.wkb", "{}"})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "geometry", Type: arrow.BinaryTypes.Binary, Nullable: true, Metadata: md},
		{Name: "name", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i, g := range geoms {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if g == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.BinaryBuilder).Append(wkb.MustMarshal(g))
		}
		b.Field(2).(*array.StringBuilder).Append(strings.Repeat("x", i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	type feature struct {
		Type     string `json:"type"`
		Geometry *struct {
			Type        string          `json:"type"`
			Coordinates json.RawMessage `json:"coordinates"`
			Geometries  []json.RawMessage
		} `json:"geometry"`
		Properties map[string]any `json:"properties"`
	}
	check := func(fs []feature) {
		require.Equal(t, len(geoms), len(fs))
		for i, f := range fs {
			require.Equal(t, "Feature", f.Type)
			require.Equal(t, float64(i), f.Properties["id"].(float64))
			require.Equal(t, strings.Repeat("x", i), f.Properties["name"].(string))
			switch g := geoms[i].(type) {
			case nil:
				require.True(t, f.Geometry == nil)
			case orb.Collection:
				require.Equal(t, "GeometryCollection", f.Geometry.Type)
				require.Equal(t, 2, len(f.Geometry.Geometries))
			default:
				require.Equal(t, g.GeoJSONType(), f.Geometry.Type)
				want, err := json.Marshal(g) // orb's types marshal as their coordinates
				require.NoError(t, err)
				var a, w any
				require.NoError(t, json.Unmarshal(f.Geometry.Coordinates, &a))
				require.NoError(t, json.Unmarshal(want, &w))
				require.Equal(t, w, a)
			}
		}
	}
	var out bytes.Buffer
	w, err := New("geojson", &out, schema, Options{})
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	var fc struct {
		Type     string    `json:"type"`
		Features []feature `json:"features"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &fc))
	require.Equal(t, "FeatureCollection", fc.Type)
	check(fc.Features)

	out.Reset()
	w, err = New("geojsonl", &out, schema, Options{})
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	var fs []feature
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var f feature
		require.NoError(t, json.Unmarshal([]byte(line), &f))
		fs = append(fs, f)
	}
	check(fs)

	_, err = New("geojson", &out, arrow.NewSchema(schema.Fields()[:1], nil), Options{})
	require.True(t, err != nil)
}
