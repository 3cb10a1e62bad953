package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/geo"
)

// printSpatial says what a file offers spatial predicates (ST_Intersects, &&, ST_Within): the
// GeoParquet metadata's geometry columns and bbox covering (with or without a page index),
// and GEOMETRY/GEOGRAPHY columns with geospatial statistics; with advice when a viewport
// query would read every geometry.
func printSpatial(w io.Writer, m *format.FileMetaData) {
	leaves := leafElements(m.Schema)
	col := func(path string) int {
		if len(m.RowGroups) == 0 {
			return -1
		}
		for j, cc := range m.RowGroups[0].Columns {
			if cc.MetaData != nil && strings.Join(cc.MetaData.PathInSchema, ".") == path {
				return j
			}
		}
		return -1
	}
	count := func(j int, has func(cc *format.ColumnChunk) bool) int {
		n := 0
		for _, rg := range m.RowGroups {
			if j < len(rg.Columns) && has(&rg.Columns[j]) {
				n++
			}
		}
		return n
	}
	for _, kv := range m.KeyValueMetadata {
		if kv.Key != "geo" || kv.Value == nil {
			continue
		}
		meta, err := geo.ParseMeta([]byte(*kv.Value))
		if err != nil {
			fmt.Fprintf(w, "spatial: unusable geo metadata (%v): spatial predicates read every geometry\n", err)
			continue
		}
		for name, c := range meta.Columns {
			edges := "planar"
			if c.Spherical {
				edges = "spherical"
			}
			fmt.Fprintf(w, "spatial: GeoParquet %s column %s (%s, %s edges)", meta.Version, name, c.Encoding, edges)
			if c.Covering == nil {
				fmt.Fprintf(w, ", no bbox covering: a viewport reads every geometry of the row groups left; rewrite with a covering (GeoParquet 1.1)\n")
				continue
			}
			paths := []string{strings.Join(c.Covering.XMin, "."), strings.Join(c.Covering.YMin, "."), strings.Join(c.Covering.XMax, "."), strings.Join(c.Covering.YMax, ".")}
			ci := 0
			for _, p := range paths {
				if j := col(p); j >= 0 {
					ci += count(j, func(cc *format.ColumnChunk) bool { return cc.ColumnIndexOffset != nil })
				}
			}
			fmt.Fprintf(w, ", bbox covering %s: statistics prune row groups", strings.Join(paths, ","))
			if ci == 4*len(m.RowGroups) && ci > 0 {
				fmt.Fprintf(w, ", its page index prunes pages\n")
			} else {
				fmt.Fprintf(w, "; %d of %d covering chunks have a column index: add a page index to prune pages\n", ci, 4*len(m.RowGroups))
			}
		}
	}
	for j, el := range leaves {
		if el.LogicalType == nil || el.LogicalType.Kind != format.LogicalGeometry && el.LogicalType.Kind != format.LogicalGeography {
			continue
		}
		n := count(j, func(cc *format.ColumnChunk) bool {
			return cc.MetaData != nil && cc.MetaData.GeospatialStatistics != nil && cc.MetaData.GeospatialStatistics.BBox != nil
		})
		fmt.Fprintf(w, "spatial: %s column %s: geospatial bounding boxes in %d of %d row groups prune them\n",
			el.LogicalType.Kind, el.Name, n, len(m.RowGroups))
	}
}

// geoStatsLine is a chunk's geospatial bounding box, or "" without one.
func geoStatsLine(md *format.ColumnMetaData) string {
	gs := md.GeospatialStatistics
	if gs == nil || gs.BBox == nil {
		return ""
	}
	b := gs.BBox
	return fmt.Sprintf("x %g..%g, y %g..%g", b.Xmin, b.Xmax, b.Ymin, b.Ymax)
}
