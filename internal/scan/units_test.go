package scan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_PlanUnits(t *testing.T) {
	rg := func(i int, start, rows, bytes int64, pages ...[]int64) UnitRowGroup {
		return UnitRowGroup{Index: i, Start: start, From: 0, To: rows, Rows: rows, Bytes: bytes, Pages: pages}
	}
	u := func(rg int, a, b, bytes int64) Unit { return Unit{RowGroup: rg, Start: a, End: b, Bytes: bytes} }
	tests := []struct {
		name   string
		rgs    []UnitRowGroup
		target int64
		want   []Unit
	}{
		{name: "no row group", target: 1},
		{
			name:   "one thread: a unit per row group",
			rgs:    []UnitRowGroup{rg(0, 0, 100, 1000, []int64{0, 50}), rg(1, 100, 100, 1000, []int64{0, 50})},
			target: 1000,
			want:   []Unit{u(0, 0, 100, 1000), u(1, 100, 200, 1000)},
		},
		{
			name:   "four row groups of one target each: whole",
			rgs:    []UnitRowGroup{rg(0, 0, 10, 40, []int64{0, 5}), rg(1, 10, 10, 40, []int64{0, 5}), rg(2, 20, 10, 40, []int64{0, 5}), rg(3, 30, 10, 40, []int64{0, 5})},
			target: 40,
			want:   []Unit{u(0, 0, 10, 40), u(1, 10, 20, 40), u(2, 20, 30, 40), u(3, 30, 40, 40)},
		},
		{
			name: "one large row group spreads at aligned page starts",
			rgs: []UnitRowGroup{rg(0, 0, 1000, 4000,
				[]int64{0, 125, 250, 375, 500, 625, 750, 875},
				[]int64{0, 250, 500, 750})},
			target: 1000,
			want:   []Unit{u(0, 0, 250, 1000), u(0, 250, 500, 1000), u(0, 500, 750, 1000), u(0, 750, 1000, 1000)},
		},
		{
			name: "no aligned start: the column with most pages",
			rgs: []UnitRowGroup{rg(0, 0, 1000, 2000,
				[]int64{0, 300, 600, 900},
				[]int64{0, 200, 400, 550, 800})},
			target: 1000,
			want:   []Unit{u(0, 0, 550, 1100), u(0, 550, 1000, 900)},
		},
		{
			name:   "under one and a half units: whole",
			rgs:    []UnitRowGroup{rg(0, 0, 1000, 1499, []int64{0, 500})},
			target: 1000,
			want:   []Unit{u(0, 0, 1000, 1499)},
		},
		{
			name:   "one and a half units: two",
			rgs:    []UnitRowGroup{rg(0, 0, 1000, 1500, []int64{0, 500})},
			target: 1000,
			want:   []Unit{u(0, 0, 500, 750), u(0, 500, 1000, 750)},
		},
		{
			name:   "min bytes keeps small row groups whole",
			rgs:    []UnitRowGroup{rg(0, 0, 1000, 4000, []int64{0, 500})},
			target: 1 << 20,
			want:   []Unit{u(0, 0, 1000, 4000)},
		},
		{
			name:   "a column without offset index keeps the row group whole",
			rgs:    []UnitRowGroup{rg(0, 0, 1000, 4000, []int64{0, 500}, nil)},
			target: 1,
			want:   []Unit{u(0, 0, 1000, 4000)},
		},
		{
			name:   "fewer pages than wanted cuts: one cut, no repeat",
			rgs:    []UnitRowGroup{rg(0, 0, 1000, 4000, []int64{0, 400})},
			target: 1,
			want:   []Unit{u(0, 0, 400, 1600), u(0, 400, 1000, 2400)},
		},
		{
			name: "a span (offset and limit, or pruning) cuts only inside it",
			rgs: []UnitRowGroup{{Index: 2, Start: 5000, From: 150, To: 850, Rows: 1000, Bytes: 700,
				Pages: [][]int64{{0, 100, 200, 300, 400, 500, 600, 700, 800, 900}}}},
			target: 350,
			want:   []Unit{u(2, 5150, 5500, 350), u(2, 5500, 5850, 350)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, PlanUnits(tc.rgs, tc.target))
		})
	}
}

func Test_UnitTarget(t *testing.T) {
	tests := []struct {
		name           string
		planned        int64
		threads        int
		minBytes, want int64
	}{
		{name: "two units per thread", planned: 4000, threads: 2, minBytes: 1, want: 1000},
		{name: "not under min bytes", planned: 4000, threads: 8, minBytes: 600, want: 600},
		{name: "no thread count", planned: 4000, threads: 0, minBytes: 1, want: 2000},
		{name: "never zero", planned: 0, threads: 2, minBytes: 0, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, UnitTarget(tc.planned, tc.threads, tc.minBytes))
		})
	}
}

// Test_batchCuts: cuts at batch starts nearest to equal row counts, none without Align or
// with fewer batches than units.
func Test_batchCuts(t *testing.T) {
	for _, c := range []struct {
		g    UnitRowGroup
		k    int64
		want []int64
	}{
		{UnitRowGroup{From: 0, To: 1 << 20, Align: 65536}, 2, []int64{524288}},
		{UnitRowGroup{From: 0, To: 1_000_000, Align: 65536}, 3, []int64{327680, 655360}},
		{UnitRowGroup{From: 100, To: 300_100, Align: 10_000}, 4, []int64{80_100, 150_100, 230_100}},
		{UnitRowGroup{From: 0, To: 100_000, Align: 65536}, 2, nil},
		{UnitRowGroup{From: 0, To: 1 << 20}, 2, nil},
	} {
		require.Equal(t, c.want, batchCuts(c.g, c.k), c)
	}
}
