package unitpool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// bigRowGroup writes rows rows (id, a value, a tenant string) as one row group with a page
// index, 8 KiB pages.
func bigRowGroup(t testing.TB, rows int) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "tenant", Type: arrow.BinaryTypes.String},
	}, nil)
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithPageIndexEnabled(true), parquet.WithDataPageSize(8<<10),
		parquet.WithMaxRowGroupLength(int64(rows)), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	require.NoError(t, err)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%7 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Float64Builder).Append(float64(i%1000) / 3)
		}
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("tenant-%d", i%13))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	require.NoError(t, w.WriteBuffered(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

type engineFunc func(ctx context.Context, o scan.Options) (scan.Session, error)

func (f engineFunc) Start(ctx context.Context, o scan.Options) (scan.Session, error) {
	return f(ctx, o)
}

var native = engineFunc(func(_ context.Context, o scan.Options) (scan.Session, error) { return scan.New(o) })

// plan runs a PlanUnits session for units of about target bytes and returns its units and
// the bytes it fetched.
func plan(t testing.TB, src httpclient.Source, o scan.Options, target int64) ([]scan.Unit, []Piece) {
	t.Helper()
	o.PlanUnits = target
	s, err := scan.New(o)
	require.NoError(t, err)
	var pieces []Piece
	d := drive.Driver{Sess: s, Src: src, Sized: true, OnFetch: func(off int64, b []byte) {
		pieces = append(pieces, Piece{off, bytes.Clone(b)})
	}}
	st, err := d.Step(context.Background())
	require.NoError(t, err)
	require.Equal(t, scan.Done, st.Kind)
	return scan.Units(s), pieces
}

// single is the scan as one session: its batches' rows, one line per row.
func single(t testing.TB, src httpclient.Source, o scan.Options) string {
	t.Helper()
	s, err := scan.New(o)
	require.NoError(t, err)
	d := drive.Driver{Sess: s, Src: src, Sized: true}
	var out bytes.Buffer
	for {
		st, err := d.Step(context.Background())
		require.NoError(t, err)
		if st.Kind == scan.Done {
			return out.String()
		}
		rowsOf(t, st.IPC, &out)
	}
}

func rowsOf(t testing.TB, b []byte, out *bytes.Buffer) int64 {
	rd, err := ipc.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	defer rd.Release()
	var n int64
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := range int(rec.NumRows()) {
			for j := range int(rec.NumCols()) {
				fmt.Fprintf(out, "%s|", rec.Column(j).ValueStr(i))
			}
			out.WriteByte('\n')
		}
		n += rec.NumRows()
	}
	return n
}

// drain reads every batch of s into lines; err is the scan's error, if any.
func drain(t testing.TB, s *Scan) (string, error) {
	var out bytes.Buffer
	for {
		b, err := s.Next()
		if err == io.EOF {
			return out.String(), nil
		}
		if err != nil {
			return out.String(), err
		}
		rowsOf(t, b, &out)
	}
}

// barrier makes every session's first Next wait until n sessions have reached it: a pool
// that ran fewer than n units at once would never get past it.
func barrier(n int) scan.Engine {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return engineFunc(func(ctx context.Context, o scan.Options) (scan.Session, error) {
		s, err := scan.New(o)
		if err != nil {
			return nil, err
		}
		return &waitFirst{Session: s, wait: func() {
			mu.Lock()
			if arrived++; arrived == n {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-ctx.Done():
			}
		}}, nil
	})
}

type waitFirst struct {
	scan.Session
	wait func()
	once sync.Once
}

func (w *waitFirst) Next() scan.Step {
	w.once.Do(w.wait)
	return w.Session.Next()
}

// One 1M-row row group is cut into units at page starts and decoded on two threads at once;
// the output is the single session's, row for row.
func TestSpreadsOneRowGroup(t *testing.T) {
	file := bigRowGroup(t, 1_000_000)
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	o := scan.Options{FileSize: int64(len(file)), RowIndex: "ri"}
	units, pieces := plan(t, src, o, scan.UnitTarget(int64(len(file)), 2, 1))
	t.Logf("units: %v", units)
	require.True(t, len(units) == 4, "want 4 units", units)
	var at int64
	for _, u := range units {
		require.Equal(t, 0, u.RowGroup)
		require.Equal(t, at, u.Start)
		at = u.End
	}
	require.Equal(t, int64(1_000_000), at)
	s := Start(context.Background(), Config{Engine: barrier(2), Src: src, Opts: o, Units: units, Threads: 2, Pieces: pieces})
	got, err := drain(t, s)
	s.Close()
	require.NoError(t, err)
	require.True(t, got == single(t, src, o), "the units' rows differ from the single session's")
	st := s.Stats()
	require.Equal(t, Stats{Units: 4, Threads: 2, PeakBytes: st.PeakBytes}, st)
}

// blockingSource delivers nothing until ctx ends (a fetch stuck on the network).
type blockingSource struct {
	httpclient.Source
	started chan struct{}
	once    sync.Once
}

func (b *blockingSource) Fetch(ctx context.Context, rs []httprange.Range, deliver func(int64, []byte) error) error {
	b.once.Do(func() { close(b.started) })
	<-ctx.Done()
	return ctx.Err()
}

// settle waits (by yielding, not by time) until the goroutines are back to n.
func settle(n int) int {
	for range 10000 {
		if runtime.NumGoroutine() <= n {
			break
		}
		runtime.Gosched()
	}
	return runtime.NumGoroutine()
}

// Cancelling the scan's context mid-scan ends every unit: Next returns the cancellation and
// Close leaves no goroutine behind.
func TestCancelStopsEveryUnit(t *testing.T) {
	file := bigRowGroup(t, 200_000)
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	o := scan.Options{FileSize: int64(len(file))}
	units, pieces := plan(t, src, o, scan.UnitTarget(int64(len(file)), 3, 1))
	require.True(t, len(units) >= 3, "units", units)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	bs := &blockingSource{Source: src, started: make(chan struct{})}
	s := Start(ctx, Config{Engine: native, Src: bs, Opts: o, Units: units, Threads: 3, Pieces: pieces})
	<-bs.started
	cancel()
	_, err := s.Next()
	require.True(t, errors.Is(err, context.Canceled), err)
	_, err = s.Next()
	require.True(t, errors.Is(err, context.Canceled), err)
	s.Close()
	require.True(t, settle(before) <= before, "goroutines left", runtime.NumGoroutine(), before)
}

// failingSource fails every fetch at or past off.
type failingSource struct {
	httpclient.Source
	off int64
}

var errDisk = errors.New("disk on fire")

func (f failingSource) Fetch(ctx context.Context, rs []httprange.Range, deliver func(int64, []byte) error) error {
	for _, r := range rs {
		if r.End() > f.off {
			return errDisk
		}
	}
	return f.Source.Fetch(ctx, rs, deliver)
}

// A unit's error fails the scan: Next returns it, and no batch after it; the batches before
// it are whole batches of the units before.
func TestUnitErrorFailsScan(t *testing.T) {
	file := bigRowGroup(t, 200_000)
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	o := scan.Options{FileSize: int64(len(file)), BatchRows: 1000}
	units, pieces := plan(t, src, o, scan.UnitTarget(int64(len(file)), 4, 1))
	require.True(t, len(units) >= 4, "units", units)
	before := runtime.NumGoroutine()
	// The last unit's pages lie past the middle of the data.
	s := Start(context.Background(), Config{Engine: native, Src: failingSource{src, int64(len(file)) * 3 / 4}, Opts: o,
		Units: units, Threads: 4, Pieces: pieces})
	got, err := drain(t, s)
	require.True(t, errors.Is(err, errDisk), err)
	_, err = s.Next()
	require.True(t, errors.Is(err, errDisk), err)
	s.Close()
	all := single(t, src, o)
	require.True(t, len(got) < len(all) && all[:len(got)] == got, "the rows before the error are a prefix of the scan's")
	require.True(t, settle(before) <= before, "goroutines left", runtime.NumGoroutine(), before)
}

// Many small units on four threads under a small memory cap: what the units running, the
// batches waiting and the spare buffers hold stays within the cap, but for the unit the
// output waits for.
func TestMemoryCapSharedByUnits(t *testing.T) {
	file := bigRowGroup(t, 300_000)
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	o := scan.Options{FileSize: int64(len(file)), BatchRows: 4096}
	units, pieces := plan(t, src, o, 64<<10)
	require.True(t, len(units) >= 8, "units", units)
	var most int64
	for _, u := range units {
		most = max(most, u.Bytes)
	}
	capBytes := 3 * most
	s := Start(context.Background(), Config{Engine: native, Src: src, Opts: o, Units: units, Threads: 4, Pieces: pieces, MemoryCap: capBytes})
	got, err := drain(t, s)
	s.Close()
	require.NoError(t, err)
	require.True(t, got == single(t, src, o), "rows differ")
	st := s.Stats()
	t.Logf("%d units, peak %d B, cap %d B, largest unit %d B", len(units), st.PeakBytes, capBytes, most)
	// The head may run over the cap by itself and one batch of its own.
	require.True(t, st.PeakBytes <= capBytes+most+(1<<20), "peak over the cap", st.PeakBytes, capBytes)
}

// Cut at batch starts, a row group's units return the single session's batches: the
// concatenated Arrow IPC streams are equal byte for byte, not only their rows.
func TestUnitsReturnTheSessionsBatches(t *testing.T) {
	file := bigRowGroup(t, 300_000)
	src := httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file)))
	o := scan.Options{FileSize: int64(len(file)), BatchRows: 10_000}
	units, pieces := plan(t, src, o, int64(len(file))/5)
	require.True(t, len(units) >= 4, "units", units)
	for _, u := range units[1:] {
		require.Equal(t, int64(0), u.Start%10_000, "a unit starts inside a batch", units)
	}
	var want bytes.Buffer
	s1, err := scan.New(o)
	require.NoError(t, err)
	d := drive.Driver{Sess: s1, Src: src, Sized: true}
	for {
		st, err := d.Step(context.Background())
		require.NoError(t, err)
		if st.Kind == scan.Done {
			break
		}
		want.Write(st.IPC)
	}
	s := Start(context.Background(), Config{Engine: native, Src: src, Opts: o, Units: units, Threads: 3, Pieces: pieces})
	defer s.Close()
	var got bytes.Buffer
	for {
		b, err := s.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got.Write(b)
	}
	require.True(t, bytes.Equal(got.Bytes(), want.Bytes()), "the units' IPC differs from the session's", got.Len(), want.Len())
}
