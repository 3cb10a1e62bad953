package drive

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// fourRowGroups is 4 row groups of 1000 rows with a page index: id, k = id mod 1000, s.
func fourRowGroups(t *testing.T) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 4000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Int64Builder).Append(int64(i % 1000))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("row-%05d", i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithPageIndexEnabled(true), parquet.WithDataPageSize(512),
		parquet.WithBatchSize(50), parquet.WithDictionaryDefault(false), parquet.WithMaxRowGroupLength(1000))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// holdingSource delivers every range at once except hold, which it delivers only when
// another Fetch has started (a driver that asks the engine again before the round is in) or,
// so that a driver that waits for the whole round cannot hang the test, after a long wait;
// it logs the order.
type holdingSource struct {
	httpclient.Source
	mu      sync.Mutex
	hold    scan.Range
	fetches int
	started chan struct{} // closed by the second Fetch after the hold began
	holding bool
	log     []string
}

func (h *holdingSource) Fetch(ctx context.Context, rs []scan.Range, deliver func(int64, []byte) error) error {
	h.mu.Lock()
	h.fetches++
	h.log = append(h.log, fmt.Sprintf("fetch %v", rs))
	held := h.hold.Len > 0 && slices.Contains(rs, h.hold)
	if h.holding && !held {
		h.holding = false
		close(h.started)
	}
	h.mu.Unlock()
	if !held {
		return h.Source.Fetch(ctx, rs, deliver)
	}
	h.mu.Lock()
	h.holding = true
	h.mu.Unlock()
	rest := slices.DeleteFunc(slices.Clone(rs), func(r scan.Range) bool { return r == h.hold })
	if err := h.Source.Fetch(ctx, rest, deliver); err != nil {
		return err
	}
	select {
	case <-h.started:
	case <-time.After(20 * time.Second): // liveness only: the order is what the test checks
	case <-ctx.Done():
		return ctx.Err()
	}
	h.mu.Lock()
	h.log = append(h.log, fmt.Sprintf("deliver %v", h.hold))
	h.mu.Unlock()
	return h.Source.Fetch(ctx, []scan.Range{h.hold}, deliver)
}

// firstAsArrived records the first AsArrived step of a session (the predicate round).
type firstAsArrived struct {
	scan.Session
	onFirst func(rs []scan.Range)
	seen    bool
	round   []scan.Range
}

func sessRound(f *firstAsArrived) []scan.Range { return f.round }

func (f *firstAsArrived) Next() scan.Step {
	st := f.Session.Next()
	if st.Kind == scan.NeedRanges && st.AsArrived && !f.seen {
		f.seen, f.round = true, slices.Clone(st.Ranges)
		f.onFirst(st.Ranges)
	}
	return st
}

// wholeRounds hides AsArrived: the driver pushes every round whole before calling Next.
type wholeRounds struct{ scan.Session }

func (w wholeRounds) Next() scan.Step {
	st := w.Session.Next()
	st.AsArrived = false
	return st
}

func runIPC(t *testing.T, sess scan.Session, src httpclient.Source) ([]byte, scan.Report) {
	t.Helper()
	var out []byte
	rep, err := Run(context.Background(), sess, src, true, func(b []byte) error { out = append(out, b...); return nil })
	require.NoError(t, err)
	return out, rep
}

// Test_asArrivedAsksBeforeTheRoundIsIn: the Go driver pushes an AsArrived round's ranges as
// they arrive and asks the engine again, so the output pages of the row groups already
// filtered are requested while the last predicate range is still held back; the batches
// are those of whole rounds.
func Test_asArrivedAsksBeforeTheRoundIsIn(t *testing.T) {
	file := fourRowGroups(t)
	opts := scan.Options{FileSize: int64(len(file)), Where: "k >= 250 AND k < 260", RoundTripBytes: 1, MaxGap: 1, TailSize: 1024}
	base := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	s0, err := scan.New(opts)
	require.NoError(t, err)
	want, wrep := runIPC(t, wholeRounds{s0}, base)
	require.Equal(t, int64(40), wrep.RowsReturned)

	h := &holdingSource{Source: base, started: make(chan struct{})}
	s1, err := scan.New(opts)
	require.NoError(t, err)
	sess := &firstAsArrived{Session: s1, onFirst: func(rs []scan.Range) {
		require.True(t, len(rs) >= 2, fmt.Sprintf("the predicate round is %v", rs))
		h.mu.Lock()
		h.hold = rs[len(rs)-1]
		h.mu.Unlock()
	}}
	got, rep := runIPC(t, sess, h)
	require.Equal(t, want, got)
	require.Equal(t, wrep.RowsReturned, rep.RowsReturned)
	require.True(t, rep.RoundTrips <= wrep.RoundTrips, fmt.Sprintf("%d round trips, whole rounds %d", rep.RoundTrips, wrep.RoundTrips))
	round := slices.Index(h.log, fmt.Sprintf("fetch %v", sessRound(sess)))
	at := slices.Index(h.log, fmt.Sprintf("deliver %v", h.hold))
	require.True(t, round >= 0 && at > round, fmt.Sprint(h.log))
	if !slices.ContainsFunc(h.log[round+1:at], func(e string) bool { return strings.HasPrefix(e, "fetch ") }) {
		t.Fatalf("no output request before the last predicate range was delivered: %v", h.log)
	}
}

