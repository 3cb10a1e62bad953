package scan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/testcorpus"
)

// The cost rule between a chunk's two proofs of absence, its bloom filter and its dictionary
// page: the cheaper one is fetched first, the other only where the first cannot decide.

func Test_orderProofs(t *testing.T) {
	bloom := httprange.Range{Off: 1000, Len: 512}
	small, large := httprange.Range{Off: 4, Len: 100}, httprange.Range{Off: 4, Len: 2048}
	tests := []struct {
		name       string
		c          chunkProofs
		deferDicts bool
		want       proofOrder
	}{
		{name: "bloom filter only", c: chunkProofs{bloom: bloom, hasBloom: true, bloomCost: 512}, deferDicts: true,
			want: proofOrder{bloom: true}},
		{name: "dictionary only", c: chunkProofs{dict: large, hasDict: true}, deferDicts: true,
			want: proofOrder{dict: true}},
		{name: "the dictionary is cheaper: it decides, the bloom filter waits", c: chunkProofs{bloom: bloom, hasBloom: true, bloomCost: 512, dict: small, hasDict: true},
			want: proofOrder{dict: true, laterBloom: true}},
		{name: "equal cost: the dictionary, which decides exactly", c: chunkProofs{bloom: bloom, hasBloom: true, bloomCost: 100, dict: small, hasDict: true},
			want: proofOrder{dict: true, laterBloom: true}},
		{name: "the bloom filter is cheaper: the dictionary waits", c: chunkProofs{bloom: bloom, hasBloom: true, bloomCost: 512, dict: large, hasDict: true}, deferDicts: true,
			want: proofOrder{bloom: true, laterDict: true}},
		{name: "the bloom filter is cheaper but a second round is not worth it: both at once", c: chunkProofs{bloom: bloom, hasBloom: true, bloomCost: 512, dict: large, hasDict: true},
			want: proofOrder{bloom: true, dict: true}},
		{name: "an unrecorded bloom length is costed by its bound", c: chunkProofs{bloom: httprange.Range{Off: 1000, Len: 64}, hasBloom: true, bloomCost: 4096, dict: large, hasDict: true}, deferDicts: true,
			want: proofOrder{dict: true, laterBloom: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, orderProofs(tc.c, tc.deferDicts))
		})
	}
}

func Test_deferDictionaries(t *testing.T) {
	bloomFirst := chunkProofs{hasBloom: true, bloomCost: 32, hasDict: true, dict: httprange.Range{Off: 4, Len: 100}}
	dictFirst := chunkProofs{hasBloom: true, bloomCost: 500, hasDict: true, dict: httprange.Range{Off: 4, Len: 400}}
	tests := []struct {
		name      string
		cs        []chunkProofs
		roundTrip int64
		want      bool
	}{
		{name: "none", roundTrip: 0},
		{name: "held-back dictionaries over a round trip", cs: []chunkProofs{bloomFirst, bloomFirst, bloomFirst}, roundTrip: 299, want: true},
		{name: "exactly a round trip: not worth it", cs: []chunkProofs{bloomFirst, bloomFirst, bloomFirst}, roundTrip: 300},
		{name: "dictionaries fetched first do not count", cs: []chunkProofs{bloomFirst, dictFirst, dictFirst}, roundTrip: 150},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, deferDictionaries(tc.cs, tc.roundTrip))
		})
	}
}

func Test_bloomBound(t *testing.T) {
	offs := []int64{4, 100, 500, 900}
	tests := []struct {
		name      string
		off, want int64
	}{
		{name: "up to the next offset", off: 100, want: 400},
		{name: "between offsets", off: 450, want: 50},
		{name: "after the last: up to the footer", off: 900, want: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, bloomBound(offs, tc.off, 1000))
		})
	}
}

func Test_secondProofs(t *testing.T) {
	b0, b1 := httprange.Range{Off: 900, Len: 32}, httprange.Range{Off: 932, Len: 32}
	d0, d1 := httprange.Range{Off: 4, Len: 100}, httprange.Range{Off: 200, Len: 100}
	type m = map[int]httprange.Range
	tests := []struct {
		name                         string
		dicts, laterBloom, laterDict m
		wantBloom, wantDict          m
	}{
		{name: "a bloom filter said maybe: its dictionary decides", laterDict: m{0: d0}, wantDict: m{0: d0}},
		{name: "a dictionary that decoded: its bloom filter stays unread", dicts: m{1: d1}, laterBloom: m{1: b1}},
		{name: "a dictionary that did not decode: its bloom filter", laterBloom: m{1: b1}, wantBloom: m{1: b1}},
		{name: "two chunks", dicts: m{1: d1}, laterBloom: m{0: b0, 1: b1}, laterDict: m{2: d0},
			wantBloom: m{0: b0}, wantDict: m{2: d0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bloom, dict := secondProofs(tc.dicts, tc.laterBloom, tc.laterDict)
			require.Equal(t, tc.wantBloom, bloom)
			require.Equal(t, tc.wantDict, dict)
		})
	}
}

