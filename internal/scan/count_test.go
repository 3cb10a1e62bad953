package scan

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// runRounds drives a scan of file, recording the ranges of every round, and returns them with
// the batches.
func runRounds(t *testing.T, file []byte, opts Options) (rounds [][]r, streams [][]byte, s *Scanner) {
	t.Helper()
	opts.FileSize = int64(len(file))
	s, err := New(opts)
	require.NoError(t, err)
	for i := 0; ; i++ {
		require.True(t, i < 1000, "too many steps")
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			var round []r
			for _, x := range st.Ranges {
				round = append(round, r{x.Off, x.Len})
				require.NoError(t, s.Push(x.Off, file[x.Off:x.End()]))
			}
			rounds = append(rounds, round)
			continue
		case Batch:
			streams = append(streams, append([]byte(nil), st.IPC...))
			continue
		}
		require.NoError(t, st.Err)
		if st.Kind == Done {
			return rounds, streams, s
		}
	}
}

// countOf reads a count's one-row batch.
func countOf(t *testing.T, streams [][]byte) int64 {
	t.Helper()
	require.Equal(t, 1, len(streams))
	var n int64 = -1
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		require.Equal(t, int64(1), rec.NumRows())
		require.Equal(t, "count", rec.Schema().Field(0).Name)
		n = rec.Column(0).(*array.Int64).Value(0)
	})
	return n
}

// Test_planCount: a count reads the footer, then only the predicate columns' pages (or chunks)
// that the statistics leave undecided; row groups and pages proven to match in every row are
// counted from their row counts.
func Test_planCount(t *testing.T) {
	tests := []struct {
		name, file, where string
		offset, limit     int64
		rounds            [][]r
		count, fromMeta   int64
	}{
		{name: "no predicate: the footer only", file: pageIndexFile,
			rounds: [][]r{{{50790, 1024}}}, count: 3000, fromMeta: 3000},
		{name: "no predicate, offset and limit apply to the count", file: pageIndexFile, offset: 100, limit: 2000,
			rounds: [][]r{{{50790, 1024}}}, count: 2000, fromMeta: 3000},
		{name: "every row of the kept row group matches by its statistics: footer only", file: rowGroupsFile, where: "numbers > 10",
			rounds: [][]r{{{1053, 1024}}, {{467, 586}}}, count: 5, fromMeta: 5},
		{name: "one row group undecided: its dictionary (index round), then the rest of its chunk; the other counted", file: rowGroupsFile, where: "numbers >= 3",
			rounds: [][]r{{{1053, 1024}}, {{467, 586}}, {{4, 67}}, {{71, 79}}}, count: 13, fromMeta: 5},
		{name: "page index: row group 1 counted by statistics, row group 0's pages above 1000 counted, its edge page read", file: pageIndexFile, where: "id >= 1000",
			rounds: [][]r{{{50790, 1024}}, {{48697, 1170}}, {{3682, 1226}}}, count: 2000, fromMeta: 1804},
		{name: "a range across the row groups' boundary: the id pages at its two edges; the 5-row last page of row group 0 counted", file: pageIndexFile, where: "id >= 1300 AND id < 1700",
			rounds: [][]r{{{50790, 1024}}, {{48697, 1777}}, {{4908, 1226}, {24361, 1226}}}, count: 400, fromMeta: 5},
		{name: "null pages: IS NULL counts the all-null page from the column index", file: "parquet-testing/data/int32_with_null_pages.parquet", where: "int32_field IS NULL",
			rounds: [][]r{{{2805, 1024}}, {{4, 2801}}}, count: 275, fromMeta: 100},
		{name: "IS NOT NULL: every page has nulls, all read", file: "parquet-testing/data/int32_with_null_pages.parquet", where: "int32_field IS NOT NULL",
			rounds: [][]r{{{2805, 1024}}, {{4, 2801}}}, count: 725, fromMeta: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := testcorpus.Read(t, tc.file)
			rounds, streams, s := runRounds(t, file, Options{Where: tc.where, Count: true, Offset: tc.offset, Limit: tc.limit, TailSize: 1024})
			require.Equal(t, tc.count, countOf(t, streams))
			require.Equal(t, tc.rounds, rounds)
			require.Equal(t, tc.fromMeta, s.Report().RowsCountedFromMetadata)
		})
	}
}

// Test_tinyTailSize: a tail size below the footer's 8 bytes of length and magic reads as 8
// (one more round for the footer), never past the file's start.
func Test_tinyTailSize(t *testing.T) {
	file := testcorpus.Read(t, pageIndexFile)
	_, want, _ := runRounds(t, file, Options{Count: true})
	for _, n := range []int64{1, 7, 8, 9} {
		rounds, got, _ := runRounds(t, file, Options{Count: true, TailSize: n})
		require.Equal(t, countOf(t, want), countOf(t, got), n)
		require.Equal(t, r{int64(len(file)) - max(n, 8), max(n, 8)}, rounds[0][0], n)
	}
}
