package scan

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/paulmach/orb/planar"
	"github.com/pqscan/pqscan/internal/geosample"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// The oracle: orb decodes the WKB, and a geometry meets a box when a vertex is in it, an
// edge crosses one of its sides (rational arithmetic), or, for a polygon, orb's
// point-in-polygon puts the box's corner inside: another algorithm than package geo's.
func oracleIntersects(g orb.Geometry, b orb.Bound) bool {
	if !g.Bound().Intersects(b) {
		return false
	}
	switch g := g.(type) {
	case orb.Point:
		return b.Contains(g)
	case orb.LineString:
		return lineMeets(g, b)
	case orb.Ring:
		return lineMeets(orb.LineString(g), b)
	case orb.Polygon:
		for _, r := range g {
			if lineMeets(orb.LineString(r), b) {
				return true
			}
		}
		return planar.PolygonContains(g, b.Min)
	case orb.MultiPoint:
		return slices.ContainsFunc(g, func(p orb.Point) bool { return b.Contains(p) })
	case orb.MultiPolygon:
		return slices.ContainsFunc(g, func(p orb.Polygon) bool { return oracleIntersects(p, b) })
	case orb.Collection:
		return slices.ContainsFunc(g, func(x orb.Geometry) bool { return oracleIntersects(x, b) })
	}
	panic(fmt.Sprintf("oracle: %T", g))
}

func lineMeets(l orb.LineString, b orb.Bound) bool {
	for _, p := range l {
		if b.Contains(p) {
			return true
		}
	}
	corners := []orb.Point{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}, b.Min}
	for i := 1; i < len(l); i++ {
		for k := 1; k < len(corners); k++ {
			if segmentsCross(l[i-1], l[i], corners[k-1], corners[k]) {
				return true
			}
		}
	}
	return false
}

func segmentsCross(p, q, r, s orb.Point) bool {
	o := func(a, b, c orb.Point) int {
		rat := func(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }
		d := func(x, y float64) *big.Rat { return new(big.Rat).Sub(rat(x), rat(y)) }
		return new(big.Rat).Mul(d(b[0], a[0]), d(c[1], a[1])).Cmp(new(big.Rat).Mul(d(b[1], a[1]), d(c[0], a[0])))
	}
	d1, d2, d3, d4 := o(r, s, p), o(r, s, q), o(p, q, r), o(p, q, s)
	if d1*d2 < 0 && d3*d4 < 0 {
		return true
	}
	on := func(a, b, c orb.Point) bool { // c on segment a-b, given collinear
		return min(a[0], b[0]) <= c[0] && c[0] <= max(a[0], b[0]) && min(a[1], b[1]) <= c[1] && c[1] <= max(a[1], b[1])
	}
	return d1 == 0 && on(r, s, p) || d2 == 0 && on(r, s, q) || d3 == 0 && on(p, q, r) || d4 == 0 && on(p, q, s)
}

// oracleRelate answers rel for env (wrapping envelopes split in two halves).
func oracleRelate(g orb.Geometry, env [4]float64, rel string) bool {
	var boxes []orb.Bound
	if env[0] > env[2] {
		boxes = []orb.Bound{{Min: orb.Point{env[0], env[1]}, Max: orb.Point{1e300, env[3]}}, {Min: orb.Point{-1e300, env[1]}, Max: orb.Point{env[2], env[3]}}}
	} else {
		boxes = []orb.Bound{{Min: orb.Point{env[0], env[1]}, Max: orb.Point{env[2], env[3]}}}
	}
	gb := g.Bound()
	for _, b := range boxes {
		switch rel {
		case "bbox":
			if gb.Intersects(b) {
				return true
			}
		case "within": // every vertex in the box (boundary cases do not occur in the sample)
			if b.Contains(gb.Min) && b.Contains(gb.Max) {
				return true
			}
		default:
			if oracleIntersects(g, b) {
				return true
			}
		}
	}
	return false
}

// scanIDs runs where over file and returns the matching ids and the report.
func scanIDs(t *testing.T, file []byte, where string) ([]int64, Report) {
	ids, rep, _ := scanIDsRanges(t, file, Options{Where: where})
	return ids, rep
}

// scanIDsRanges is scanIDs that also returns the ranges the scan asked for.
func scanIDsRanges(t *testing.T, file []byte, opts Options) ([]int64, Report, []httprange.Range) {
	t.Helper()
	var asked []httprange.Range
	where := opts.Where
	opts.FileSize = int64(len(file))
	if opts.Columns == nil {
		opts.Columns = []string{"id"}
	}
	s, err := New(opts)
	require.NoError(t, err)
	var ids []int64
	for i := 0; i < 100_000; i++ {
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			asked = append(asked, st.Ranges...)
			for _, r := range st.Ranges {
				require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
			}
		case Batch:
			forEachRecord(t, [][]byte{st.IPC}, func(rec arrow.RecordBatch) {
				ids = append(ids, rec.Column(0).(*array.Int64).Int64Values()...)
			})
		case Done:
			slices.Sort(ids)
			return ids, s.Report(), asked
		case Error:
			t.Fatalf("%s: %v", where, st.Err)
		}
	}
	t.Fatal("scan did not finish")
	return nil, Report{}, nil
}