// proofsFile writes rgs row groups of 4096 rows of one INT64 column x, uncompressed, with a
// bloom filter and no page index: row group j holds the 256 values 4i+j, 16 times each, so
// every row group's min/max overlap the others' and only the bloom filter or the dictionary
// tells them apart. The dictionary (2 KiB) is a third of the chunk (worth fetching) and the
// bloom filter (fpp 0.1) is smaller than the dictionary.
func proofsFile(t *testing.T, rgs int) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	props := parquet.NewWriterProperties(
		parquet.WithMaxRowGroupLength(4096),
		parquet.WithBloomFilterEnabledFor("x", true),
		parquet.WithBloomFilterNDVFor("x", 256),
		parquet.WithBloomFilterFPPFor("x", 0.1),
		parquet.WithStats(true),
	)
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for j := range rgs {
		for k := range 4096 {
			i := (k*37 + j) % 256 // every value 16 times, scattered
			b.Append(int64(4*i + j))
		}
		arr := b.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{arr}, 4096)
		require.NoError(t, fw.WriteBuffered(rec))
		rec.Release()
		arr.Release()
	}
	require.NoError(t, fw.Close())
	return buf.Bytes()
}

// proofRanges are a file's bloom filter and dictionary ranges of leaf 0 by row group, from
// its footer.
func proofRanges(t *testing.T, f *planFixture) (blooms, dicts []httprange.Range) {
	t.Helper()
	for _, rg := range f.layout.meta.RowGroups {
		cm := rg.Columns[0].MetaData
		require.True(t, cm.BloomFilterLength != nil, "bloom filter length recorded")
		require.True(t, fullyDictionary(cm), "fully dictionary-encoded")
		blooms = append(blooms, httprange.Range{Off: *cm.BloomFilterOffset, Len: int64(*cm.BloomFilterLength)})
		dicts = append(dicts, httprange.Range{Off: format.ChunkStart(cm), Len: cm.DataPageOffset - format.ChunkStart(cm)})
	}
	return blooms, dicts
}

// Test_planIndexBloomFirst: on chunks whose bloom filter is cheaper than their dictionary, the
// index round fetches the bloom filters and holds the dictionaries back when they add up to
// more than a round trip; under it, both come in one round.
func Test_planIndexBloomFirst(t *testing.T) {
	file := proofsFile(t, 4)
	f := planFixtureOf(t, file, "x = 5", nil, Options{})
	blooms, dicts := proofRanges(t, f)
	for k := range blooms {
		require.True(t, blooms[k].Len < dicts[k].Len, "bloom filter cheaper, row group", k)
	}
	byPos := func(rs []httprange.Range) []map[int]httprange.Range {
		out := make([]map[int]httprange.Range, len(rs))
		for k, r := range rs {
			out[k] = map[int]httprange.Range{0: r}
		}
		return out
	}
	none := make([]map[int]httprange.Range, 4)
	var total int64
	for _, d := range dicts {
		total += d.Len
	}
	tests := []struct {
		name                  string
		roundTrip             int64
		ranges                []httprange.Range
		bloom, dict           []map[int]httprange.Range
		laterBloom, laterDict []map[int]httprange.Range
	}{
		{name: "held-back dictionaries over a round trip: bloom filters first", roundTrip: total - 1,
			ranges: blooms, bloom: byPos(blooms), dict: none, laterBloom: none, laterDict: byPos(dicts)},
		{name: "held-back dictionaries within a round trip: both in one round", roundTrip: total,
			ranges: []httprange.Range{blooms[0], dicts[0], blooms[1], dicts[1], blooms[2], dicts[2], blooms[3], dicts[3]},
			bloom:  byPos(blooms), dict: byPos(dicts), laterBloom: none, laterDict: none},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := f.opts
			opts.RoundTripBytes = tc.roundTrip
			p := planIndex(f.layout, []int{0, 1, 2, 3}, f.read, f.pred, &opts)
			require.Equal(t, tc.ranges, p.ranges)
			require.Equal(t, tc.bloom, p.bloom)
			require.Equal(t, tc.dict, p.dict)
			require.Equal(t, tc.laterBloom, p.laterBloom)
			require.Equal(t, tc.laterDict, p.laterDict)
		})
	}
}

