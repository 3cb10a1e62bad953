package scan

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// Test_planRowIndex: the row index column (Options.RowIndex) holds each row's position in the
// file after every level of skipping, and a predicate on it prunes like a slice: exact rounds.
// In page_index.parquet (2 × 1500 rows) and rowgroups.parquet (numbers 1..15) a row's position
// is known from its values (id; numbers - 1), which checks every emitted position. MaxGap 1
// keeps the pages apart in the rounds.
func Test_planRowIndex(t *testing.T) {
	tests := []struct {
		name, file, where string
		cols              []string
		offset, limit     int64
		rounds            [][]r
		positions         []int64 // the row index values returned (nil: check against id only)
		rows              int64
	}{
		{name: "BETWEEN on the row index: row group 0 skipped, the two pages holding rows 2000..2009 read", file: pageIndexFile,
			where: "ri BETWEEN 2000 AND 2009", cols: []string{"id", "word"},
			rounds: [][]r{{{50790, 1024}}, {{50407, 223}}, {{25587, 1226}, {32895, 609}}}, rows: 10},
		{name: "OR with a value column: each side's pages", file: pageIndexFile,
			where: "ri < 3 OR id > 2997", cols: []string{"id"},
			rounds: [][]r{{{50790, 1024}}, {{48697, 83}, {49252, 83}, {49807, 60}, {50407, 67}}, {{4, 1226}, {30491, 43}}}, rows: 5},
		{name: "offset and limit: positions continue across the row group boundary", file: pageIndexFile,
			offset: 1498, limit: 4, cols: []string{"id"},
			rounds: [][]r{{{50790, 1024}}, {{49807, 60}, {50407, 67}}, {{6134, 43}, {24361, 1226}}}, positions: []int64{1498, 1499, 1500, 1501}, rows: 4},
		{name: "no offset index: row group 0 skipped by the row index's statistics, the other chunk read", file: rowGroupsFile,
			where: "ri >= 12", rounds: [][]r{{{1053, 1024}}, {{467, 586}}, {{248, 120}}},
			positions: []int64{12, 13, 14}, rows: 3},
		{name: "the row index alone", file: rowGroupsFile, where: "numbers IN (2, 15)", cols: []string{"ri"},
			rounds: [][]r{{{1053, 1024}}, {{467, 586}}, {{4, 67}, {248, 46}}, {{71, 79}, {294, 74}}}, positions: []int64{1, 14}, rows: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := testcorpus.Read(t, tc.file)
			rounds, streams, s := runRounds(t, file, Options{Where: tc.where, Columns: tc.cols, RowIndex: "ri",
				Offset: tc.offset, Limit: tc.limit, TailSize: 1024, MaxGap: 1})
			var got []int64
			forEachRecord(t, streams, func(rec arrow.RecordBatch) {
				require.Equal(t, "ri", rec.Schema().Field(0).Name)
				ri := rec.Column(0).(*array.Int64)
				for i := 0; i < int(rec.NumRows()); i++ {
					got = append(got, ri.Value(i))
					if idx := rec.Schema().FieldIndices("id"); len(idx) == 1 {
						require.Equal(t, int64(rec.Column(idx[0]).(*array.Int32).Value(i)), ri.Value(i), "row index = id")
					}
					if idx := rec.Schema().FieldIndices("numbers"); len(idx) == 1 {
						require.Equal(t, rec.Column(idx[0]).(*array.Int64).Value(i)-1, ri.Value(i), "row index = numbers - 1")
					}
				}
			})
			require.Equal(t, tc.rows, int64(len(got)))
			if tc.positions != nil {
				require.Equal(t, tc.positions, got)
			}
			require.Equal(t, tc.rounds, rounds)
			require.Equal(t, tc.rows, s.Report().RowsReturned)
		})
	}
}

// Test_rowIndexErrors: a row index named like a file column is refused.
func Test_rowIndexErrors(t *testing.T) {
	_, _, err := drive(t, testcorpus.Read(t, rowGroupsFile), Options{RowIndex: "numbers"})
	require.ErrorIs(t, err, ErrOptions)
}

// Test_rowIndexPrefix: without an offset index (the events small-rg layout), a predicate on
// the row index alone reads the same chunk prefixes, in the same rounds, as the slice (offset,
// limit) it is equivalent to, and returns the same rows.
func Test_rowIndexPrefix(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, events.Generate(&buf, events.Config{Rows: 70_000, Layout: events.SmallRG, RowGroupRows: 65536, Seed: 2}))
	file := buf.Bytes()
	defer func(v int64) { prefixMin = v }(prefixMin)
	prefixMin = 1
	slice, sliceStreams, _ := runRounds(t, file, Options{RowIndex: "ri", Offset: 1000, Limit: 2000})
	pred, predStreams, s := runRounds(t, file, Options{RowIndex: "ri", Where: "ri >= 1000 AND ri < 3000"})
	require.Equal(t, slice, pred)
	require.Equal(t, rowLines(t, sliceStreams), rowLines(t, predStreams))
	require.Equal(t, int64(2000), s.Report().RowsReturned)
	require.True(t, len(pred) > 2, "prefix reads (the chunk is larger)", len(pred))
}
