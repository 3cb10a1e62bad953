package bench

import (
	"bytes"
	"testing"

	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// Test_Run checks, on small files with several row groups, that every query returns the
// brute-force rows and that the bound is a lower bound of what the engine fetched.
func Test_Run(t *testing.T) {
	tests := []struct {
		name string
		cfg  events.Config
	}{
		{name: "sorted", cfg: events.Config{Rows: 20000, Layout: events.Sorted, RowGroupRows: 4096}},
		{name: "small-rg", cfg: events.Config{Rows: 20000, Layout: events.SmallRG, RowGroupRows: 2048}},
		{name: "unsorted", cfg: events.Config{Rows: 20000, Layout: events.Unsorted, RowGroupRows: 4096}},
	}
	var p Params
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, events.Generate(&b, tc.cfg))
			if i == 0 {
				tbl, err := Open(b.Bytes())
				require.NoError(t, err)
				p, err = ChooseParams(tbl)
				require.NoError(t, err)
			}
			rs, err := Run(b.Bytes(), p, scan.Options{})
			require.NoError(t, err)
			require.Equal(t, 4, len(rs))
			for _, r := range rs {
				require.True(t, r.Correct(), r.Query.Name, "rows", r.Result.Rows, "want", r.Truth.Rows, "err", r.Err)
				require.True(t, r.Truth.Rows > 0, r.Query.Name, "matches no row")
				require.True(t, r.Ratio() >= 1, r.Query.Name, "fetched less than the bound:", r.Result.Report.BytesRequested, r.Bound.Total())
				var fetched int64
				for k := range nKinds {
					fetched += r.Breakdown.Needed[k] + r.Breakdown.Extra[k]
				}
				require.Equal(t, r.Result.Report.BytesRequested, fetched, r.Query.Name, "classified bytes")
			}
			cs, err := RunCounts(b.Bytes(), p, scan.Options{})
			require.NoError(t, err)
			for _, c := range cs {
				require.NoError(t, c.Err, c.Name)
				require.Equal(t, c.Want, c.Got, c.Name, c.Where)
				require.True(t, c.Want > 0, c.Name, "counts no row")
				require.True(t, c.Report.BytesRequested >= c.Bound, c.Name, "fetched less than the bound:", c.Report.BytesRequested, c.Bound)
				require.True(t, c.Report.RowsCountedFromMetadata <= c.BoundFromMeta, c.Name, "counted more from metadata than the bound allows")
			}
		})
	}
}