// bloomSays reports whether the bloom filter at r of file may hold the INT64 v.
func bloomSays(t *testing.T, file []byte, r httprange.Range, v int64) bool {
	t.Helper()
	b := file[r.Off:r.End()]
	h, n, err := format.DecodeBloomFilterHeader(b)
	require.NoError(t, err)
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], uint64(v))
	return prune.SBBFContains(b[n:n+int(h.NumBytes)], prune.XXH64(le[:]))
}

// Test_proofRounds drives scans and checks each probe round's exact bytes: the bloom filters
// first; then only the dictionaries of the row groups whose bloom filter said "maybe", where a
// dictionary that lacks the value (a bloom filter's false positive) rules its row group out;
// and, on a file whose dictionaries are the cheaper proof, the dictionaries alone.
func Test_proofRounds(t *testing.T) {
	file := proofsFile(t, 4)
	f := planFixtureOf(t, file, "", nil, Options{})
	blooms, dicts := proofRanges(t, f)
	// x = 4i+1 is in row group 1 only; pick one within every row group's min/max whose bloom
	// filter in another row group is a false positive, and one that no other row group's
	// bloom filter lets through.
	fp, clean := int64(-1), int64(-1)
	for i := int64(1); i < 255; i++ {
		v := 4*i + 1
		n := 0
		for _, k := range []int{0, 2, 3} {
			if bloomSays(t, file, blooms[k], v) {
				n++
			}
		}
		if n > 0 && fp < 0 {
			fp = v
		}
		if n == 0 && clean < 0 {
			clean = v
		}
	}
	require.True(t, fp >= 0 && clean >= 0, "values found", fp, clean)
	set := func(rs ...httprange.Range) byteSet {
		var s byteSet
		for _, r := range rs {
			s = s.add(r)
		}
		return s
	}
	for _, tc := range []struct {
		name string
		v    int64
	}{
		{name: "no false positive", v: clean},
		{name: "a false positive ruled out by its dictionary", v: fp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The tail holds the footer alone, so the probes come in their own rounds; a 1-byte
			// gap keeps ranges apart as planned; the 4 dictionaries exceed the round trip.
			opts := Options{Where: fmt.Sprintf("x = %d", tc.v), TailSize: footerTail(file), MaxGap: 1, RoundTripBytes: 4096}
			rounds, streams, s := runRounds(t, file, opts)
			var maybe []httprange.Range
			var skippedBy []string
			for k := range blooms {
				if bloomSays(t, file, blooms[k], tc.v) {
					maybe = append(maybe, dicts[k])
				}
				skippedBy = append(skippedBy, s.Report().RowGroups[k].SkippedBy)
			}
			got1, _ := fetchedSet(rounds[1:2])
			got2, _ := fetchedSet(rounds[2:3])
			require.Equal(t, set(blooms...), got1, "first round: the bloom filters")
			require.Equal(t, set(maybe...), got2, "second round: the dictionaries of the row groups their bloom filters kept")
			want := []string{"bloom", "", "bloom", "bloom"}
			if tc.v == fp {
				for k := range want {
					if k != 1 && bloomSays(t, file, blooms[k], tc.v) {
						want[k] = "dictionary"
					}
				}
			}
			require.Equal(t, want, skippedBy)
			var got []int64
			forEachRecord(t, streams, func(rec arrow.RecordBatch) {
				got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
			})
			require.Equal(t, slices.Repeat([]int64{tc.v}, 16), got)
			// Under a round trip's worth of dictionaries both proofs come in one round.
			opts.RoundTripBytes = 1 << 20
			one, _, _ := runRounds(t, file, opts)
			_, after := fetchedSet(rounds)
			_, before := fetchedSet(one)
			t.Logf("x = %d: %d bytes in %d rounds; in one probe round %d bytes in %d rounds", tc.v, after, len(rounds), before, len(one))
		})
	}
	t.Run("dictionaries cheaper: the bloom filters are never fetched", func(t *testing.T) {
		b := testcorpus.Read(t, bloomFile)
		rounds, streams, _ := runRounds(t, b, Options{Where: "code = 50", TailSize: footerTail(b), MaxGap: 1})
		got, _ := fetchedSet(rounds)
		for _, bl := range []httprange.Range{{Off: 166, Len: 47}, {Off: 213, Len: 47}} {
			require.True(t, !overlaps(got, bl), "bloom filter fetched", bl)
		}
		_, want, err := drive(t, b, Options{Where: "code = 50", NoPrune: true})
		require.NoError(t, err)
		_, n, err := drive(t, b, Options{Where: "code = 50"})
		require.NoError(t, err)
		require.Equal(t, want, n)
		require.True(t, len(streams) > 0)
	})
	t.Run("a dictionary that does not decode: its bloom filter in a second round", func(t *testing.T) {
		b := bytes.Clone(testcorpus.Read(t, bloomFile))
		b[4] = 0xff // row group 0's dictionary page header (at 4, 23 bytes) no longer parses
		// A code within both row groups' min/max (10..90, 30..70) that row group 0's bloom
		// filter rules out.
		v := int32(-1)
		for c := int32(30); c <= 70 && v < 0; c++ {
			var le [4]byte
			binary.LittleEndian.PutUint32(le[:], uint32(c))
			h, n, err := format.DecodeBloomFilterHeader(b[166:213])
			require.NoError(t, err)
			if !prune.SBBFContains(b[166+n:166+n+int(h.NumBytes)], prune.XXH64(le[:])) {
				v = c
			}
		}
		require.True(t, v >= 0)
		rounds, _, s := runRounds(t, b, Options{Where: fmt.Sprintf("code = %d", v), TailSize: footerTail(b), MaxGap: 1})
		require.Equal(t, "bloom", s.Report().RowGroups[0].SkippedBy)
		var i int
		for i = range rounds {
			if slices.Contains(rounds[i], r{4, 23}) {
				break
			}
		}
		require.Equal(t, []r{{166, 47}}, rounds[i+1], "the bloom filter after the dictionary")
	})
}

