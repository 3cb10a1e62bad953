package rowfmt

// GeoJSON output (RFC 7946): one Feature per row, its geometry the row's geoarrow.wkb column
// and its properties the other columns as in jsonl.

import (
	"bufio"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
)

const extGeoArrowWKB = "geoarrow.wkb"

// geojsonWriter writes a FeatureCollection, or (lines) one Feature per line (GeoJSON text
// sequences without the record separator, as ogr2ogr's GeoJSONSeq writes them).
type geojsonWriter struct {
	w       *bufio.Writer
	schema  *arrow.Schema
	geom    int // the geometry column
	lines   bool
	started bool
	buf     []byte
}

func newGeoJSON(w *bufio.Writer, schema *arrow.Schema, lines bool) (*geojsonWriter, error) {
	for i, f := range schema.Fields() {
		if extName(f) == extGeoArrowWKB {
			return &geojsonWriter{w: w, schema: schema, geom: i, lines: lines}, nil
		}
	}
	return nil, errors.New("rowfmt: GeoJSON needs a geometry column (geoarrow.wkb: a GeoParquet or GEOMETRY column) among the columns")
}

func (g *geojsonWriter) Write(rec arrow.RecordBatch) error {
	fields := g.schema.Fields()
	if int(rec.NumCols()) != len(fields) {
		return fmt.Errorf("rowfmt: record has %d columns, the schema %d", rec.NumCols(), len(fields))
	}
	geoms, ok := rec.Column(g.geom).(*array.Binary)
	if !ok {
		return fmt.Errorf("rowfmt: geometry column %q is not binary", fields[g.geom].Name)
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		b := g.buf[:0]
		switch {
		case g.lines:
		case !g.started:
			b = append(b, `{"type":"FeatureCollection","features":[`+"\n"...)
		default:
			b = append(b, ",\n"...)
		}
		g.started = true
		b = append(b, `{"type":"Feature","geometry":`...)
		if geoms.IsNull(r) {
			b = append(b, "null"...)
		} else {
			geom, err := wkb.Unmarshal(geoms.Value(r))
			if err != nil {
				return fmt.Errorf("rowfmt: column %q: %w", fields[g.geom].Name, err)
			}
			b = appendGeoJSON(b, geom)
		}
		b = append(b, `,"properties":{`...)
		first := true
		for c, f := range fields {
			if c == g.geom {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(appendString(b, f.Name), ':')
			b = AppendJSON(b, f, rec.Column(c), r)
		}
		b = append(b, "}}"...)
		if g.lines {
			b = append(b, '\n')
		}
		g.buf = b
		if _, err := g.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (g *geojsonWriter) Close() error {
	if !g.lines {
		if !g.started {
			g.w.WriteString(`{"type":"FeatureCollection","features":[`)
		}
		g.w.WriteString("\n]}\n")
	}
	return g.w.Flush()
}

// appendGeoJSON appends g as a GeoJSON geometry object.
func appendGeoJSON(b []byte, g orb.Geometry) []byte {
	if c, ok := g.(orb.Collection); ok {
		b = append(b, `{"type":"GeometryCollection","geometries":[`...)
		for i, x := range c {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendGeoJSON(b, x)
		}
		return append(b, "]}"...)
	}
	b = append(b, `{"type":"`...)
	b = append(b, g.GeoJSONType()...)
	b = append(b, `","coordinates":`...)
	return append(appendCoords(b, g), '}')
}

// appendCoords appends the coordinates array of a non-collection geometry.
func appendCoords(b []byte, g orb.Geometry) []byte {
	list := func(n int, at func(int) orb.Geometry) []byte {
		b = append(b, '[')
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCoords(b, at(i))
		}
		return append(b, ']')
	}
	switch g := g.(type) {
	case orb.Point:
		b = appendFloat(append(b, '['), g[0], 64)
		return append(appendFloat(append(b, ','), g[1], 64), ']')
	case orb.MultiPoint:
		return list(len(g), func(i int) orb.Geometry { return g[i] })
	case orb.LineString:
		return list(len(g), func(i int) orb.Geometry { return g[i] })
	case orb.Ring:
		return list(len(g), func(i int) orb.Geometry { return g[i] })
	case orb.MultiLineString:
		return list(len(g), func(i int) orb.Geometry { return g[i] })
	case orb.Polygon:
		return list(len(g), func(i int) orb.Geometry { return g[i] })
	case orb.MultiPolygon:
		return list(len(g), func(i int) orb.Geometry { return g[i] })
	}
	return append(b, "null"...)
}
