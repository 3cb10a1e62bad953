package scan

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/pqscan/pqscan/internal/geosample"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_spatialPageBound measures a viewport query (id and geometry of the rows meeting the
// envelope) against the page-level bound: what was fetched minus the pages of the output
// columns (id, geometry) that hold no matching row. The rest (tail, index entries, the
// covering pages the page index cannot exclude) is in both. It fails when the fetch exceeds
// the bound by more than 1.2×; GEO_BOUND=1 prints the table (BENCHMARKS.md).
func Test_spatialPageBound(t *testing.T) {
	for _, kind := range []geosample.Kind{geosample.Places, geosample.Buildings} {
		rows := 150_000
		if os.Getenv("GEO_BOUND") != "" {
			rows = 1_000_000
		}
		var buf bytes.Buffer
		require.NoError(t, geosample.Generate(&buf, geosample.Config{Kind: kind, Rows: rows}))
		file := buf.Bytes()
		fx := planFixtureOf(t, file, "", []string{"id", "geometry"}, Options{})
		for _, vp := range viewports {
			where := fmt.Sprintf("ST_Intersects(geometry, ST_MakeEnvelope(%v, %v, %v, %v))", vp.env[0], vp.env[1], vp.env[2], vp.env[3])
			// The matching rows' positions in the file.
			pos, _, _ := scanIDsRanges(t, file, Options{Where: where, Columns: []string{"ri"}, RowIndex: "ri"})
			match := map[int64]bool{}
			for _, v := range pos {
				match[v] = true
			}
			_, rep, _ := scanIDsRanges(t, file, Options{Where: where, Columns: []string{"id", "geometry"}})
			// Pages of id and geometry read though no row of theirs matched.
			var wasted, first int64
			for rg := range fx.layout.meta.RowGroups {
				n := fx.layout.meta.RowGroups[rg].NumRows
				var rr *RowGroupReport
				for i := range rep.RowGroups {
					if rep.RowGroups[i].Index == rg {
						rr = &rep.RowGroups[i]
					}
				}
				for _, l := range fx.read {
					oi := fx.offsetIndex(t, rg, l)
					var letters string
					if rr != nil {
						for _, c := range rr.Columns {
							if c.Column == l.Field.Name {
								letters = c.Pages
							}
						}
					}
					for p, loc := range oi.PageLocations {
						if p >= len(letters) || letters[p] != PageRead {
							continue
						}
						end := n
						if p+1 < len(oi.PageLocations) {
							end = oi.PageLocations[p+1].FirstRowIndex
						}
						hit := false
						for r := loc.FirstRowIndex; r < end && !hit; r++ {
							hit = match[first+r]
						}
						if !hit {
							wasted += int64(loc.CompressedPageSize)
						}
					}
				}
				first += n
			}
			bound := rep.BytesPushed - wasted
			ratio := float64(rep.BytesPushed) / float64(bound)
			if os.Getenv("GEO_BOUND") != "" {
				fmt.Printf("| %s | %s | %d | %d | %d | %.2f |\n", kind, vp.name, len(match), rep.BytesPushed, bound, ratio)
			}
			if ratio > 1.2 {
				t.Errorf("%s %s: %d bytes, bound %d (%.2f×)", kind, vp.name, rep.BytesPushed, bound, ratio)
			}
		}
	}
}