// footerTail is a tail size that holds the footer and nothing before it, so that a scan
// fetches every other byte in the rounds that plan it.
func footerTail(file []byte) int64 {
	return 8 + int64(binary.LittleEndian.Uint32(file[len(file)-8:]))
}

// overlaps reports whether any byte of r is in s.
func overlaps(s byteSet, r httprange.Range) bool {
	for _, x := range s {
		if x.Off < r.End() && r.Off < x.End() {
			return true
		}
	}
	return false
}

// Test_pointLookupProofs: user_id = U on the events table's small-rg layout (6 row groups of
// 64K rows, no page index, a bloom filter and a dictionary on every user_id chunk). Each
// row group's bloom filter (32 KiB) is cheaper than its dictionary (~130-190 KiB, more than
// half the chunk, so not worth fetching as a proof): the row groups ruled out are ruled out by
// bloom filters, no dictionary page of theirs is fetched, and the rows equal a full scan's.
func Test_pointLookupProofs(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, events.Generate(&buf, events.Config{Rows: 6 << 16, Layout: events.SmallRG}))
	file := buf.Bytes()
	where := fmt.Sprintf("user_id = %d", int64Column(t, file, "user_id")[3<<16+1000])
	rounds, streams, s := runRounds(t, file, Options{Where: where})
	meta := s.meta
	got, total := fetchedSet(rounds)
	var blooms, skipped int
	for rg := range meta.RowGroups {
		cm := meta.RowGroups[rg].Columns[events.ColUserID].MetaData
		line := s.Report().RowGroups[rg]
		dict := httprange.Range{Off: format.ChunkStart(cm), Len: cm.DataPageOffset - format.ChunkStart(cm)}
		bloom := httprange.Range{Off: *cm.BloomFilterOffset, Len: int64(*cm.BloomFilterLength)}
		require.True(t, bloom.Len < dict.Len, "bloom filter cheaper, row group", rg)
		if slices.Equal(got.add(bloom), got) {
			blooms++
		}
		if line.SkippedBy != "" {
			require.Equal(t, "bloom", line.SkippedBy, "row group", rg)
			require.True(t, !overlaps(got, dict), "dictionary of a ruled-out row group fetched", rg)
			skipped++
		}
	}
	require.Equal(t, len(meta.RowGroups), blooms)
	require.True(t, skipped > 0 && skipped < len(meta.RowGroups), "row groups ruled out", skipped)
	t.Logf("%s: %d bytes fetched in %d rounds, %d of %d row groups ruled out by bloom filters", where, total, len(rounds), skipped, len(meta.RowGroups))
	full, _, err := drive(t, file, Options{Where: where, NoPrune: true})
	require.NoError(t, err)
	want := rowStrings(t, full)
	require.Equal(t, want, rowStrings(t, streams))
	require.True(t, len(want) > 0)
}

// rowStrings renders every row of the streams, column by column.
func rowStrings(t *testing.T, streams [][]byte) []string {
	var out []string
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		for i := range int(rec.NumRows()) {
			row := ""
			for _, c := range rec.Columns() {
				row += c.ValueStr(i) + "|"
			}
			out = append(out, row)
		}
	})
	return out
}
