package prune

import (
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_RowSelection_table(t *testing.T) {
	a := RowSelection{{0, 3}, {5, 8}}
	b := RowSelection{{2, 6}, {9, 10}}
	tests := []struct {
		name      string
		got, want RowSelection
	}{
		{name: "union merges overlap", got: a.Union(b), want: RowSelection{{0, 8}, {9, 10}}},
		{name: "union merges touching", got: RowSelection{{0, 2}}.Union(RowSelection{{2, 4}}), want: RowSelection{{0, 4}}},
		{name: "intersect", got: a.Intersect(b), want: RowSelection{{2, 3}, {5, 6}}},
		{name: "intersect disjoint", got: RowSelection{{0, 2}}.Intersect(RowSelection{{2, 4}}), want: nil},
		{name: "complement", got: a.Complement(10), want: RowSelection{{3, 5}, {8, 10}}},
		{name: "complement clips", got: a.Complement(6), want: RowSelection{{3, 5}}},
		{name: "complement empty", got: RowSelection(nil).Complement(4), want: RowSelection{{0, 4}}},
		{name: "from pages", got: FromPages([]int64{0, 4, 8}, 10, []bool{true, true, false}), want: RowSelection{{0, 8}}},
		{name: "from pages last", got: FromPages([]int64{0, 4, 8}, 10, []bool{false, false, true}), want: RowSelection{{8, 10}}},
		{name: "from pages invalid keeps all", got: FromPages([]int64{0, 4, 4}, 10, []bool{false, false, false}), want: RowSelection{{0, 10}}},
		{name: "from pages beyond rows keeps all", got: FromPages([]int64{0, 12}, 10, []bool{false, false}), want: RowSelection{{0, 10}}},
		{name: "from pages length mismatch keeps all", got: FromPages([]int64{0}, 10, nil), want: RowSelection{{0, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.got)
			require.True(t, tc.got.Valid())
		})
	}
	require.Equal(t, int64(6), a.Count())
	require.True(t, a.Contains(0) && a.Contains(2) && a.Contains(7))
	require.True(t, !a.Contains(3) && !a.Contains(8) && !a.Contains(-1))
	require.Equal(t, []int{1, 2}, PagesFor(RowSelection{{5, 6}, {9, 10}}, []int64{0, 4, 8}, 10))
	require.Equal(t, []int{0, 1, 2}, PagesFor(nil, []int64{0, 0, 8}, 10))
	require.Equal(t, false, RowSelection{{0, 2}, {2, 3}}.Valid())
	require.Equal(t, false, RowSelection{{3, 3}}.Valid())
}

// Test_RowSelection_algebra checks every operation against a naive bitmap.
func Test_RowSelection_algebra(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	randBits := func(n int) []bool {
		b := make([]bool, n)
		p := r.IntN(4)
		for i := range b {
			b[i] = r.IntN(4) < p
		}
		return b
	}
	fromBits := func(b []bool) RowSelection {
		var s RowSelection
		for i, x := range b {
			if x {
				s = appendRange(s, int64(i), int64(i)+1)
			}
		}
		return s
	}
	for iter := 0; iter < 3000; iter++ {
		n := r.IntN(40)
		x, y := randBits(n), randBits(n)
		sx, sy := fromBits(x), fromBits(y)
		and, or, not := make([]bool, n), make([]bool, n), make([]bool, n)
		var cnt int64
		for i := range x {
			and[i], or[i], not[i] = x[i] && y[i], x[i] || y[i], !x[i]
			if x[i] {
				cnt++
			}
			require.Equal(t, x[i], sx.Contains(int64(i)))
		}
		require.Equal(t, fromBits(and), sx.Intersect(sy))
		require.Equal(t, fromBits(or), sx.Union(sy))
		require.Equal(t, fromBits(not), sx.Complement(int64(n)))
		require.Equal(t, cnt, sx.Count())
		for _, s := range []RowSelection{sx.Intersect(sy), sx.Union(sy), sx.Complement(int64(n))} {
			require.True(t, s.Valid())
		}
		if n == 0 {
			continue
		}
		// Random page boundaries, random keep flags.
		first := []int64{0}
		for i := 1; i < n; i++ {
			if r.IntN(4) == 0 {
				first = append(first, int64(i))
			}
		}
		keep := randBits(len(first))
		rows := make([]bool, n)
		var wantPages []int
		for p := range first {
			end := int64(n)
			if p+1 < len(first) {
				end = first[p+1]
			}
			hit := false
			for i := first[p]; i < end; i++ {
				rows[i] = keep[p]
				hit = hit || x[i]
			}
			if hit {
				wantPages = append(wantPages, p)
			}
		}
		require.Equal(t, fromBits(rows), FromPages(first, int64(n), keep))
		require.Equal(t, wantPages, PagesFor(sx, first, int64(n)))
	}
}

func Test_RowSelection_AddSlice(t *testing.T) {
	sel := RowSelection(nil).Add(0, 3).Add(3, 5).Add(7, 7).Add(8, 10).Add(9, 12)
	require.Equal(t, RowSelection{{0, 5}, {8, 12}}, sel)
	tests := []struct {
		name       string
		skip, take int64
		want       RowSelection
	}{
		{name: "all", skip: 0, take: -1, want: RowSelection{{0, 5}, {8, 12}}},
		{name: "skip into the first range", skip: 2, take: -1, want: RowSelection{{2, 5}, {8, 12}}},
		{name: "skip the first range exactly", skip: 5, take: -1, want: RowSelection{{8, 12}}},
		{name: "take across ranges", skip: 3, take: 4, want: RowSelection{{3, 5}, {8, 10}}},
		{name: "take nothing", skip: 0, take: 0, want: nil},
		{name: "skip past the end", skip: 20, take: 3, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sel.Slice(tc.skip, tc.take)
			require.Equal(t, tc.want, got)
			require.True(t, got.Valid())
		})
	}
}
