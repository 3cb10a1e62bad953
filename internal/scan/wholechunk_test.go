package scan

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/events"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
)

// byteSet is a set of file bytes as sorted, disjoint ranges.
type byteSet []httprange.Range

func (s byteSet) add(r httprange.Range) byteSet {
	if r.Len <= 0 {
		return s
	}
	out := append(slices.Clone(s), r)
	slices.SortFunc(out, func(a, b httprange.Range) int { return int(a.Off - b.Off) })
	merged := out[:1]
	for _, x := range out[1:] {
		last := &merged[len(merged)-1]
		if x.Off <= last.End() {
			last.Len = max(last.End(), x.End()) - last.Off
			continue
		}
		merged = append(merged, x)
	}
	return merged
}

// fetchedSet is the set of bytes the rounds fetched, and how many they fetched in all (more
// than the set's size when a byte was fetched twice).
func fetchedSet(rounds [][]r) (byteSet, int64) {
	var set byteSet
	var total int64
	for _, round := range rounds {
		for _, x := range round {
			set = set.add(httprange.Range{Off: x[0], Len: x[1]})
			total += x[1]
		}
	}
	return set, total
}

// Test_pointLookupWholeChunks: without an offset index, a point lookup on a
// bloom-filtered column with all columns projected fetches, besides the tail, exactly the
// bloom filters, the user_id chunks of the row groups the bloom filters keep and the other
// chunks of the row group holding the match: each surviving chunk once, no byte twice and no
// byte of another chunk (64K-row groups, no page index: the events small-rg layout).
func Test_pointLookupWholeChunks(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, events.Generate(&buf, events.Config{Rows: 4 << 16, Layout: events.SmallRG}))
	file := buf.Bytes()
	// The user of row 1000 of row group 2 (read with the engine, no pruning).
	users, tenants := int64Column(t, file, "user_id"), int64Column(t, file, "tenant_id")
	at := 2<<16 + 1000
	for _, tc := range []struct {
		name, col string
		vals      []int64
	}{
		{name: "user_id: bloom filters decide", col: "user_id", vals: users},
		// tenant_id's chunk is small and lies between event_time's and user_id's: the second
		// round must not fetch it again to bridge the gap between its neighbours.
		{name: "tenant_id: a small predicate chunk between two others", col: "tenant_id", vals: tenants},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lookupWholeChunks(t, file, tc.col, tc.vals, tc.vals[at])
		})
	}
}

// int64Column reads the INT64 column col of file with the engine, without pruning.
func int64Column(t *testing.T, file []byte, col string) []int64 {
	t.Helper()
	var out []int64
	streams, _, err := drive(t, file, Options{Columns: []string{col}, NoPrune: true})
	require.NoError(t, err)
	forEachRecord(t, streams, func(rec arrow.RecordBatch) {
		out = append(out, rec.Column(0).(*array.Int64).Int64Values()...)
	})
	return out
}

// lookupWholeChunks checks the point lookup col = v over file, whose col values are vals.
func lookupWholeChunks(t *testing.T, file []byte, col string, vals []int64, v int64) {
	rounds, _, s := runRounds(t, file, Options{Where: fmt.Sprintf("%s = %d", col, v)})
	meta := s.meta
	require.Equal(t, 4, len(meta.RowGroups))
	leaf := -1
	for i, l := range s.schema.Leaves {
		if l.Name == col {
			leaf = i
		}
	}
	rep := s.Report()
	chunk := func(rg, leaf int) httprange.Range {
		cm := meta.RowGroups[rg].Columns[leaf].MetaData
		return httprange.Range{Off: format.ChunkStart(cm), Len: cm.TotalCompressedSize}
	}
	// Expected: the tail, every bloom filter of the column (its header and bitset), its chunks
	// in the row groups the statistics and bloom filters keep, and every other chunk of the
	// row groups holding matches.
	var want byteSet
	size := int64(len(file))
	want = want.add(httprange.Range{Off: size - defaultTailSize, Len: defaultTailSize})
	var kept, matched []int
	for rg := range meta.RowGroups {
		for _, cc := range meta.RowGroups[rg].Columns {
			require.True(t, cc.OffsetIndexOffset == nil, "no offset index")
		}
		line := rep.RowGroups[rg]
		cm := meta.RowGroups[rg].Columns[leaf].MetaData
		if cm.BloomFilterOffset != nil && line.SkippedBy != "statistics" {
			h, n, err := format.DecodeBloomFilterHeader(file[*cm.BloomFilterOffset:])
			require.NoError(t, err)
			want = want.add(httprange.Range{Off: *cm.BloomFilterOffset, Len: int64(n) + int64(h.NumBytes)})
		}
		if line.SkippedBy == "bloom" || line.SkippedBy == "statistics" {
			continue
		}
		kept = append(kept, rg)
		want = want.add(chunk(rg, leaf))
		if line.RowsMatched > 0 {
			matched = append(matched, rg)
			for l := range meta.RowGroups[rg].Columns {
				want = want.add(chunk(rg, l))
			}
		}
	}
	require.True(t, slices.Contains(matched, 2), "the value's row group", matched)
	require.True(t, len(kept) < 4, "row groups skipped", kept)
	got, total := fetchedSet(rounds)
	require.Equal(t, want, got)
	require.Equal(t, httprange.Total(got), total, "no byte fetched twice")
	var rows int64
	for _, x := range vals {
		if x == v {
			rows++
		}
	}
	require.Equal(t, rows, rep.RowsReturned)
}
