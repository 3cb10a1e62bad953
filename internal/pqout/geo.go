package pqout

import (
	"encoding/json"

	"github.com/apache/arrow-go/v18/arrow"
)

// geoMetadata is the GeoParquet 1.1 `geo` key-value metadata for the schema's GeoArrow WKB
// columns ("" when it has none). Without it an extract of a GeoParquet file would be a plain
// Parquet file whose geometries are opaque binary to every reader, pqscan included; with it
// the output is read back as geometries (GeoArrow output, GeoJSON, spatial predicates) and
// keeps its CRS. Geometry types are left empty ("unknown"), which the spec allows and no
// extract can get wrong; no bbox is written for the same reason.
func geoMetadata(schema *arrow.Schema) string {
	type column struct {
		Encoding      string          `json:"encoding"`
		GeometryTypes []string        `json:"geometry_types"`
		CRS           json.RawMessage `json:"crs,omitempty"`
		Edges         string          `json:"edges,omitempty"`
	}
	type meta struct {
		Version       string            `json:"version"`
		PrimaryColumn string            `json:"primary_column"`
		Columns       map[string]column `json:"columns"`
	}
	m := meta{Version: "1.1.0", Columns: map[string]column{}}
	for _, f := range schema.Fields() {
		name, _ := f.Metadata.GetValue("ARROW:extension:name")
		if name != "geoarrow.wkb" {
			continue
		}
		c := column{Encoding: "WKB", GeometryTypes: []string{}}
		var ext struct {
			CRS     json.RawMessage `json:"crs"`
			CRSType string          `json:"crs_type"`
			Edges   string          `json:"edges"`
		}
		if s, _ := f.Metadata.GetValue("ARROW:extension:metadata"); s != "" {
			if json.Unmarshal([]byte(s), &ext) != nil {
				ext.CRS = json.RawMessage("null")
			}
		}
		switch {
		case len(ext.CRS) == 0 || string(ext.CRS) == `"OGC:CRS84"`:
			// GeoParquet's default CRS: the member is left out.
		case ext.CRSType == "projjson" && len(ext.CRS) > 0 && ext.CRS[0] == '{':
			c.CRS = ext.CRS
		default:
			// GeoParquet's crs is PROJJSON; an SRID or another identifier cannot be written as
			// one here, so the CRS is declared unknown rather than claimed to be CRS84.
			c.CRS = json.RawMessage("null")
		}
		if ext.Edges == "spherical" {
			c.Edges = "spherical"
		}
		if m.PrimaryColumn == "" {
			m.PrimaryColumn = f.Name
		}
		m.Columns[f.Name] = c
	}
	if m.PrimaryColumn == "" {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}
