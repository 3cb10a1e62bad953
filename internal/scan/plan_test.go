package scan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// r is a range as [offset, length].
type r = [2]int64

// Test_plan asserts the exact byte ranges each round asks for, and the skipping counters, on
// corpus files (in the style of hyparquet's test/plan.test.js). A 1 KiB tail read makes the
// footer and index rounds visible; with the default 64 KiB tail they merge into the first.
func Test_plan(t *testing.T) {
	tests := []struct {
		name, file, where string
		cols              []string
		limit             int64
		rounds            [][]r
		// row groups after stats/bloom/dictionary; pages total/after page index/after late materialization; rows matched.
		rgStats, rgBloom, rgDict, pages, pagesIdx, pagesLate int
		matched                                              int64
	}{
		{
			name: "page index selects 3 of 677 pages, late materialization 2",
			file: "parquet-testing/data/alltypes_tiny_pages.parquet", where: "id = 5", cols: []string{"id", "string_col"},
			rounds:  [][]r{{{453209, 1024}}, {{452504, 705}}, {{323583, 3919}, {394311, 3503}, {431936, 3521}}, {{791, 109}, {167075, 396}}},
			rgStats: 1, rgBloom: 1, rgDict: 1, pages: 677, pagesIdx: 3, pagesLate: 2, matched: 1,
		},
		{
			name: "limit reads the first page of each column only",
			file: "parquet-testing/data/alltypes_tiny_pages.parquet", cols: []string{"id", "string_col"}, limit: 10,
			rounds:  [][]r{{{453209, 1024}}, {{452504, 705}}, {{394311, 3503}, {431936, 3521}}, {{4, 109}, {167075, 100}}},
			rgStats: 1, rgBloom: 1, rgDict: 1, pages: 677, pagesIdx: 2, pagesLate: 2, matched: 10,
		},
		{
			name: "truncated (inexact) max still bounds: a value inside it is read",
			file: "parquet-testing/data/binary_truncated_min_max.parquet", where: "utf8_full_truncation = 'Kevin Bacon'",
			rounds:  [][]r{{{2046, 1024}}, {{1704, 342}}, {{1418, 286}}, {{4, 1414}}},
			rgStats: 1, rgBloom: 1, rgDict: 1, pages: 6, pagesIdx: 6, pagesLate: 6, matched: 1,
		},
		{
			name: "truncated max Kf proves nothing is greater: skipped by statistics",
			file: "parquet-testing/data/binary_truncated_min_max.parquet", where: "utf8_full_truncation > 'Kf'",
			rounds: [][]r{{{2046, 1024}}, {{1704, 342}}},
		},
		{
			name: "the inexact bound itself is not excluded by statistics (the page index decides)",
			file: "parquet-testing/data/binary_truncated_min_max.parquet", where: "utf8_full_truncation = 'Kf'",
			rounds:  [][]r{{{2046, 1024}}, {{1704, 342}}, {{1418, 286}}},
			rgStats: 1, rgBloom: 1, rgDict: 1,
		},
		{
			name: "exact max: nothing above it",
			file: "parquet-testing/data/binary_truncated_min_max.parquet", where: "utf8_no_truncation > 'Ke'",
			rounds: [][]r{{{2046, 1024}}, {{1704, 342}}},
		},
		{
			name:    "full scan without offset index round",
			file:    "parquet-testing/data/floating_orders_nan_count.parquet",
			rounds:  [][]r{{{5119, 1024}}, {{3109, 2010}}, {{4, 2110}}},
			rgStats: 5, rgBloom: 5, rgDict: 5, matched: 50,
		},
		{
			name: "null pages: IS NULL keeps pages with nulls",
			file: "parquet-testing/data/int32_with_null_pages.parquet", where: "int32_field IS NULL",
			rounds:  [][]r{{{2805, 1024}}, {{4, 2801}}},
			rgStats: 1, rgBloom: 1, rgDict: 1, pages: 10, pagesIdx: 10, pagesLate: 10, matched: 275,
		},
		{
			name: "bloom filter without length: header then bitset, row group skipped",
			file: "parquet-testing/data/data_index_bloom_encoding_stats.parquet", where: "String = 'foo'",
			rounds:  [][]r{{{619, 1024}}, {{156, 100}}, {{256, 363}}},
			rgStats: 1,
		},
		{
			name: "bloom filter with length: row group skipped, no data fetched",
			file: "parquet-testing/data/data_index_bloom_encoding_with_length.parquet", where: "String = 'foo'",
			rounds:  [][]r{{{1861, 1024}}, {{253, 1608}}},
			rgStats: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := testcorpus.Read(t, tc.file)
			s, err := New(Options{FileSize: int64(len(file)), Where: tc.where, Columns: tc.cols, Limit: tc.limit, TailSize: 1024})
			require.NoError(t, err)
			var rounds [][]r
			for i := 0; ; i++ {
				require.True(t, i < 100, "too many steps")
				st := s.Next()
				if st.Kind == NeedRanges {
					var round []r
					for _, x := range st.Ranges {
						round = append(round, r{x.Off, x.Len})
					}
					rounds = append(rounds, round)
					for _, x := range st.Ranges {
						require.NoError(t, s.Push(x.Off, file[x.Off:x.End()]))
					}
					continue
				}
				require.NoError(t, st.Err)
				if st.Kind == Done {
					break
				}
			}
			require.Equal(t, tc.rounds, rounds)
			rep := s.Report()
			require.Equal(t, []int{tc.rgStats, tc.rgBloom, tc.rgDict, tc.pages, tc.pagesIdx, tc.pagesLate},
				[]int{rep.RowGroupsAfterStats, rep.RowGroupsAfterBloom, rep.RowGroupsAfterDict, rep.PagesTotal, rep.PagesAfterPageIndex, rep.PagesAfterLateMat})
			require.Equal(t, tc.matched, rep.RowsMatched)
			require.Equal(t, len(rounds), rep.RoundTrips)
		})
	}
}
