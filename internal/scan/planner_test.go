package scan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
)

// The planners' tests run on corpus files without a Scanner (hyparquet's test/plan.test.js):
// for a predicate, the exact row groups kept and why the others were skipped, the exact
// ranges of the index round, and the exact rows and page byte ranges the page index keeps.
// The offsets can be checked against the corpus' *.metadata.json (hyparquet files) or
// `pqscan inspect`.

const (
	pageIndexFile = "hyparquet/page_index.parquet"                           // 2 row groups of 1500 rows; id, word, payload (no column index), category (dictionary)
	rowGroupsFile = "hyparquet/rowgroups.parquet"                            // 2 row groups: numbers 1..10, 11..15; dictionary-encoded, no page index
	bloomFile     = "hyparquet/bloom_filter.parquet"                         // DuckDB, 2 row groups with bloom filters on code
	dictIdxFile   = "hyparquet/dictionary_offset_indexed.parquet"            // 1 row group, dictionary-encoded id and country, page index
	tinyPlainFile = "parquet-testing/data/alltypes_tiny_pages_plain.parquet" // 1 row group, hundreds of small pages per column
)

func Test_selectRowGroups(t *testing.T) {
	tests := []struct {
		name, file, where string
		offset, limit     int64
		noStats           bool
		kept              []int
		skippedBy         []string
		afterSlice        int
		offsetLeft        int64
	}{
		{name: "statistics skip the row group whose max is below", file: rowGroupsFile, where: "numbers > 10", limit: -1,
			kept: []int{1}, skippedBy: []string{"statistics", ""}, afterSlice: 2},
		{name: "statistics level off keeps both", file: rowGroupsFile, where: "numbers > 10", limit: -1, noStats: true,
			kept: []int{0, 1}, skippedBy: []string{"", ""}, afterSlice: 2},
		{name: "OR of values in either row group keeps both", file: rowGroupsFile, where: "numbers = 12 OR numbers = 3", limit: -1,
			kept: []int{0, 1}, skippedBy: []string{"", ""}, afterSlice: 2},
		{name: "above every max: nothing kept", file: rowGroupsFile, where: "numbers > 15", limit: -1,
			skippedBy: []string{"statistics", "statistics"}, afterSlice: 2},
		{name: "offset without a filter drops the first row group, 2 rows left to skip", file: rowGroupsFile, offset: 12, limit: -1,
			kept: []int{1}, skippedBy: []string{"slice", ""}, afterSlice: 1, offsetLeft: 2},
		{name: "limit without a filter stops after the first row group", file: rowGroupsFile, limit: 5,
			kept: []int{0}, skippedBy: []string{"", "slice"}, afterSlice: 1},
		{name: "with a filter the offset counts matching rows: no slice", file: rowGroupsFile, where: "numbers > 10", offset: 12, limit: -1,
			kept: []int{1}, skippedBy: []string{"statistics", ""}, afterSlice: 2, offsetLeft: 12},
		{name: "a range inside the second row group", file: pageIndexFile, where: "id >= 1500 AND id < 1600", limit: -1,
			kept: []int{1}, skippedBy: []string{"statistics", ""}, afterSlice: 2},
		{name: "an inexact (truncated) max is a bound: equal to it is kept, above the other is skipped", file: pageIndexFile,
			where: "payload = 'payload 999 xxxy'", limit: -1, kept: []int{0}, skippedBy: []string{"", "statistics"}, afterSlice: 2},
		{name: "a file without column_orders (DuckDB): min_value/max_value still used", file: bloomFile, where: "code = 80", limit: -1,
			kept: []int{0}, skippedBy: []string{"", "statistics"}, afterSlice: 2},
		{name: "within both ranges: kept (the bloom filter decides later)", file: bloomFile, where: "code = 50", limit: -1,
			kept: []int{0, 1}, skippedBy: []string{"", ""}, afterSlice: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newPlanFixture(t, tc.file, tc.where, nil, Options{})
			c := selectRowGroups(f.layout.meta, f.layout.writer, f.pred, tc.offset, tc.limit, !tc.noStats)
			require.Equal(t, tc.kept, c.kept)
			require.Equal(t, tc.skippedBy, c.skippedBy)
			require.Equal(t, tc.afterSlice, c.afterSlice)
			require.Equal(t, tc.offsetLeft, c.offsetLeft)
		})
	}
}

