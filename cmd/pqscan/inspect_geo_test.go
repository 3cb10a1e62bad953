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

// Test_catParquetKeepsGeo: the Parquet extract of a GeoParquet file is itself GeoParquet: a
// spatial WHERE over the extract finds the same rows as over the source.
func Test_catParquetKeepsGeo(t *testing.T) {
	src := testcorpus.Dir(t) + "/hyparquet/geoparquet.parquet"
	out := t.TempDir() + "/extract.parquet"
	if code, _, errOut := runCLI(t, "cat", src, "--format", "parquet", "-o", out); code != 0 {
		t.Fatalf("cat to parquet: exit %d, %s", code, errOut)
	}
	where := "ST_Intersects(geometry, ST_MakeEnvelope(-20, -40, 60, 40))"
	var counts [2]string
	for i, f := range []string{src, out} {
		code, got, errOut := runCLI(t, "count", f, "--where", where)
		if code != 0 {
			t.Fatalf("count %s: exit %d, %s", f, code, errOut)
		}
		counts[i] = got
	}
	if counts[0] != counts[1] || strings.TrimSpace(counts[0]) == "0" {
		t.Fatalf("count over the source %q, over the extract %q", counts[0], counts[1])
	}
	code, got, errOut := runCLI(t, "inspect", out)
	if code != 0 || !strings.Contains(got, "spatial:") {
		t.Fatalf("inspect of the extract: exit %d, %s\n%s", code, errOut, got)
	}
}
