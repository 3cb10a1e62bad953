package scan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
)

// event is one thing a pipelining host did: asked for a range (the engine's step named it
// and it was not in flight yet) or pushed one.
type event struct {
	ask bool
	r   httprange.Range
}

// pipeDrive is a host that pushes every range as it "arrives" and calls Next after each
// push, before the round is complete: the ranges in flight are a queue, each NeedRanges adds
// the parts not in flight yet, and pick chooses which one arrives next (split says whether it
// arrives in two pieces, each followed by a Next). It fails the test if the engine asks for
// bytes already pushed since the last batch, or never finishes. It returns the ids emitted
// (column id), the events and the report. With pick nil it pushes each round whole.
func pipeDrive(t *testing.T, file []byte, opts Options, pick func(n int) int, split func() bool) ([]int64, []event, Report) {
	t.Helper()
	opts.FileSize = int64(len(file))
	s, err := New(opts)
	require.NoError(t, err)
	var flight, pushed []httprange.Range
	var evs []event
	var ids []int64
	for range 100_000 {
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			fresh := httprange.Subtract(st.Ranges, flight)
			if again := httprange.Subtract(fresh, pushed); !slices.Equal(again, fresh) {
				t.Fatalf("the engine asked again for pushed bytes: %v (pushed %v)", fresh, pushed)
			}
			for _, r := range fresh {
				evs = append(evs, event{ask: true, r: r})
			}
			flight = append(flight, fresh...)
			if len(flight) == 0 {
				t.Fatalf("NeedRanges %v with nothing new and nothing in flight", st.Ranges)
			}
			if pick == nil { // whole rounds
				for _, r := range flight {
					require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
				}
				flight = flight[:0]
				continue
			}
			i := pick(len(flight))
			r := flight[i]
			if split() && r.Len > 1 {
				// Half arrives now; the rest stays in flight.
				h := httprange.Range{Off: r.Off, Len: r.Len / 2}
				flight[i] = httprange.Range{Off: h.End(), Len: r.Len - h.Len}
				r = h
			} else {
				flight = slices.Delete(flight, i, i+1)
			}
			require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
			pushed = append(pushed, r)
			evs = append(evs, event{r: r})
		case Batch:
			pushed = pushed[:0]
			forEachRecord(t, [][]byte{st.IPC}, func(rec arrow.RecordBatch) {
				c := rec.Column(0).(*array.Int64)
				for k := range c.Len() {
					ids = append(ids, c.Value(k))
				}
			})
		case Done:
			if len(flight) > 0 {
				t.Fatalf("done with %v still in flight", flight)
			}
			return ids, evs, s.Report()
		case Error:
			t.Fatalf("scan failed: %v", st.Err)
		}
	}
	t.Fatal("the scan did not finish")
	return nil, nil, Report{}
}

// wholeIDs is the host that pushes each round whole before calling Next.
func wholeIDs(t *testing.T, file []byte, opts Options) ([]int64, Report) {
	t.Helper()
	ids, _, rep := pipeDrive(t, file, opts, nil, nil)
	return ids, rep
}

// chunkOf is the byte range of a column chunk (the files here have no dictionary pages).
func chunkOf(meta *format.FileMetaData, rg, leaf int) httprange.Range {
	cm := meta.RowGroups[rg].Columns[leaf].MetaData
	return httprange.Range{Off: cm.DataPageOffset, Len: cm.TotalCompressedSize}
}

// within says whether r lies inside c.
func within(r, c httprange.Range) bool { return r.Off >= c.Off && r.End() <= c.End() }

