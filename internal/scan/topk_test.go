package scan

import (
	"bytes"
	"cmp"
	"fmt"
	"github.com/pqscan/pqscan/internal/testcorpus"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/require"
)

// cmpAny orders two non-null Go values of one column as DuckDB does: NaN above every number.
func cmpAny(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case float64:
		y := b.(float64)
		an, bn := math.IsNaN(x), math.IsNaN(y)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		return cmp.Compare(x, y)
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		return cmp.Compare(boolInt(x), boolInt(b.(bool)))
	}
	panic(fmt.Sprintf("%T", a))
}

// topkWant is the brute force: the positions of the matching rows (match[i]) sorted by vals
// (nulls last unless nullsFirst), ties by position, then offset and limit (0: none).
func topkWant(vals []any, match []bool, desc, nullsFirst bool, off, lim int64) []int {
	var pos []int
	for i, ok := range match {
		if ok {
			pos = append(pos, i)
		}
	}
	slices.SortStableFunc(pos, func(i, j int) int {
		a, b := vals[i], vals[j]
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return map[bool]int{true: -1, false: 1}[nullsFirst]
		case b == nil:
			return map[bool]int{true: 1, false: -1}[nullsFirst]
		}
		c := cmpAny(a, b)
		if desc {
			c = -c
		}
		return c
	})
	pos = pos[min(off, int64(len(pos))):]
	if lim > 0 {
		pos = pos[:min(lim, int64(len(pos)))]
	}
	return pos
}

// checkTopK runs ORDER BY key over where (whose matches are match, whose full result in file
// order is lines) with a random direction, null order, offset and limit, and compares the
// rows with the brute force's. It returns the rows compared and the units the bound skipped.
func checkTopK(t *testing.T, rng *rand.Rand, name string, file []byte, where string, key *column, match []bool, lines [][]byte) (int, int) {
	desc, nullsFirst := rng.Intn(2) == 0, rng.Intn(3) == 0
	off, lim := int64(0), int64(1+rng.Intn(30))
	switch rng.Intn(4) {
	case 0:
		lim = 0 // a sort
	case 1:
		off = int64(rng.Intn(10))
	}
	order := fmt.Sprintf("%q", key.name)
	if desc {
		order += " DESC"
	} else if rng.Intn(2) == 0 {
		order += " ASC"
	}
	if nullsFirst {
		order += " NULLS FIRST"
	} else if rng.Intn(2) == 0 {
		order += " nulls last"
	}
	rtb := int64(1 + rng.Intn(8192))
	batch := 1 + rng.Intn(50)
	if lim == 0 {
		batch = 1000
	}
	_, streams, sc := runRounds(t, file, Options{Where: where, OrderBy: order, Offset: off, Limit: lim, BatchRows: batch, RoundTripBytes: rtb})
	// lines[r] is the r-th matching row in file order.
	rank := map[int]int{}
	for i, ok := range match {
		if ok {
			rank[i] = len(rank)
		}
	}
	var want [][]byte
	for _, p := range topkWant(key.vals, match, desc, nullsFirst, off, lim) {
		want = append(want, lines[rank[p]])
	}
	if got := concatBatches(t, streams); !bytes.Equal(got, bytes.Join(want, nil)) {
		t.Fatalf("%s WHERE %s ORDER BY %s OFFSET %d LIMIT %d: rows differ from the brute force's\ngot:\n%s\nwant:\n%s", name, where, order, off, lim, got, bytes.Join(want, nil))
	}
	return len(want), sc.Report().TopKSkipped
}