// releaseSource delivers every range at once except those holding hold, which wait until
// release is closed (or, for liveness only, a long time); it counts the bytes it delivered
// and logs whether each Fetch ended by cancellation.
type releaseSource struct {
	httpclient.Source
	hold      scan.Range
	release   chan struct{}
	mu        sync.Mutex
	bytes     int64
	cancelled int
}

func (r *releaseSource) Fetch(ctx context.Context, rs []scan.Range, deliver func(int64, []byte) error) (err error) {
	defer func() {
		if ctx.Err() != nil {
			r.mu.Lock()
			r.cancelled++
			r.mu.Unlock()
		}
	}()
	count := func(off int64, b []byte) error {
		r.mu.Lock()
		r.bytes += int64(len(b))
		r.mu.Unlock()
		return deliver(off, b)
	}
	for _, x := range rs {
		if x.Off <= r.hold.Off && x.End() >= r.hold.End() {
			select {
			case <-r.release:
			case <-time.After(20 * time.Second):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := r.Source.Fetch(ctx, []scan.Range{x}, count); err != nil {
			return err
		}
	}
	return nil
}

// Test_batchKeepsFlights: a scan without a filter decodes the row groups whose bytes are in
// while the last one's range is still on its way, and the driver keeps that request across
// the Batch steps in between: the first batch comes while the range is held, every byte is
// fetched once (as with whole rounds), and the batches are those of whole rounds. Close
// after a batch cancels what is still in flight.
func Test_batchKeepsFlights(t *testing.T) {
	file := fourRowGroups(t)
	opts := scan.Options{FileSize: int64(len(file)), Columns: []string{"id", "s"}, MaxGap: 1, TailSize: 1024}
	base := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	s0, err := scan.New(opts)
	require.NoError(t, err)
	want, wrep := runIPC(t, wholeRounds{s0}, base)
	require.Equal(t, int64(4000), wrep.RowsReturned)

	src := &releaseSource{Source: base, release: make(chan struct{})}
	s1, err := scan.New(opts)
	require.NoError(t, err)
	sess := &rounds{Session: s1, on: func(rs []scan.Range) {
		if len(rs) > 1 && src.hold.Len == 0 {
			src.hold = rs[len(rs)-1] // the data round's last range: the last row group's
		}
	}}
	d := &Driver{Sess: sess, Src: src, Sized: true}
	var got []byte
	batchesBefore := 0
	for {
		st, err := d.Step(context.Background())
		require.NoError(t, err)
		if st.Kind == scan.Done {
			break
		}
		if st.Kind == scan.Batch {
			select {
			case <-src.release:
			default:
				batchesBefore++
				close(src.release)
			}
			got = append(got, st.IPC...)
		}
	}
	d.Close()
	require.True(t, src.hold.Len > 0, "no data round of several ranges")
	require.Equal(t, 1, batchesBefore)
	require.Equal(t, want, got)
	require.Equal(t, int64(0), int64(src.cancelled))
	rep := s1.Report()
	require.Equal(t, wrep.BytesPushed, rep.BytesPushed)
	require.Equal(t, wrep.Requests, rep.Requests)

	// Stopping after the first batch: Close cancels the held request.
	src2 := &releaseSource{Source: base, release: make(chan struct{})}
	s2, err := scan.New(opts)
	require.NoError(t, err)
	sess2 := &rounds{Session: s2, on: func(rs []scan.Range) {
		if len(rs) > 1 && src2.hold.Len == 0 {
			src2.hold = rs[len(rs)-1]
		}
	}}
	d2 := &Driver{Sess: sess2, Src: src2, Sized: true}
	for {
		st, err := d2.Step(context.Background())
		require.NoError(t, err)
		if st.Kind == scan.Batch {
			break
		}
		require.True(t, st.Kind != scan.Done, "done before a batch")
	}
	d2.Close()
	require.Equal(t, 1, src2.cancelled)
	s2.Close()
}

// rounds calls on with every NeedRanges step's ranges.
type rounds struct {
	scan.Session
	on func(rs []scan.Range)
}

func (r *rounds) Next() scan.Step {
	st := r.Session.Next()
	if st.Kind == scan.NeedRanges {
		r.on(st.Ranges)
	}
	return st
}