// Test_pipelineAsksOutputBeforeLastPredicateRange: with a host that delivers the predicate
// round range by range in order, the engine asks for the output pages of the first row group
// before the last row group's predicate pages are pushed (the filter overlaps the I/O
// instead of sitting between two rounds), and returns the same rows with the same round
// trips as a host that pushes whole rounds.
func Test_pipelineAsksOutputBeforeLastPredicateRange(t *testing.T) {
	file := tightenFile(t)
	meta, err := format.DecodeFileMetaData(file[footerStart(file) : len(file)-8])
	require.NoError(t, err)
	// A small tail, so that no row group's pages come with it; no coalescing across columns.
	opts := Options{Where: "k >= 1000 AND k < 1100", RoundTripBytes: 1, MaxGap: 1, TailSize: 1024}
	want, wrep := wholeIDs(t, file, opts)
	require.Equal(t, 100, len(want)) // 25 rows in each of the 4 row groups
	ids, evs, rep := pipeDrive(t, file, opts, func(int) int { return 0 }, func() bool { return false })
	require.Equal(t, want, ids)
	require.True(t, rep.RoundTrips <= wrep.RoundTrips, fmt.Sprintf("%d round trips, whole rounds %d", rep.RoundTrips, wrep.RoundTrips))
	require.Equal(t, wrep.RowsMatched, rep.RowsMatched)
	require.True(t, strings.HasPrefix(rep.LateMaterialization, "on"), "late materialization must be on for this test: "+rep.LateMaterialization)

	chunk := func(rg, leaf int) httprange.Range { return chunkOf(meta, rg, leaf) }
	firstOut := chunk(0, 0) // column id of the first row group
	askOut, lastPush, predPushes := -1, -1, 0
	for i, e := range evs {
		if e.ask && askOut < 0 && within(e.r, firstOut) {
			askOut = i
		}
		for rg := range meta.RowGroups {
			if !e.ask && within(e.r, chunk(rg, 1)) { // column k
				lastPush = i
				predPushes++
			}
		}
	}
	require.Equal(t, len(meta.RowGroups), predPushes) // one range of k's pages per row group
	require.True(t, askOut >= 0 && lastPush >= 0, "events %v", evs)
	if askOut > lastPush {
		t.Fatalf("row group 0's output pages were asked at event %d, after the last predicate page (event %d): %v", askOut, lastPush, evs)
	}
}

// Test_pipelineOutOfOrder: without an offset or a limit a row group is filtered as soon as
// its bytes are in, whatever came before it: with the predicate round delivered last range
// first, the last row group's output pages are asked before the first row group's predicate
// pages are pushed (with a limit, row groups are filtered in order: the same rows either way).
func Test_pipelineOutOfOrder(t *testing.T) {
	file := tightenFile(t)
	meta, err := format.DecodeFileMetaData(file[footerStart(file) : len(file)-8])
	require.NoError(t, err)
	opts := Options{Where: "k >= 1000 AND k < 1100", RoundTripBytes: 1, MaxGap: 1, TailSize: 1024}
	want, _ := wholeIDs(t, file, opts)
	ids, evs, _ := pipeDrive(t, file, opts, func(n int) int { return n - 1 }, func() bool { return false })
	require.Equal(t, want, ids)
	chunk := func(rg, leaf int) httprange.Range { return chunkOf(meta, rg, leaf) }
	last := len(meta.RowGroups) - 1
	askLast := slices.IndexFunc(evs, func(e event) bool { return e.ask && within(e.r, chunk(last, 0)) })
	pushFirst := slices.IndexFunc(evs, func(e event) bool { return !e.ask && within(e.r, chunk(0, 1)) })
	require.True(t, askLast >= 0 && pushFirst >= 0, fmt.Sprint(evs))
	if askLast > pushFirst {
		t.Fatalf("row group %d's output pages were asked at event %d, after row group 0's predicate pages were pushed (event %d): %v", last, askLast, pushFirst, evs)
	}
}

