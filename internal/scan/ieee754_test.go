package scan

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

// Statistics under IEEE_754_TOTAL_ORDER: min/max are the least and greatest
// non-NaN values in the IEEE 754 totalOrder, NaNs only when every non-null value is NaN, and
// nan_count is mandatory; pruning compares numerically (-0 = +0), NaN compares false except
// with !=.

// ieee754File is a crafted file: one DOUBLE column x under IEEE_754_TOTAL_ORDER in one row
// group of two pages, [NaN, NaN] and [-0.0, +0.0, 1.5], with chunk statistics (min -0.0,
// max 1.5, nan_count 2) and a column index (page 0: NaN bounds, i.e. all NaN; page 1: -0.0 and
// 1.5) with nan_counts. It returns the file and the two pages' byte ranges.
func ieee754File() ([]byte, [2]r) {
	f64 := func(vs ...float64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	p0 := v1Page(2, format.Plain, format.RLE, format.RLE, nil, f64(nan, nan))
	p1 := v1Page(3, format.Plain, format.RLE, format.RLE, nil, f64(negZero, 0, 1.5))
	bin := func(b []byte) []byte { return append(binary.AppendUvarint(nil, uint64(len(b))), b...) }
	ci := (&tstruct{}).field(1, ctList)
	ci.b = append(listHeader(ci.b, 2, ctFalse), ctFalse, ctFalse)
	ci.field(2, ctList)
	ci.b = append(append(listHeader(ci.b, 2, ctBinary), bin(f64(nan))...), bin(f64(negZero))...)
	ci.field(3, ctList)
	ci.b = append(append(listHeader(ci.b, 2, ctBinary), bin(f64(nan))...), bin(f64(1.5))...)
	ci.i32(4, 0) // UNORDERED
	ci.field(5, ctList)
	ci.b = zigzag(zigzag(listHeader(ci.b, 2, ctI64), 0), 0)
	ci.field(8, ctList)
	ci.b = zigzag(zigzag(listHeader(ci.b, 2, ctI64), 2), 0)
	stats := (&tstruct{}).i64(3, 0).bin(5, string(f64(1.5))).bin(6, string(f64(negZero))).i64(9, 2).end()
	ieee := (&tstruct{}).st(2, []byte{0}).end() // ColumnOrder{IEEE_754_TOTAL_ORDER: {}}
	f := qFile{
		createdBy: "parquet-cpp-arrow version 19.0.0",
		elems:     []qEl{root(1), {name: "x", typ: typePtr(format.Double), rep: format.Required}},
		numRows:   5,
		cols: []qCol{{typ: format.Double, path: []string{"x"}, numValues: 5, pages: []qPage{p0, p1},
			stats: stats, firstRows: []int64{0, 2}, colIndex: ci.end()}},
		orders: [][]byte{ieee},
	}
	n0 := int64(len(p0.bytes()))
	return f.build(), [2]r{{4, n0}, {4 + n0, int64(len(p1.bytes()))}}
}

func Test_ieee754Order(t *testing.T) {
	file, pages := ieee754File()
	tests := []struct {
		name, where string
		// data are the data ranges read (after the tail, which holds the whole footer).
		data          []r
		rows          int64
		fromMeta      int64 // a count's rows counted from metadata
		countData     []r   // what the count reads
		skippedByRG   string
		pagesAfterIdx int
	}{
		{name: "above the max: NaN > 2 is false, the row group is skipped", where: "x > 2", skippedByRG: "filter"},
		{name: "below -0.0 numerically: nothing (-0 = +0)", where: "x < 0", skippedByRG: "filter"},
		{name: "zero: the all-NaN page skipped by its NaN bounds", where: "x = 0", data: []r{pages[1]}, rows: 2, countData: []r{pages[1]}, pagesAfterIdx: 1},
		{name: "!=: NaN != 5 holds and 5 is above the max: a count takes the row group from its statistics", where: "x != 5", data: []r{{pages[0][0], pages[0][1] + pages[1][1]}},
			rows: 5, fromMeta: 5, pagesAfterIdx: 2},
		{name: "!= 1.5 or NaN: the all-NaN page is counted from the column index, the other read", where: "x != 1.5", data: []r{{pages[0][0], pages[0][1] + pages[1][1]}},
			rows: 4, fromMeta: 2, countData: []r{pages[1]}, pagesAfterIdx: 2},
		{name: "IS NOT NULL: no nulls, counted from the footer", where: "x IS NOT NULL", data: []r{{pages[0][0], pages[0][1] + pages[1][1]}},
			rows: 5, fromMeta: 5, pagesAfterIdx: 2},
		{name: "a range inside: the numeric page only", where: "x BETWEEN 1 AND 2", data: []r{pages[1]}, rows: 1, countData: []r{pages[1]}, pagesAfterIdx: 1},
		{name: "NaN literal never prunes", where: "x = 'NaN'", data: []r{{pages[0][0], pages[0][1] + pages[1][1]}}, countData: []r{{pages[0][0], pages[0][1] + pages[1][1]}}, pagesAfterIdx: 2},
	}
	// The tail is everything after the data pages: footer and page index in one read.
	dataEnd := pages[1][0] + pages[1][1]
	tail := []r{{dataEnd, int64(len(file)) - dataEnd}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rounds, _, s := runRounds(t, file, Options{Where: tc.where, Columns: []string{"x"}, TailSize: tail[0][1]})
			require.Equal(t, append([][]r{tail}, roundsOf(tc.data)...), rounds)
			rep := s.Report()
			require.Equal(t, tc.rows, rep.RowsReturned)
			require.Equal(t, tc.pagesAfterIdx, rep.PagesAfterPageIndex)
			if tc.skippedByRG != "" {
				require.Equal(t, 0, rep.RowGroupsAfterStats, "skipped by statistics")
			}
			rounds, streams, s := runRounds(t, file, Options{Where: tc.where, Count: true, TailSize: tail[0][1]})
			require.Equal(t, tc.rows, countOf(t, streams))
			require.Equal(t, tc.fromMeta, s.Report().RowsCountedFromMetadata)
			require.Equal(t, append([][]r{tail}, roundsOf(tc.countData)...), rounds)
			// The brute force: the same rows without any pruning.
			_, n, err := drive(t, file, Options{Where: tc.where, NoPrune: true})
			require.NoError(t, err)
			require.Equal(t, tc.rows, n)
		})
	}
}

