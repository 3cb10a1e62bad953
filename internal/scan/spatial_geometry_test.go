package scan

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/geosample"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_spatialNativeGeometry: the native-GEOMETRY variant of the generated places (no `geo`
// metadata, so no covering) is pruned by its chunks' geospatial statistics alone. Each chunk
// is one page, so the data ranges asked for are known exactly: the id and geometry chunks of
// every row group whose box (computed here from the rows) meets the envelope, and nothing
// else; and the rows equal orb's answer.
func Test_spatialNativeGeometry(t *testing.T) {
	const rgRows = 500 // id 4 KB, geometry 10.5 KB: one page each
	rows, err := geosample.Rows(geosample.Config{Kind: geosample.Places, Rows: 20000})
	require.NoError(t, err)
	var plain bytes.Buffer
	require.NoError(t, geosample.Write(&plain, rows, rgRows, ""))
	data, err := geosample.Native(plain.Bytes(), rows)
	require.NoError(t, err)

	// The footer as the engine's decoder reads it: GEOMETRY, one box per chunk, no min/max.
	n := len(data)
	flen := int(data[n-8]) | int(data[n-7])<<8 | int(data[n-6])<<16 | int(data[n-5])<<24
	fm, err := format.DecodeFileMetaData(data[n-8-flen : n-8])
	require.NoError(t, err)
	rd, err := file.NewParquetReader(bytes.NewReader(data)) // arrow-go still opens it
	require.NoError(t, err)
	md := rd.MetaData()
	require.Equal(t, 40, md.NumRowGroups())
	for _, rg := range fm.RowGroups {
		cm := rg.Columns[2].MetaData
		require.True(t, cm.GeospatialStatistics != nil && cm.GeospatialStatistics.BBox != nil, "geospatial statistics")
		require.True(t, cm.Statistics == nil, "no min/max on GEOMETRY")
	}

	chunk := func(rg, c int) [2]int64 {
		cc, err := md.RowGroup(rg).ColumnChunk(c)
		require.NoError(t, err)
		pr, err := rd.RowGroup(rg).GetColumnPageReader(c)
		require.NoError(t, err)
		pages := 0
		for pr.Next() {
			pages++
		}
		require.Equal(t, 1, pages)
		return [2]int64{cc.DataPageOffset(), cc.DataPageOffset() + cc.TotalCompressedSize()}
	}
	geoms := make([]orb.Geometry, len(rows))
	for i, r := range rows {
		geoms[i], err = wkb.Unmarshal(r.WKB)
		require.NoError(t, err)
	}
	meets := func(env [4]float64, lo, hi [2]float64) bool {
		if hi[1] < env[1] || lo[1] > env[3] {
			return false
		}
		if env[0] > env[2] { // across the antimeridian
			return hi[0] >= env[0] || lo[0] <= env[2]
		}
		return hi[0] >= env[0] && lo[0] <= env[2]
	}
	for _, vp := range viewports {
		env := vp.env
		var want []int64
		var wantRanges [][2]int64
		kept := 0
		for rg := 0; rg*rgRows < len(rows); rg++ {
			part := rows[rg*rgRows : min(len(rows), rg*rgRows+rgRows)]
			lo, hi := part[0].Min, part[0].Max
			match := false
			for i, r := range part {
				lo[0], lo[1], hi[0], hi[1] = min(lo[0], r.Min[0]), min(lo[1], r.Min[1]), max(hi[0], r.Max[0]), max(hi[1], r.Max[1])
				if oracleRelate(geoms[rg*rgRows+i], env, "intersects") {
					want = append(want, r.ID)
					match = true
				}
			}
			if meets(env, lo, hi) {
				kept++
				wantRanges = append(wantRanges, chunk(rg, 0), chunk(rg, 2))
			} else if match {
				t.Fatalf("%s: row group %d holds a match outside its box", vp.name, rg)
			}
		}
		if kept == 0 && vp.name != "ocean" || kept == md.NumRowGroups() {
			t.Fatalf("%s: %d of %d row groups kept: the viewport does not exercise pruning", vp.name, kept, md.NumRowGroups())
		}
		slices.Sort(want)
		where := fmt.Sprintf("ST_Intersects(geometry, ST_MakeEnvelope(%v, %v, %v, %v))", env[0], env[1], env[2], env[3])
		got, rep, asked := scanIDsRanges(t, data, Options{Where: where, TailSize: 8, MaxGap: 1})
		require.Equal(t, want, got)
		require.Equal(t, kept, rep.RowGroupsAfterStats)
		dataEnd := chunk(md.NumRowGroups()-1, 3)[0] // the last row group's bbox columns and beyond
		var gotRanges [][2]int64
		for _, r := range asked {
			if r.Off >= 4 && r.End() <= dataEnd {
				gotRanges = append(gotRanges, [2]int64{r.Off, r.End()})
			}
		}
		require.Equal(t, merge(wantRanges), merge(gotRanges))
		t.Logf("%s: %d rows, %d of %d row groups read", vp.name, len(got), kept, md.NumRowGroups())
	}
}