// Test_pipelineExact: any arrival order and granularity gives the rows of a host that pushes
// whole rounds, with offsets, limits, counts and no late materialization too.
func Test_pipelineExact(t *testing.T) {
	file := tightenFile(t)
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"late materialization", Options{Where: "k >= 1000 AND k < 1100", RoundTripBytes: 1}},
		{"no late materialization", Options{Where: "k >= 1000 AND k < 1100", RoundTripBytes: 1 << 30}},
		{"offset and limit across row groups", Options{Where: "k < 3000", RoundTripBytes: 1, Offset: 700, Limit: 900}},
		{"limit inside the first row group", Options{Where: "s >= 'row-00100'", RoundTripBytes: 1, Limit: 30}},
		{"two predicate columns", Options{Where: "k < 2000 AND (id < 300 OR id >= 2500)", RoundTripBytes: 1}},
		{"small windows", Options{Where: "k >= 100 AND k < 3900", RoundTripBytes: 1, MemoryCap: 64 << 10}},
		{"count", Options{Where: "k < 1234", Count: true}},
		{"no filter", Options{RoundTripBytes: 1}},
		{"no filter, offset and limit across row groups", Options{Offset: 700, Limit: 900}},
		{"no filter, small windows", Options{MemoryCap: 64 << 10}},
		{"no filter, one column", Options{Columns: []string{"id"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wrep := wholeIDs(t, file, tc.opts)
			for seed := range uint64(12) {
				rng := rand.New(rand.NewPCG(seed, 14))
				ids, _, rep := pipeDrive(t, file, tc.opts, rng.IntN, func() bool { return rng.IntN(3) == 0 })
				require.Equal(t, want, ids, fmt.Sprintf("seed %d", seed))
				require.Equal(t, wrep.RowsMatched, rep.RowsMatched)
				require.Equal(t, wrep.BytesRequested, rep.BytesRequested)
				require.True(t, rep.RoundTrips <= wrep.RoundTrips, fmt.Sprintf("%d round trips, whole rounds %d", rep.RoundTrips, wrep.RoundTrips))
			}
		})
	}
}

// Test_pipelineNoFilterDecodesWhileArriving: a scan without a filter whose window holds every
// row group emits the first row group's rows before the last row group's bytes are pushed
// (the window's complete prefix is decoded while the rest arrive), keeps asking for nothing
// it was already given, and returns the rows, requests and bytes of whole rounds.
func Test_pipelineNoFilterDecodesWhileArriving(t *testing.T) {
	file := tightenFile(t)
	meta, err := format.DecodeFileMetaData(file[footerStart(file) : len(file)-8])
	require.NoError(t, err)
	opts := Options{Columns: []string{"id"}, MaxGap: 1, TailSize: 1024}
	want, wrep := wholeIDs(t, file, opts)
	require.Equal(t, 4000, len(want))
	opts.FileSize = int64(len(file))
	s, err := New(opts)
	require.NoError(t, err)
	var flight []httprange.Range
	var ids []int64
	lastChunk := chunkOf(meta, len(meta.RowGroups)-1, 0)
	firstBatchBeforeLast := false
	lastPushed := false
	for range 10_000 {
		st := s.Next()
		switch st.Kind {
		case NeedRanges:
			flight = append(flight, httprange.Subtract(st.Ranges, flight)...)
			require.True(t, len(flight) > 0, "NeedRanges with nothing in flight")
			r := flight[0] // in file order, one at a time
			flight = flight[1:]
			require.NoError(t, s.Push(r.Off, file[r.Off:r.End()]))
			if within(lastChunk, r) || within(r, lastChunk) {
				lastPushed = true
			}
		case Batch:
			if len(ids) == 0 && !lastPushed {
				firstBatchBeforeLast = true
			}
			forEachRecord(t, [][]byte{st.IPC}, func(rec arrow.RecordBatch) {
				c := rec.Column(0).(*array.Int64)
				for k := range c.Len() {
					ids = append(ids, c.Value(k))
				}
			})
		case Done:
			require.Equal(t, want, ids)
			rep := s.Report()
			require.Equal(t, wrep.Requests, rep.Requests)
			require.Equal(t, wrep.BytesRequested, rep.BytesRequested)
			require.Equal(t, wrep.RoundTrips, rep.RoundTrips)
			require.True(t, firstBatchBeforeLast, "the first batch came after the last row group's bytes")
			require.Equal(t, 0, len(flight))
			return
		case Error:
			t.Fatalf("scan failed: %v", st.Err)
		}
	}
	t.Fatal("the scan did not finish")
}
