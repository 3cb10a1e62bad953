package scan

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/geosample"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_spatialNativeStats: a GEOGRAPHY file (points, 10-row row groups, Hilbert-sorted) is
// pruned by its chunks' geospatial bounding boxes: the data ranges asked for are exactly the
// id and geometry chunks of the row groups whose points meet the envelope, and the rows equal
// orb's answer.
func Test_spatialNativeStats(t *testing.T) {
	data := testcorpus.Read(t, "parquet-testing/data/geospatial/geography-points.parquet")
	var ids []int64
	var pts []orb.Point
	streams, _, err := drive(t, data, Options{Columns: []string{"id", "geometry"}})
	require.NoError(t, err)
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		g := rec.Column(1).(*array.Binary)
		for i := 0; i < int(rec.NumRows()); i++ {
			p, err := wkb.Unmarshal(g.Value(i))
			require.NoError(t, err)
			ids = append(ids, rec.Column(0).(*array.Int64).Value(i))
			pts = append(pts, p.(orb.Point))
		}
	})
	require.Equal(t, 500, len(pts))
	rd, err := file.NewParquetReader(bytes.NewReader(data))
	require.NoError(t, err)
	md := rd.MetaData()
	// chunk is the byte range of row group rg's column c.
	chunk := func(rg, c int) [2]int64 {
		cc, err := md.RowGroup(rg).ColumnChunk(c)
		require.NoError(t, err)
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		return [2]int64{start, start + cc.TotalCompressedSize()}
	}
	in := func(env [4]float64, x, y float64) bool {
		inX := x >= env[0] && x <= env[2]
		if env[0] > env[2] {
			inX = x >= env[0] || x <= env[2]
		}
		return inX && y >= env[1] && y <= env[3]
	}
	for _, env := range [][4]float64{{0, 0, 30, 30}, {-180, -90, 180, -80}, {170, -30, -170, 30}, {100, 10, 101, 11}} {
		var want []int64
		hits, near := map[int]bool{}, map[int]bool{}
		for rg := 0; rg < md.NumRowGroups(); rg++ {
			b := orb.Bound{Min: pts[rg*10], Max: pts[rg*10]}
			for i := rg * 10; i < rg*10+10; i++ {
				b = b.Extend(pts[i])
				if in(env, pts[i][0], pts[i][1]) {
					want = append(want, ids[i])
					hits[rg] = true
				}
			}
			// The naive (non-wrapping) box of the points: the chunk statistics' box is it or,
			// wrapping, a part of it.
			near[rg] = b.Max[1] >= env[1] && b.Min[1] <= env[3] &&
				(env[0] > env[2] && (b.Max[0] >= env[0] || b.Min[0] <= env[2]) || b.Max[0] >= env[0] && b.Min[0] <= env[2])
		}
		slices.Sort(want)
		where := fmt.Sprintf("ST_Intersects(geometry, ST_MakeEnvelope(%v, %v, %v, %v))", env[0], env[1], env[2], env[3])
		// A tail of the footer alone, so that the data ranges are asked for.
		got, rep, asked := scanIDsRanges(t, data, Options{Where: where, TailSize: 8, MaxGap: 1})
		require.Equal(t, want, got)
		var wantRanges [][2]int64
		for rg, r := range rep.RowGroups {
			read := r.SkippedBy != "statistics"
			if hits[rg] && !read || read && !near[rg] {
				t.Errorf("%v: row group %d read %v, holds a match %v, near %v", env, rg, read, hits[rg], near[rg])
			}
			if read {
				wantRanges = append(wantRanges, chunk(rg, 0), chunk(rg, 1))
			}
		}
		if len(wantRanges) == 2*md.NumRowGroups() {
			t.Errorf("%v: nothing pruned", env)
		}
		// Every data range asked lies in a chunk of a row group that may match, and every such
		// chunk is asked for (the ranges after the first, the tail).
		var gotRanges [][2]int64
		dataEnd := chunk(md.NumRowGroups()-1, 1)[1] // the page index and footer follow
		for _, r := range asked {
			if r.Off >= 0 && r.End() <= dataEnd {
				gotRanges = append(gotRanges, [2]int64{r.Off, r.End()})
			}
		}
		require.Equal(t, merge(wantRanges), merge(gotRanges))
	}
}

// merge sorts ranges and joins those that touch.
func merge(rs [][2]int64) [][2]int64 {
	slices.SortFunc(rs, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	var out [][2]int64
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// Test_spatialFileBox: a GeoParquet 1.0 file (no covering) is skipped whole when its
// column bbox misses the envelope, and otherwise answers as the file with a covering does.
func Test_spatialFileBox(t *testing.T) {
	rows, err := geosample.Rows(geosample.Config{Kind: geosample.Places, Rows: 20000})
	require.NoError(t, err)
	var v10, v11 bytes.Buffer
	require.NoError(t, geosample.Write(&v10, rows, 4096, `{"version":"1.0.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB","bbox":[-180,-24,180,49]}}}`))
	require.NoError(t, geosample.Generate(&v11, geosample.Config{Kind: geosample.Places, Rows: 20000}))
	for _, vp := range viewports {
		where := fmt.Sprintf("ST_Intersects(geometry, ST_MakeEnvelope(%v, %v, %v, %v))", vp.env[0], vp.env[1], vp.env[2], vp.env[3])
		got, rep := scanIDs(t, v10.Bytes(), where)
		want, _ := scanIDs(t, v11.Bytes(), where)
		require.Equal(t, want, got)
		if vp.name == "ocean" {
			require.Equal(t, 5, rep.RowGroupsAfterStats) // the ocean window is inside the file's box
		}
	}
	got, rep := scanIDs(t, v10.Bytes(), "ST_Intersects(geometry, ST_MakeEnvelope(0, 60, 10, 70))")
	require.Equal(t, 0, len(got))
	require.Equal(t, 0, rep.RowGroupsAfterStats)
}

// Test_spatialMalformedWKB: a malformed geometry among the rows the covering keeps is an
// error naming the row group and the column, never a row.
func Test_spatialMalformedWKB(t *testing.T) {
	rows, err := geosample.Rows(geosample.Config{Kind: geosample.Places, Rows: 3000})
	require.NoError(t, err)
	rows[2500].WKB = rows[2500].WKB[:10] // truncated
	var buf bytes.Buffer
	require.NoError(t, geosample.Write(&buf, rows, 1000, `{"version":"1.1.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB","covering":{"bbox":{"xmin":["bbox","xmin"],"ymin":["bbox","ymin"],"xmax":["bbox","xmax"],"ymax":["bbox","ymax"]}}}}}`))
	_, _, err = drive(t, buf.Bytes(), Options{Columns: []string{"id"}, Where: "ST_Intersects(geometry, ST_MakeEnvelope(-180, -90, 180, 90))"})
	if !errors.Is(err, geo.ErrWKB) || !strings.Contains(err.Error(), "row group 2") || !strings.Contains(err.Error(), `column "geometry"`) {
		t.Fatalf("got %v", err)
	}
}
