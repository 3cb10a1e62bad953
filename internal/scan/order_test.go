package scan

import (
	"slices"
	"strings"
	"testing"

	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

func Test_bucketShare(t *testing.T) {
	ints := prune.ColStats{HasMin: true, HasMax: true, Min: prune.IntValue(0), Max: prune.IntValue(99), NullCount: 0, NumValues: 100}
	small := prune.ColStats{HasMin: true, HasMax: true, Min: prune.IntValue(0), Max: prune.IntValue(9), NullCount: 0, NumValues: 100}
	floats := prune.ColStats{HasMin: true, HasMax: true, Min: prune.FloatValue(0), Max: prune.FloatValue(16), NullCount: 0, NumValues: 100}
	strs := prune.ColStats{HasMin: true, HasMax: true, Min: prune.StringValue("a"), Max: prune.StringValue("z"), NullCount: 0, NumValues: 100}
	for _, tc := range []struct {
		name  string
		where string
		kind  prune.Kind
		cs    prune.ColStats
		want  float64
	}{
		{name: "no value can match", where: "x > 200", kind: prune.Int, cs: ints, want: 0},
		{name: "every bucket may match", where: "x >= 0", kind: prune.Int, cs: ints, want: 1},
		{name: "low range", where: "x < 10", kind: prune.Int, cs: ints, want: 2.0 / 16},
		{name: "a value of ten", where: "x = 4", kind: prune.Int, cs: small, want: 0.1},
		{name: "half the values", where: "x >= 5", kind: prune.Int, cs: small, want: 0.5},
		{name: "floats", where: "x < 4", kind: prune.Float, cs: floats, want: 4.0 / 16},
		{name: "strings are not cut", where: "x = 'k'", kind: prune.Bytes, cs: strs, want: 1},
		{name: "strings out of range", where: "x = 'zz'", kind: prune.Bytes, cs: strs, want: 0},
		{name: "no bounds", where: "x = 3", kind: prune.Int, cs: prune.ColStats{NullCount: -1, NumValues: -1}, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := prune.Parse(tc.where)
			require.NoError(t, err)
			b, err := prune.Bind(e, func(string) (prune.ColumnType, bool) { return prune.ColumnType{Kind: tc.kind}, true })
			require.NoError(t, err)
			if got := bucketShare(b, "x", tc.cs); got != tc.want {
				t.Fatalf("share %v, want %v", got, tc.want)
			}
		})
	}
}

// Test_predicateOrderReport: the report shows, per row group, the order the conjunct groups
// were evaluated in: the group estimated to remove most rows per byte first, the written
// order when nothing is known, conjuncts on one column in one group, none for one group.
func Test_predicateOrderReport(t *testing.T) {
	file := inPageFile(t, 1, false)
	for _, tc := range []struct {
		name  string
		where string
		want  []string // the order in every row group the filter read
	}{
		{name: "a selective range before a string equality", where: `"s" = 'alpha' AND "k" < 3`, want: []string{"k", "s"}},
		{name: "already in order", where: `"k" < 3 AND "s" = 'alpha'`, want: []string{"k", "s"}},
		{name: "nothing known: written order", where: `"s" = 'beta' AND "p" >= 'p5'`, want: []string{"s", "p"}},
		{name: "conjuncts on one column group together", where: `"k" > 1 AND "s" != 'mu' AND "k" < 4`, want: []string{"k", "s"}},
		// The page level already cut the candidates to the row index's range: it removes
		// nothing more, like s (no estimate), so both keep their written order after k.
		{name: "the row index is exact already", where: `"s" = 'beta' AND ri BETWEEN 100 AND 300 AND "k" < 50`, want: []string{"k", "s", "ri"}},
		{name: "one group", where: `"s" = 'beta' OR "k" < 3`, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Where: tc.where}
			if strings.Contains(tc.where, "ri ") {
				opts.RowIndex = "ri"
			}
			_, _, s := runRounds(t, file, opts)
			read := 0
			for _, rg := range s.Report().RowGroups {
				if rg.SkippedBy != "" && rg.SkippedBy != "filter" {
					continue
				}
				read++
				if !slices.Equal(rg.PredicateOrder, tc.want) {
					t.Fatalf("row group %d: order %v, want %v", rg.Index, rg.PredicateOrder, tc.want)
				}
			}
			require.True(t, read > 0, "no row group filtered")
		})
	}
}
