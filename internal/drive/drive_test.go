package drive

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
	"github.com/pqscan/pqscan/internal/scan"
)

// fakeSession replays scripted steps and records what the driver did.
type fakeSession struct {
	steps  []scan.Step
	at     int
	pushed []scan.Range
	size   int64
	closed int
	calls  int
}

// errLooped ends a scripted session that the driver kept calling: without the stall guard a
// stuck engine would otherwise hang the test instead of failing it.
var errLooped = errors.New("fake: Next called 1000 times")

func (f *fakeSession) Next() scan.Step {
	if f.calls++; f.calls > 1000 {
		return scan.Step{Kind: scan.Error, Err: errLooped}
	}
	if f.at >= len(f.steps) {
		return f.steps[len(f.steps)-1] // the last step repeats, as a stuck engine's would
	}
	f.at++
	return f.steps[f.at-1]
}

func (f *fakeSession) Push(off int64, b []byte) error {
	f.pushed = append(f.pushed, scan.Range{Off: off, Len: int64(len(b))})
	return nil
}
func (f *fakeSession) SetFileSize(n int64) error { f.size = n; return nil }
func (f *fakeSession) Report() scan.Report       { return scan.Report{RowsReturned: int64(f.at)} }
func (f *fakeSession) Close() error              { f.closed++; return nil }

func need(rs ...scan.Range) scan.Step { return scan.Step{Kind: scan.NeedRanges, Ranges: rs} }

var file = bytes.Repeat([]byte("0123456789"), 100)

func src() httpclient.Source { return httpclient.NewReaderAt(bytes.NewReader(file), int64(len(file))) }

// Test_stallGuard: an engine that asks again for exactly the ranges it was just given, with
// nothing in between, is stopped with ErrStalled; the same ranges after a batch are progress.
func Test_stallGuard(t *testing.T) {
	r := scan.Range{Off: 10, Len: 20}
	tests := []struct {
		name    string
		steps   []scan.Step
		wantErr error
		batches int
	}{
		{name: "same ranges twice", steps: []scan.Step{need(r), need(r)}, wantErr: ErrStalled},
		{name: "stuck forever", steps: []scan.Step{need(r)}, wantErr: ErrStalled},
		{name: "same ranges after a batch", steps: []scan.Step{need(r), {Kind: scan.Batch}, need(r), {Kind: scan.Batch}, {Kind: scan.Done}}, batches: 2},
		{name: "growing ranges", steps: []scan.Step{need(r), need(r, scan.Range{Off: 40, Len: 1}), {Kind: scan.Done}}},
		{name: "metadata resets", steps: []scan.Step{need(r), {Kind: scan.Metadata, Meta: &scan.FileInfo{}}, need(r), {Kind: scan.Done}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &fakeSession{steps: tc.steps}
			batches := 0
			_, err := Run(context.Background(), s, src(), true, func([]byte) error { batches++; return nil })
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.batches, batches)
			require.True(t, s.closed > 0, "the session was not closed")
		})
	}
}

// Test_suffixLearnsSize: a suffix request (an engine started without a size) makes the driver
// learn the size and call SetFileSize before the bytes are pushed, at their real offset.
func Test_suffixLearnsSize(t *testing.T) {
	s := &fakeSession{steps: []scan.Step{need(scan.Range{Off: -100, Len: 100}), {Kind: scan.Done}}}
	_, err := Run(context.Background(), s, src(), false, func([]byte) error { return nil })
	require.NoError(t, err)
	require.Equal(t, int64(len(file)), s.size)
	require.Equal(t, []scan.Range{{Off: int64(len(file)) - 100, Len: 100}}, s.pushed)
}

