package optimize

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

func Test_Advise(t *testing.T) {
	unsorted := genEvents(t, 50_000)
	var optimized bytes.Buffer
	_, err := Rewrite(context.Background(), openBytes(t, unsorted), &optimized, Options{
		SortBy: []string{"tenant_id", "event_time"}, Bloom: []BloomSpec{{Column: "user_id"}}, RowGroupRows: 10_000,
	})
	require.NoError(t, err)
	corpus := func(name string) []byte {
		return testcorpus.Read(t, filepath.Join("parquet-testing", "data", name))
	}
	tests := []struct {
		name   string
		file   []byte
		want   []string // "kind column" or "kind" for file-level findings
		absent []string
	}{
		{
			name: "unsorted generated",
			file: unsorted,
			want: []string{"no-page-index", "stats-overlap tenant_id", "stats-overlap user_id", "stats-overlap event_time", "bloom-candidate user_id"},
			// value is written in row order; tenant_id and event_type have few values.
			absent: []string{"stats-overlap value", "bloom-candidate tenant_id", "bloom-candidate event_type", "bloom-candidate event_time", "row-group-small"},
		},
		{
			name: "optimized",
			file: optimized.Bytes(),
			// user_id embeds the tenant, so sorting by tenant also clusters it; value was the
			// input row number and is now spread.
			want:   []string{"stats-overlap value"},
			absent: []string{"no-page-index", "stats-overlap tenant_id", "stats-overlap user_id", "bloom-candidate user_id"},
		},
		{
			name: "truncated binary statistics",
			file: corpus("binary_truncated_min_max.parquet"),
			want: []string{"inexact-statistics"},
		},
		{
			name:   "tiny row groups, old writer",
			file:   corpus("alltypes_tiny_pages_plain.parquet"),
			want:   []string{"bloom-candidate id", "no-statistics timestamp_col"},
			absent: []string{"bloom-candidate tinyint_col", "bloom-candidate year", "bloom-candidate timestamp_col"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			adv := Advise(footer(t, tc.file))
			var got []string
			for _, a := range adv {
				got = append(got, a.Kind+" "+a.Column, a.Kind)
				t.Log(a)
			}
			for _, w := range tc.want {
				if len(w) > 0 && !slices.Contains(got, w) && !slices.Contains(got, w+" ") {
					t.Errorf("missing %q in %q", w, got)
				}
			}
			for _, w := range tc.absent {
				if slices.Contains(got, w) || slices.Contains(got, w+" ") {
					t.Errorf("unexpected %q", w)
				}
			}
		})
	}
}