// roundsOf is one data round of ranges, or none.
func roundsOf(rs []r) [][]r {
	if len(rs) == 0 {
		return nil
	}
	return [][]r{rs}
}

// Test_ieee754OrderCorpus: floating_orders_nan_count holds the same values in FLOAT, DOUBLE and
// FLOAT16 columns written under IEEE_754_TOTAL_ORDER and under TYPE_ORDER, over five row
// groups (no NaN, some NaN, all NaN, min -0/+0, max -0/+0). The total-order columns' statistics
// prune (the all-NaN row group by its NaN bounds, the mixed one by its non-NaN bounds); the
// type-order ones keep what their NaN-free bounds cannot exclude. Every variant returns the
// unpruned scan's rows.
func Test_ieee754OrderCorpus(t *testing.T) {
	const file = "parquet-testing/data/floating_orders_nan_count.parquet"
	tests := []struct {
		where                string
		ieee754, typeDefined []int // row groups kept by statistics
	}{
		{where: "%s > 4", ieee754: []int{0, 3}, typeDefined: []int{0, 1, 2, 3}},
		{where: "%s < 0", ieee754: []int{0, 1, 4}, typeDefined: []int{0, 1, 2, 4}},
		{where: "%s = 0", ieee754: []int{0, 1, 3, 4}, typeDefined: []int{0, 1, 2, 3, 4}},
		{where: "%s BETWEEN 3.5 AND 4.5", ieee754: []int{0, 3}, typeDefined: []int{0, 1, 2, 3}},
		{where: "%s != 1", ieee754: []int{0, 1, 2, 3, 4}, typeDefined: []int{0, 1, 2, 3, 4}},
	}
	for _, tc := range tests {
		for _, typ := range []string{"float", "double", "float16"} {
			var rows []int64
			for _, order := range []string{"ieee754", "typedef"} {
				col := typ + "_" + order
				where := fmt.Sprintf(tc.where, col)
				f := newPlanFixture(t, file, where, nil, Options{})
				c := selectRowGroups(f.layout.meta, f.layout.writer, f.pred, 0, -1, true)
				want := tc.typeDefined
				if order == "ieee754" {
					want = tc.ieee754
				}
				require.Equal(t, want, c.kept, where)
				_, n, err := drive(t, f.file, Options{Where: where})
				require.NoError(t, err, where)
				_, all, err := drive(t, f.file, Options{Where: where, NoPrune: true})
				require.NoError(t, err, where)
				require.Equal(t, all, n, where)
				rows = append(rows, n)
			}
			require.Equal(t, rows[0], rows[1], tc.where, typ, "same values under both orders")
		}
	}
}
