package optimize

// A GeoParquet file without a bbox covering gets one: a `bbox` struct column of float32
// bounds rounded outward, named in the `geo` metadata (GeoParquet 1.1), so that viewport
// queries prune row groups and pages by its statistics and page index.

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/geo"
)

// covering plans the covering of a file whose `geo` metadata is geoJSON: the geometry
// column's index in schema, and the metadata naming the new column. ok is false when there
// is nothing to add (no metadata, a covering already, a column named bbox, no WKB column).
func covering(geoJSON string, schema *arrow.Schema) (col int, meta string, ok bool) {
	m, err := geo.ParseMeta([]byte(geoJSON))
	if err != nil || len(schema.FieldIndices("bbox")) > 0 {
		return 0, "", false
	}
	c, found := m.Columns[m.Primary]
	idx := schema.FieldIndices(m.Primary)
	if !found || c.Covering != nil || c.Encoding != "WKB" || len(idx) != 1 || schema.Field(idx[0]).Type.ID() != arrow.BINARY {
		return 0, "", false
	}
	var raw map[string]any
	if json.Unmarshal([]byte(geoJSON), &raw) != nil {
		return 0, "", false
	}
	cols, _ := raw["columns"].(map[string]any)
	pc, _ := cols[m.Primary].(map[string]any)
	if pc == nil {
		return 0, "", false
	}
	path := func(f string) []string { return []string{"bbox", f} }
	pc["covering"] = map[string]any{"bbox": map[string]any{"xmin": path("xmin"), "ymin": path("ymin"), "xmax": path("xmax"), "ymax": path("ymax")}}
	raw["version"] = "1.1.0"
	b, err := json.Marshal(raw)
	if err != nil {
		return 0, "", false
	}
	return idx[0], string(b), true
}

var bboxType = arrow.StructOf(
	arrow.Field{Name: "xmin", Type: arrow.PrimitiveTypes.Float32}, arrow.Field{Name: "ymin", Type: arrow.PrimitiveTypes.Float32},
	arrow.Field{Name: "xmax", Type: arrow.PrimitiveTypes.Float32}, arrow.Field{Name: "ymax", Type: arrow.PrimitiveTypes.Float32})

// withBBox returns schema with the bbox column appended.
func withBBox(schema *arrow.Schema) *arrow.Schema {
	md := schema.Metadata()
	return arrow.NewSchema(append(schema.Fields(), arrow.Field{Name: "bbox", Type: bboxType, Nullable: true}), &md)
}

// addBBox returns rec with the bbox of each row's geometry (column col) appended: null for a
// null or empty geometry. A malformed geometry is an error naming its row.
func addBBox(rec arrow.RecordBatch, col int, schema *arrow.Schema) (arrow.RecordBatch, error) {
	g := rec.Column(col).(*array.Binary)
	b := array.NewStructBuilder(memory.DefaultAllocator, bboxType)
	defer b.Release()
	var fb [4]*array.Float32Builder
	for i := range fb {
		fb[i] = b.FieldBuilder(i).(*array.Float32Builder)
	}
	var s geo.Shape
	for i := 0; i < g.Len(); i++ {
		if g.IsNull(i) {
			b.AppendNull()
			continue
		}
		if err := s.Parse(g.Value(i)); err != nil {
			return nil, fmt.Errorf("optimize: column %q, row %d of a batch: %w", rec.ColumnName(col), i, err)
		}
		r, ok := s.Bounds()
		if !ok {
			b.AppendNull()
			continue
		}
		b.Append(true)
		fb[0].Append(geo.Down32(r.XMin))
		fb[1].Append(geo.Down32(r.YMin))
		fb[2].Append(geo.Up32(r.XMax))
		fb[3].Append(geo.Up32(r.YMax))
	}
	arr := b.NewArray()
	defer arr.Release()
	cols := append(append([]arrow.Array(nil), rec.Columns()...), arr)
	return array.NewRecordBatch(schema, cols, rec.NumRows()), nil
}
