package tablescan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

func TestFileUnits(t *testing.T) {
	u := func(from, to, b int64) scan.Unit { return scan.Unit{RowGroup: -1, Start: from, End: to, Bytes: b} }
	tests := []struct {
		name   string
		bytes  []int64
		target int64
		want   []scan.Unit
	}{
		{"one file", []int64{10}, 10, []scan.Unit{u(0, 1, 10)}},
		{"a file each", []int64{10, 10, 10}, 10, []scan.Unit{u(0, 1, 10), u(1, 2, 10), u(2, 3, 10)}},
		{"small files join", []int64{3, 3, 3, 3, 3}, 10, []scan.Unit{u(0, 4, 12), u(4, 5, 3)}},
		{"a large file alone", []int64{2, 50, 2, 2}, 10, []scan.Unit{u(0, 1, 2), u(1, 2, 50), u(2, 4, 4)}},
		{"skipped files cost nothing", []int64{8, 0, 0, 0, 8}, 10, []scan.Unit{u(0, 4, 8), u(4, 5, 8)}},
		{"unknown size counts as a unit", []int64{-1, 2}, 10, []scan.Unit{u(0, 2, 12)}},
		{"none", nil, 10, nil},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, FileUnits(tt.bytes, tt.target), tt.name)
	}
}

func TestMergeUnitReports(t *testing.T) {
	units := []scan.Unit{{Start: 0, End: 2}, {Start: 2, End: 3}}
	files := func(lines ...scan.FileReport) []scan.FileReport { return lines }
	a := scan.Report{FilesTotal: 3, FilesAfterStats: 3, FilesRead: 2, RowsReturned: 5, Requests: 2, RoundTrips: 1, BytesRequested: 100,
		Files:  files(scan.FileReport{Path: "a", RowsReturned: 2}, scan.FileReport{Path: "b", RowsReturned: 3}, scan.FileReport{Path: "c", SkippedBy: "unit"}),
		Phases: map[string]float64{"decode": 1}}
	b := scan.Report{FilesTotal: 3, FilesAfterStats: 3, FilesRead: 1, RowsReturned: 4, Requests: 1, RoundTrips: 1, BytesRequested: 40,
		Files:  files(scan.FileReport{Path: "a", SkippedBy: "unit"}, scan.FileReport{Path: "b", SkippedBy: "unit"}, scan.FileReport{Path: "c", RowsReturned: 4}),
		Phases: map[string]float64{"decode": 2}}
	r := MergeUnitReports(units, []scan.Report{a, b})
	require.Equal(t, 3, r.FilesTotal)
	require.Equal(t, 3, r.FilesRead)
	require.Equal(t, int64(9), r.RowsReturned)
	require.Equal(t, 3, r.Requests)
	require.Equal(t, int64(140), r.BytesRequested)
	require.Equal(t, files(a.Files[0], a.Files[1], b.Files[2]), r.Files)
	require.Equal(t, 3.0, r.Phases["decode"])
	require.Equal(t, 1.0, a.Phases["decode"]) // the units' own maps are left alone

	// Before the first unit ends, the second's report stands for the table.
	r = MergeUnitReports(units, []scan.Report{{}, b})
	require.Equal(t, 3, r.FilesTotal)
	require.Equal(t, int64(4), r.RowsReturned)
	require.Equal(t, scan.Report{}, MergeUnitReports(units, []scan.Report{{}, {}}))
}