func Test_parseOrderBy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []orderKey
		err  bool
	}{
		{in: "a", want: []orderKey{{path: "a"}}},
		{in: "a DESC, b asc nulls first", want: []orderKey{{path: "a", desc: true}, {path: "b", nullsFirst: true}}},
		{in: `"my col" DESC NULLS LAST`, want: []orderKey{{path: "my col", desc: true}}},
		{in: "", err: true},
		{in: "a,", err: true},
		{in: "a DOWN", err: true},
		{in: "a NULLS", err: true},
		{in: `"a`, err: true},
	} {
		got, err := parseOrderBy(tc.in)
		if tc.err {
			require.ErrorIs(t, err, ErrOptions, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

// Test_topkPlan: ORDER BY id DESC LIMIT 10 on a file whose ids ascend reads exactly the
// data pages that hold the ten largest ids: the last pages of id in the last row group (their
// column index bounds them best), as few as hold ten rows, in one round; every other page
// of every column is skipped by the runtime bound before it is requested, and the row pass
// finds its rows already pushed.
func Test_topkPlan(t *testing.T) {
	fx := newPlanFixture(t, "hyparquet/page_index.parquet", "", nil, Options{})
	file, meta := fx.file, fx.layout.meta
	type page struct{ off, end int64 }
	var pages []page // every data page of every column, in file order
	var want []page  // id's last pages in the last row group, as many as hold 10 rows
	for rg := range meta.RowGroups {
		for leaf, cc := range meta.RowGroups[rg].Columns {
			oi, err := format.DecodeOffsetIndex(file[*cc.OffsetIndexOffset : *cc.OffsetIndexOffset+int64(*cc.OffsetIndexLength)])
			require.NoError(t, err)
			rows := meta.RowGroups[rg].NumRows
			for i := len(oi.PageLocations) - 1; i >= 0; i-- {
				pl := oi.PageLocations[i]
				p := page{pl.Offset, pl.Offset + int64(pl.CompressedPageSize)}
				pages = append(pages, p)
				if leaf == 0 && rg == len(meta.RowGroups)-1 && rows > meta.RowGroups[rg].NumRows-10 {
					want = append([]page{p}, want...)
				}
				rows = pl.FirstRowIndex
			}
		}
	}
	rounds, streams, s := runRounds(t, file, Options{OrderBy: "id DESC", Limit: 10, Columns: []string{"id"}, TailSize: 1024})
	var got []page
	for _, round := range rounds {
		for _, x := range round {
			for _, p := range pages {
				if x[0] < p.end && p.off < x[0]+x[1] {
					got = append(got, p)
				}
			}
		}
	}
	slices.SortFunc(got, func(a, b page) int { return cmp.Compare(a.off, b.off) })
	require.True(t, len(want) == 2, "the fixture's ten largest ids span two pages", want)
	require.Equal(t, want, got)
	last := rounds[len(rounds)-1]
	require.Equal(t, []r{{want[0].off, want[1].end - want[0].off}}, last) // one request: they are adjacent
	require.Equal(t, []byte("2999|\n2998|\n2997|\n2996|\n2995|\n2994|\n2993|\n2992|\n2991|\n2990|\n"), concatBatches(t, streams))
	require.True(t, s.Report().TopKSkipped > 0, "no unit skipped")
}

// FuzzParseOrderBy: any text gives keys with a name each, or ErrOptions; never a panic.
func FuzzParseOrderBy(f *testing.F) {
	for _, s := range []string{"a", "a DESC, b", `"x y" asc nulls first`, "a,,b", `"`, "a NULLS LAST DESC"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := parseOrderBy(s)
		if err != nil {
			require.ErrorIs(t, err, ErrOptions)
			return
		}
		require.True(t, len(keys) > 0)
		for _, k := range keys {
			require.True(t, k.path != "", s)
		}
	})
}

// FuzzScanOrderBy: a sorted scan (ORDER BY id, a column many seeds have) of any bytes ends in
// batches arrow-go reads or an error, never a panic or a hang, and gives the same result
// whether bytes arrive exactly as asked or in pieces out of order.
func FuzzScanOrderBy(f *testing.F) {
	for i, p := range fuzzScanSeeds[:4] {
		f.Add(append([]byte{byte(i << 2)}, testcorpus.Read(f, p)...))
		f.Add(append([]byte{byte(0x30 | i)}, testcorpus.Read(f, p)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 1<<20 {
			return
		}
		ctl, file := data[0], data[1:]
		o := Options{BatchRows: []int{0, 1, 3, 100}[ctl&3], OrderBy: []string{"id", "id DESC NULLS FIRST"}[ctl>>4&1],
			Limit: []int64{0, 1, 5, 50}[ctl>>6&3]}
		if ctl&0x20 != 0 {
			o.Where = "id > 2"
		}
		exact := fuzzDrive(t, file, o, 0, false)
		pieces := fuzzDrive(t, file, o, []int{1, 7, 64, 4096}[ctl>>2&3], true)
		if fmt.Sprint(exact.err) != fmt.Sprint(pieces.err) || len(exact.streams) != len(pieces.streams) {
			t.Fatalf("exact: %d batches, error %v; pieces: %d batches, error %v", len(exact.streams), exact.err, len(pieces.streams), pieces.err)
		}
		for i := range exact.streams {
			if !bytes.Equal(exact.streams[i], pieces.streams[i]) {
				t.Fatalf("batch %d differs between exact pushes and pieces", i)
			}
		}
	})
}

// Test_topkErrors: bad orderBy options are ErrOptions, and sorted rows beyond the memory cap
// are ErrMemoryCap, never a partial result.
func Test_topkErrors(t *testing.T) {
	file := testcorpus.Read(t, "hyparquet/page_index.parquet")
	for _, tc := range []struct {
		o    Options
		want error
	}{
		{Options{OrderBy: "nope"}, ErrOptions},
		{Options{OrderBy: "id", Count: true}, ErrOptions},
		{Options{OrderBy: "id SIDEWAYS"}, ErrOptions},
		{Options{OrderBy: "word", MemoryCap: 20000, BatchRows: 100}, ErrMemoryCap},
		{Options{OrderBy: "word", Limit: 2500, MemoryCap: 20000, BatchRows: 100, Columns: []string{"id"}}, ErrMemoryCap},
		{Options{OrderBy: "word", Limit: 10, MemoryCap: 20000, BatchRows: 100}, nil},
	} {
		_, _, err := drive(t, file, tc.o)
		require.ErrorIs(t, err, tc.want, tc.o.OrderBy)
	}
}

// Test_topkWindowBytes: without a page index a top-k's units are whole row groups; a key-pass
// window takes no more of them than a round trip's bytes, because a unit read in the same
// round as a better one cannot be pruned by the bound that one sets. 16 row groups each hold
// one large key (100000+i) among small ones: the top 10 are those of row groups 15..6, so
// with one unit per round (a round trip's worth = one chunk) row groups 5..0 are skipped; the
// doubling windows alone (1, 2, 4, 8 units) read 15 of them.
func Test_topkWindowBytes(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < 16; i++ {
		for j := 0; j < 1000; j++ {
			v := int64((i*7 + j) % 1000)
			if j == 500 {
				v = 100000 + int64(i)
			}
			b.Field(0).(*array.Int64Builder).Append(v)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithStats(true), parquet.WithDictionaryDefault(false), parquet.WithMaxRowGroupLength(1000))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	file := buf.Bytes()
	meta, err := format.DecodeFileMetaData(file[footerStart(file) : len(file)-8])
	require.NoError(t, err)
	chunk := meta.RowGroups[0].Columns[0].MetaData.TotalCompressedSize
	rounds, streams, s := runRounds(t, file, Options{OrderBy: "v DESC", Limit: 10, RoundTripBytes: chunk, TailSize: 8})
	var got []int64
	forEachRecord(t, streams, func(rec arrow.RecordBatch) { got = append(got, rec.Column(0).(*array.Int64).Int64Values()...) })
	require.Equal(t, []int64{100015, 100014, 100013, 100012, 100011, 100010, 100009, 100008, 100007, 100006}, got)
	require.Equal(t, 6, s.Report().TopKSkipped)
	// Tail, footer, then one key-pass round per unit read; the row pass reads nothing more.
	require.Equal(t, 2+10, len(rounds))
}
