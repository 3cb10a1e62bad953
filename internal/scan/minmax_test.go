package scan

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_planMinMax: min/max reads the footer alone when every row group wholly matches and
// has exact statistics, and otherwise only the column's candidate pages (or chunks) of the
// undecided row groups; truncated binary statistics are never trusted.
func Test_planMinMax(t *testing.T) {
	tests := []struct {
		name, file, col, where string
		rounds                 [][]r
		lo, hi                 string
		fromMeta               int
	}{
		{name: "no predicate, exact int statistics: the footer only", file: pageIndexFile, col: "id",
			rounds: [][]r{{{50790, 1024}}}, lo: "0", hi: "2999", fromMeta: 2},
		{name: "row group 1 from its statistics; row group 0's id pages holding ids from 1000 read (its edge page and the one after, coalesced)", file: pageIndexFile, col: "id", where: "id >= 1000",
			rounds: [][]r{{{50790, 1024}}, {{48697, 1170}}, {{3682, 2495}}}, lo: "1000", hi: "2999", fromMeta: 1},
		{name: "row group 0 skipped by statistics, row group 1 wholly matches: the footer and dictionary index round only", file: rowGroupsFile, col: "numbers", where: "numbers > 10",
			rounds: [][]r{{{1053, 1024}}, {{467, 586}}}, lo: "11", hi: "15", fromMeta: 1},
		{name: "truncated binary statistics: the index round, then the chunk is read", file: "parquet-testing/data/binary_truncated_min_max.parquet", col: "utf8_full_truncation",
			rounds: [][]r{{{2046, 1024}}, {{1704, 342}}, {{4, 250}}}, lo: "Alice Johnson", hi: "Kevin Bacon"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := testcorpus.Read(t, tc.file)
			rounds, streams, s := runRounds(t, file, Options{Where: tc.where, MinMax: tc.col, TailSize: 1024})
			require.Equal(t, 1, len(streams))
			forEachRecord(t, streams, func(rec arrow.RecordBatch) {
				require.Equal(t, int64(1), rec.NumRows())
				require.Equal(t, "min", rec.Schema().Field(0).Name)
				require.Equal(t, tc.lo, rec.Column(0).ValueStr(0))
				require.Equal(t, tc.hi, rec.Column(1).ValueStr(0))
			})
			require.Equal(t, tc.rounds, rounds, fmt.Sprint(rounds))
			require.Equal(t, tc.fromMeta, s.Report().RowGroupsFromMetadata)
		})
	}
}

// Test_minMaxNoStatistics: with the statistics level off (NoPrune or Disable), min/max reads
// the column instead of answering from the footer, with the same answer.
func Test_minMaxNoStatistics(t *testing.T) {
	file := testcorpus.Read(t, pageIndexFile)
	for _, o := range []Options{{MinMax: "id", NoPrune: true, TailSize: 1024}, {MinMax: "id", Disable: []string{LevelStatistics}, TailSize: 1024}} {
		rounds, streams, s := runRounds(t, file, o)
		forEachRecord(t, streams, func(rec arrow.RecordBatch) {
			require.Equal(t, "0", rec.Column(0).ValueStr(0))
			require.Equal(t, "2999", rec.Column(1).ValueStr(0))
		})
		require.Equal(t, 0, s.Report().RowGroupsFromMetadata)
		require.True(t, len(rounds) >= 2, "the id chunks are read after the footer", fmt.Sprint(rounds))
	}
}

// Test_minMaxOptions: MinMax with options it cannot honour, or on a column it cannot order,
// is an ErrOptions error.
func Test_minMaxOptions(t *testing.T) {
	for _, o := range []Options{
		{MinMax: "id", Count: true}, {MinMax: "id", Limit: 3}, {MinMax: "id", Offset: 1}, {MinMax: "id", RowIndex: "ri"}, {MinMax: "id", OrderBy: "id DESC"},
	} {
		_, err := New(o)
		require.ErrorIs(t, err, ErrOptions)
	}
	file := testcorpus.Read(t, pageIndexFile)
	for _, col := range []string{"nope", "payload.x"} {
		s, err := New(Options{MinMax: col, FileSize: int64(len(file))})
		require.NoError(t, err)
		var st Step
		for st = s.Next(); st.Kind == NeedRanges; st = s.Next() {
			for _, x := range st.Ranges {
				require.NoError(t, s.Push(x.Off, file[x.Off:x.End()]))
			}
		}
		require.Equal(t, Error, st.Kind)
		require.ErrorIs(t, st.Err, ErrOptions)
	}
}
