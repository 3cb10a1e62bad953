package main

import (
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_inspectSpatial: inspect names what a file offers spatial predicates, and a chunk's
// geospatial bounding box.
func Test_inspectSpatial(t *testing.T) {
	dir := testcorpus.Dir(t)
	for _, tc := range []struct{ file, want string }{
		{"parquet-testing/data/geospatial/geography-points.parquet", "spatial: GEOGRAPHY column geometry: geospatial bounding boxes in 50 of 50 row groups prune them"},
		{"parquet-testing/data/geospatial/geography-points.parquet", "    geospatial bbox: x -43.610259155415434..-3.4860343548097914, y -42.79355126419892..-22.008831195310755"},
		{"hyparquet/geoparquet.parquet", "bbox covering bbox.xmin,bbox.ymin,bbox.xmax,bbox.ymax: statistics prune row groups; 0 of 4 covering chunks have a column index: add a page index to prune pages"},
	} {
		code, out, errOut := runCLI(t, "inspect", dir+"/"+tc.file)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%s: exit %d, %s\nwant a line %q in\n%s", tc.file, code, errOut, tc.want, out)
		}
	}
}

// Test_catGeoJSON: cat --format geojson over a spatial WHERE prints a FeatureCollection of
// the matching rows.
func Test_catGeoJSON(t *testing.T) {
	f := testcorpus.Dir(t) + "/parquet-testing/data/geospatial/geography-points.parquet"
	code, out, errOut := runCLI(t, "cat", f, "--where", "ST_Intersects(geometry, ST_MakeEnvelope(0, 0, 30, 30))", "--format", "geojson")
	if code != 0 || !strings.HasPrefix(out, `{"type":"FeatureCollection","features":[`) || strings.Count(out, `"type":"Feature",`) != 12 {
		t.Fatalf("exit %d, %s\n%s", code, errOut, out)
	}
}