func Test_selectPages(t *testing.T) {
	tests := []struct {
		name, file, where string
		cols              []string
		rg                int
		sel               prune.RowSelection
		all               prune.RowSelection // the rows the column indexes prove all match
		pages             [][]r              // per leaf read (projected, then predicate): the pages holding sel
		counts            []int              // instead of pages: how many pages per leaf read
	}{
		{name: "one id page of the tiny-pages file", file: tinyPlainFile, where: "id = 5", cols: []string{"id", "string_col"},
			sel:   prune.RowSelection{{Start: 153, End: 174}},
			pages: [][]r{{{791, 109}}, {{445700, 130}, {445830, 125}}}},
		{name: "a range at the start of the second row group", file: pageIndexFile, where: "id >= 1500 AND id < 1600", cols: []string{"id", "word"}, rg: 1,
			sel:   prune.RowSelection{{Start: 0, End: 299}},
			pages: [][]r{{{24361, 1226}}, {{30534, 585}, {31119, 593}, {31712, 592}}}},
		{name: "OR over two columns: segments cut at both columns' page boundaries", file: pageIndexFile, where: "id = 1400 OR word = 'word-002000'", cols: []string{"id"}, rg: 0,
			sel:   prune.RowSelection{{Start: 1196, End: 1495}},
			pages: [][]r{{{4908, 1226}}, {{12119, 594}, {12713, 584}, {13297, 593}, {13890, 454}}}},
		{name: "the same OR in the second row group", file: pageIndexFile, where: "id = 1400 OR word = 'word-002000'", cols: []string{"id"}, rg: 1,
			sel:   prune.RowSelection{{Start: 436, End: 545}},
			pages: [][]r{{{25587, 1226}}, {{32895, 609}}}},
		{name: "no column index (payload): every row, every page", file: pageIndexFile, where: "payload = 'payload 5 xxxxxx'", cols: []string{"id"}, rg: 0,
			sel: prune.SelectAll(1500), counts: []int{6, 29}}, // the encoding stats' page counts
		{name: "a single page that may match", file: dictIdxFile, where: "country = 'Canada'",
			sel:   prune.SelectAll(200),
			pages: [][]r{{{836, 233}}, {{1175, 107}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newPlanFixture(t, tc.file, tc.where, tc.cols, Options{})
			sel, all := selectPages(f.pred.bound, f.layout.meta.RowGroups[tc.rg].NumRows, f.pageIndexColumns(t, tc.rg))
			require.Equal(t, tc.sel, sel)
			require.Equal(t, tc.all, all)
			var pages [][]r
			var counts []int
			for _, l := range f.read {
				pages = append(pages, f.pageRanges(t, tc.rg, l, sel))
				counts = append(counts, len(pages[len(pages)-1]))
			}
			if tc.counts != nil {
				require.Equal(t, tc.counts, counts)
				return
			}
			require.Equal(t, tc.pages, pages)
		})
	}
}

func Test_planIndex(t *testing.T) {
	type byLeaf = map[int]r
	tests := []struct {
		name, file, where string
		cols              []string
		opts              Options
		rgs               []int
		ranges            []r
		bloom, dict       map[int]byLeaf    // by row group
		later             [2]map[int]byLeaf // held back: bloom filters, dictionaries
	}{
		{name: "offset indexes of both columns read, column index of the predicate column", file: tinyPlainFile, where: "id = 5", cols: []string{"id", "string_col"}, rgs: []int{0},
			ranges: []r{{747419, 3503}, {788371, 3873}, {676691, 3919}}},
		{name: "a small dictionary of an indexed predicate column is fetched to prune with", file: dictIdxFile, where: "country = 'Canada'", rgs: []int{0},
			ranges: []r{{1360, 12}, {1372, 16}, {1318, 42}, {1069, 106}}, dict: map[int]byLeaf{0: {1: {1069, 106}}}},
		{name: "dictionary level off", file: dictIdxFile, where: "country = 'Canada'", rgs: []int{0}, opts: Options{Disable: []string{LevelDictionary}},
			ranges: []r{{1360, 12}, {1372, 16}, {1318, 42}}},
		{name: "page index level off: no column index; the dictionary, half the chunk, still is", file: dictIdxFile, where: "country = 'Canada'", rgs: []int{0},
			opts: Options{Disable: []string{LevelPageIndex}}, ranges: []r{{1360, 12}, {1372, 16}, {1069, 106}}, dict: map[int]byLeaf{0: {1: {1069, 106}}}},
		{name: "NoPrune: offset indexes only", file: dictIdxFile, where: "country = 'Canada'", rgs: []int{0}, opts: Options{NoPrune: true},
			ranges: []r{{1360, 12}, {1372, 16}}},
		{name: "full scan: nothing", file: dictIdxFile, rgs: []int{0}},
		{name: "a limit: offset indexes to read only the first pages", file: dictIdxFile, rgs: []int{0}, opts: Options{Limit: 10},
			ranges: []r{{1360, 12}, {1372, 16}}},
		{name: "an equality: the dictionaries (23 B), cheaper than the bloom filters (47 B), decide; the bloom filters are held back", file: bloomFile, where: "code = 50", rgs: []int{0, 1},
			ranges: []r{{4, 23}, {85, 23}}, dict: map[int]byLeaf{0: {0: {4, 23}}, 1: {0: {85, 23}}},
			later: [2]map[int]byLeaf{{0: {0: {166, 47}}, 1: {0: {213, 47}}}}},
		{name: "no equality: no bloom filter", file: bloomFile, where: "code > 50", rgs: []int{0, 1},
			ranges: []r{{4, 23}, {85, 23}}, dict: map[int]byLeaf{0: {0: {4, 23}}, 1: {0: {85, 23}}}},
		{name: "bloom level off", file: bloomFile, where: "code = 50", rgs: []int{0, 1}, opts: Options{Disable: []string{LevelBloom}},
			ranges: []r{{4, 23}, {85, 23}}, dict: map[int]byLeaf{0: {0: {4, 23}}, 1: {0: {85, 23}}}},
		{name: "a filtered limit caps the pruning dictionaries at one round trip", file: bloomFile, where: "code = 50", rgs: []int{0, 1},
			opts:   Options{Limit: 1, RoundTripBytes: 30},
			ranges: []r{{4, 23}, {213, 47}},
			bloom:  map[int]byLeaf{1: {0: {213, 47}}}, dict: map[int]byLeaf{0: {0: {4, 23}}},
			later: [2]map[int]byLeaf{{0: {0: {166, 47}}}}},
		{name: "only the row groups planned", file: rowGroupsFile, where: "numbers > 10", rgs: []int{1},
			ranges: []r{{248, 46}}, dict: map[int]byLeaf{1: {0: {248, 46}}}},
		{name: "projected column without a column index, predicate columns with one; category's dictionary", file: pageIndexFile,
			where: "category = 'cat-3' AND id < 300", cols: []string{"payload"}, rgs: []int{0},
			ranges: []r{{50019, 321}, {50340, 67}, {49807, 60}, {49155, 97}, {23486, 233}, {48697, 83}}, dict: map[int]byLeaf{0: {3: {23486, 233}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newPlanFixture(t, tc.file, tc.where, tc.cols, tc.opts)
			p := planIndex(f.layout, tc.rgs, f.read, f.pred, &f.opts)
			require.Equal(t, tc.ranges, ranges(p.ranges))
			require.Equal(t, tc.bloom, byRowGroup(tc.rgs, p.bloom))
			require.Equal(t, tc.dict, byRowGroup(tc.rgs, p.dict))
			require.Equal(t, tc.later[0], byRowGroup(tc.rgs, p.laterBloom))
			require.Equal(t, tc.later[1], byRowGroup(tc.rgs, p.laterDict))
		})
	}
}

// byRowGroup keys planIndex's per-position maps by row group, leaving out empty ones.
func byRowGroup(rgs []int, ms []map[int]httprange.Range) map[int]map[int]r {
	var out map[int]map[int]r
	for k, m := range ms {
		for leaf, x := range m {
			if out == nil {
				out = map[int]map[int]r{}
			}
			if out[rgs[k]] == nil {
				out[rgs[k]] = map[int]r{}
			}
			out[rgs[k]][leaf] = r{x.Off, x.Len}
		}
	}
	return out
}

func Test_readLeavesOf(t *testing.T) {
	f := newPlanFixture(t, pageIndexFile, "category = 'cat-3' AND id < 300 AND payload > 'p'", []string{"payload", "word"}, Options{})
	var got []int
	for _, l := range f.read {
		got = append(got, l.Node.Leaf)
	}
	require.Equal(t, []int{2, 1, 3, 0}, got) // projected first, then predicate columns not projected
}

// Test_planIndexIsTheIndexRound: the Scanner's index round is planIndex's ranges, coalesced
// (a 1 KiB tail keeps them out of the first rounds).
func Test_planIndexIsTheIndexRound(t *testing.T) {
	f := newPlanFixture(t, tinyPlainFile, "id = 5", []string{"id", "string_col"}, Options{})
	want := httprange.Coalesce(planIndex(f.layout, []int{0}, f.read, f.pred, &f.opts).ranges, httprange.CoalesceOptions{MaxGap: f.opts.MaxGap})
	s, err := New(Options{FileSize: int64(len(f.file)), Where: "id = 5", Columns: []string{"id", "string_col"}, TailSize: 1024})
	require.NoError(t, err)
	for round := 1; round <= 3; round++ {
		st := s.Next()
		require.Equal(t, NeedRanges, st.Kind)
		if round == 3 {
			require.Equal(t, ranges(want), ranges(st.Ranges))
			return
		}
		for _, x := range st.Ranges {
			require.NoError(t, s.Push(x.Off, f.bytesAt(x)))
		}
	}
}