var viewports = []struct {
	name string
	env  [4]float64
}{
	{"city block", [4]float64{2.3500, 48.8550, 2.3540, 48.8580}},
	{"city", [4]float64{2.25, 48.80, 2.45, 48.92}},
	{"region", [4]float64{-10, 35, 30, 60}},
	{"ocean", [4]float64{-40, 0, -30, 10}},
	{"city edge", [4]float64{2.40, 48.70, 3.0, 49.0}},
	{"antimeridian", [4]float64{179.95, -18.2, -179.97, -18.05}},
}

// Test_spatialOracle: on the generated places and buildings, every viewport and relation
// returns exactly the oracle's rows, and the covering prunes: a small viewport reads a few
// row groups' pages, the ocean none.
func Test_spatialOracle(t *testing.T) {
	for _, kind := range []geosample.Kind{geosample.Places, geosample.Buildings} {
		rows, err := geosample.Rows(geosample.Config{Kind: kind, Rows: 150_000})
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, geosample.Generate(&buf, geosample.Config{Kind: kind, Rows: 150_000}))
		file := buf.Bytes()
		geoms := make([]orb.Geometry, len(rows))
		for i, r := range rows {
			g, err := wkb.Unmarshal(r.WKB)
			require.NoError(t, err)
			geoms[i] = g
		}
		for _, vp := range viewports {
			for _, rel := range []string{"intersects", "bbox", "within"} {
				e := fmt.Sprintf("ST_MakeEnvelope(%v, %v, %v, %v)", vp.env[0], vp.env[1], vp.env[2], vp.env[3])
				where := map[string]string{"intersects": "ST_Intersects(geometry, " + e + ")", "bbox": "geometry && " + e, "within": "ST_Within(geometry, " + e + ")"}[rel]
				got, rep := scanIDs(t, file, where)
				var want []int64
				for i, g := range geoms {
					if oracleRelate(g, vp.env, rel) {
						want = append(want, rows[i].ID)
					}
				}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("%s %s %s: %d rows, want %d", kind, vp.name, rel, len(got), len(want))
				}
				if vp.name == "ocean" && rep.BytesRequested > int64(len(file))/20 {
					t.Errorf("%s ocean: %d of %d bytes", kind, rep.BytesRequested, len(file))
				}
				if rel == "intersects" {
					t.Logf("%s %-12s %6d rows, row groups %d/%d, pages %d/%d, %d of %d bytes", kind, vp.name, len(got),
						rep.RowGroupsAfterStats, rep.RowGroupsTotal, rep.PagesAfterPageIndex, rep.PagesTotal, rep.BytesRequested, len(file))
				}
			}
		}
	}
}

// Test_geoArrowField: the geometry column of a GeoParquet file and of a native GEOMETRY file
// carries the geoarrow.wkb extension with its CRS, which arrow-go reads back.
func Test_geoArrowField(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, geosample.Generate(&buf, geosample.Config{Kind: geosample.Places, Rows: 1000}))
	srid := testcorpus.Read(t, "parquet-testing/data/geospatial/crs-srid.parquet")
	geog := testcorpus.Read(t, "parquet-testing/data/geospatial/crs-geography.parquet")
	for _, tc := range []struct {
		name string
		file []byte
		col  string
		meta string
	}{
		{"geoparquet", buf.Bytes(), "geometry", `{"crs":"OGC:CRS84","crs_type":"authority_code"}`},
		{"srid", srid, "geometry", `{"crs":"5070","crs_type":"srid"}`},
		{"geography", geog, "geography", `{"crs":"OGC:CRS84","crs_type":"authority_code","edges":"spherical"}`},
	} {
		streams, _, err := drive(t, tc.file, Options{Columns: []string{tc.col}, Limit: 3})
		require.NoError(t, err)
		rd, err := ipc.NewReader(bytes.NewReader(streams[0]))
		require.NoError(t, err)
		md := rd.Schema().Field(0).Metadata
		name, _ := md.GetValue("ARROW:extension:name")
		ext, _ := md.GetValue("ARROW:extension:metadata")
		if name != "geoarrow.wkb" || ext != tc.meta {
			t.Errorf("%s: %q %q", tc.name, name, ext)
		}
		rd.Release()
	}
}