// Test_errors: an Error step's error comes back as is; one without an error, an unknown kind,
// a failing consumer and a done context are errors too, never a loop.
func Test_errors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		steps   []scan.Step
		onIPC   error
		ctxDone bool
		wantErr error
	}{
		{name: "error step", steps: []scan.Step{{Kind: scan.Error, Err: boom}}, wantErr: boom},
		{name: "error step without error", steps: []scan.Step{{Kind: scan.Error}}, wantErr: ErrProtocol},
		{name: "unknown kind", steps: []scan.Step{{Kind: 99}}, wantErr: ErrProtocol},
		{name: "consumer fails", steps: []scan.Step{{Kind: scan.Batch}}, onIPC: boom, wantErr: boom},
		{name: "context done", steps: []scan.Step{need(scan.Range{Off: 0, Len: 1})}, ctxDone: true, wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if tc.ctxDone {
				cancel()
			}
			defer cancel()
			_, err := Run(ctx, &fakeSession{steps: tc.steps}, src(), true, func([]byte) error { return tc.onIPC })
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

// fakeTable is a fakeSession over a file table.
type fakeTable struct {
	fakeSession
	files map[int][]scan.Range
	sizes map[int]int64
}

func (f *fakeTable) PushFile(file int, off int64, b []byte) error {
	if f.files == nil {
		f.files = map[int][]scan.Range{}
	}
	f.files[file] = append(f.files[file], scan.Range{Off: off, Len: int64(len(b))})
	return nil
}
func (f *fakeTable) SetFileSizeOf(file int, n int64) error {
	if f.sizes == nil {
		f.sizes = map[int]int64{}
	}
	f.sizes[file] = n
	return nil
}

func needData(rs ...scan.FileRange) scan.Step { return scan.Step{Kind: scan.NeedData, Reqs: rs} }

// Test_needData: a table session's requests are served from each file's Source (a suffix
// learns that file's size first); the same requests again without progress stall; a file's
// fetch error names it.
func Test_needData(t *testing.T) {
	small := httpclient.NewReaderAt(bytes.NewReader(file[:100]), 100)
	files := func(i int) (httpclient.Source, string, error) {
		switch i {
		case 0:
			return src(), "big.parquet", nil
		case 1:
			return small, "small.parquet", nil
		}
		return lazy{}, "broken.parquet", nil
	}
	r0, r1 := scan.FileRange{File: 0, Range: scan.Range{Off: 10, Len: 5}}, scan.FileRange{File: 1, Range: scan.Range{Off: -20, Len: 20}}
	ts := &fakeTable{fakeSession: fakeSession{steps: []scan.Step{needData(r0, r1), {Kind: scan.Done}}}}
	d := &Driver{Sess: ts, Sized: true, Files: files}
	st, err := d.Step(context.Background())
	require.NoError(t, err)
	require.Equal(t, scan.Done, st.Kind)
	require.Equal(t, []scan.Range{{Off: 10, Len: 5}}, ts.files[0])
	require.Equal(t, []scan.Range{{Off: 80, Len: 20}}, ts.files[1])
	require.Equal(t, int64(100), ts.sizes[1])

	ts = &fakeTable{fakeSession: fakeSession{steps: []scan.Step{needData(r0), needData(r0)}}}
	_, err = (&Driver{Sess: ts, Sized: true, Files: files}).Step(context.Background())
	require.ErrorIs(t, err, ErrStalled)

	ts = &fakeTable{fakeSession: fakeSession{steps: []scan.Step{needData(scan.FileRange{File: 2, Range: scan.Range{Off: 0, Len: 1}})}}}
	_, err = (&Driver{Sess: ts, Sized: true, Files: files}).Step(context.Background())
	require.ErrorIs(t, err, errBroken)
	require.True(t, strings.Contains(err.Error(), "broken.parquet"), err)

	// A NeedData step from a session that is not a table is a protocol error, not a hang.
	_, err = Run(context.Background(), &fakeSession{steps: []scan.Step{needData(r0)}}, src(), true, func([]byte) error { return nil })
	require.ErrorIs(t, err, ErrProtocol)
}

var errBroken = errors.New("broken source")

// lazy is a Source whose every fetch fails.
type lazy struct{}

func (lazy) Size(context.Context) (int64, error) { return 10, nil }
func (lazy) Fetch(context.Context, []scan.Range, func(int64, []byte) error) error {
	return errBroken
}
func (lazy) Stats() httpclient.Stats { return httpclient.Stats{} }

// Test_progress: OnProgress sees the planned bytes of every round (NeedRanges and NeedData)
// before its fetch and the fetched bytes after each push, in order, for a file and for a
// table session.
func Test_progress(t *testing.T) {
	tests := []struct {
		name string
		sess scan.Session
		want []Progress
	}{
		{name: "file rounds", sess: &fakeSession{steps: []scan.Step{
			need(scan.Range{Off: 0, Len: 10}, scan.Range{Off: 100, Len: 5}), need(scan.Range{Off: 500, Len: 20}), {Kind: scan.Done}}},
			// ReaderAt delivers each range in one piece.
			want: []Progress{{15, 0}, {15, 10}, {15, 15}, {35, 15}, {35, 35}}},
		{name: "table rounds", sess: &fakeTable{fakeSession: fakeSession{steps: []scan.Step{
			needData(scan.FileRange{File: 0, Range: scan.Range{Off: 10, Len: 5}}), {Kind: scan.Done}}}},
			want: []Progress{{5, 0}, {5, 5}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []Progress
			d := &Driver{Sess: tc.sess, Src: src(), Sized: true, OnProgress: func(p Progress) { got = append(got, p) },
				Files: func(int) (httpclient.Source, string, error) { return src(), "f", nil }}
			st, err := d.Step(context.Background())
			require.NoError(t, err)
			require.Equal(t, scan.Done, st.Kind)
			require.Equal(t, tc.want, got)
		})
	}
}

// Test_needObjects: a Delta session's NeedObjects step is answered by OnObjects while the
// checkpoint ranges it carries are fetched, both before the next Next (one round); without
// OnObjects it is a protocol error; an OnObjects error ends the step.
func Test_needObjects(t *testing.T) {
	files := func(i int) (httpclient.Source, string, error) { return src(), "checkpoint.parquet", nil }
	r0 := scan.FileRange{File: 0, Range: scan.Range{Off: 10, Len: 5}}
	objs := scan.Step{Kind: scan.NeedObjects, Reqs: []scan.FileRange{r0}}
	ts := &fakeTable{fakeSession: fakeSession{steps: []scan.Step{objs, {Kind: scan.Done}}}}
	answered := 0
	d := &Driver{Sess: ts, Sized: true, Files: files, OnObjects: func(ctx context.Context, mu sync.Locker) error {
		mu.Lock()
		defer mu.Unlock()
		answered++
		return nil
	}}
	st, err := d.Step(context.Background())
	require.NoError(t, err)
	require.Equal(t, scan.Done, st.Kind)
	require.Equal(t, 1, answered)
	require.Equal(t, 2, ts.calls) // NeedObjects, then Done: the ranges went with the objects
	require.Equal(t, []scan.Range{{Off: 10, Len: 5}}, ts.files[0])

	ts = &fakeTable{fakeSession: fakeSession{steps: []scan.Step{objs}}}
	_, err = (&Driver{Sess: ts, Sized: true, Files: files}).Step(context.Background())
	require.ErrorIs(t, err, ErrProtocol)

	errObj := errors.New("log object")
	ts = &fakeTable{fakeSession: fakeSession{steps: []scan.Step{objs, {Kind: scan.Done}}}}
	_, err = (&Driver{Sess: ts, Sized: true, Files: files, OnObjects: func(context.Context, sync.Locker) error { return errObj }}).Step(context.Background())
	require.ErrorIs(t, err, errObj)
}
