package prefetch

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/require"
)

// fake is a Source over data that logs each Fetch call's ranges; a range waits for gate when
// set (ignoring ctx when deaf), and a range holding an offset of fail is that error.
type fake struct {
	data []byte
	gate chan struct{}
	deaf bool
	fail map[int64]error

	mu    sync.Mutex
	calls [][]httprange.Range
}

func (f *fake) Size(context.Context) (int64, error) { return int64(len(f.data)), nil }

func (f *fake) Stats() httpclient.Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return httpclient.Stats{Requests: int64(len(f.calls)), RoundTrips: int64(len(f.calls))}
}

func (f *fake) Fetch(ctx context.Context, rs []httprange.Range, deliver func(int64, []byte) error) error {
	f.mu.Lock()
	f.calls = append(f.calls, slices.Clone(rs))
	f.mu.Unlock()
	for _, r := range rs {
		if f.gate != nil {
			if f.deaf {
				<-f.gate
			} else {
				select {
				case <-f.gate:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		if r.Off < 0 {
			r = rg(int64(len(f.data))+r.Off, -r.Off)
		}
		for k, err := range f.fail {
			if r.Off <= k && k < r.End() {
				return err
			}
		}
		if err := deliver(r.Off, bytes.Clone(f.data[r.Off:r.End()])); err != nil {
			return err
		}
	}
	return nil
}

func (f *fake) log() [][]httprange.Range {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func data(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

type got struct {
	off int64
	b   []byte
}

func fetch(ctx context.Context, s *Source, rs ...httprange.Range) ([]got, error) {
	var out []got
	err := s.Fetch(ctx, rs, func(off int64, b []byte) error {
		out = append(out, got{off, bytes.Clone(b)})
		return nil
	})
	slices.SortFunc(out, func(a, b got) int { return int(a.off - b.off) })
	return out, err
}

func rg(off, n int64) httprange.Range { return httprange.Range{Off: off, Len: n} }

var errGone = errors.New("gone")

func Test_Fetch(t *testing.T) {
	d := data(1000)
	for _, c := range []struct {
		name  string
		ahead []httprange.Range
		fail  map[int64]error
		ask   []httprange.Range
		inner [][]httprange.Range // the wrapped Source's calls after the prefetch's
		err   error
	}{
		{name: "exactly a prefetched range", ahead: []httprange.Range{rg(10, 10), rg(30, 10)}, ask: []httprange.Range{rg(10, 10)}},
		{name: "inside a prefetched range", ahead: []httprange.Range{rg(10, 100)}, ask: []httprange.Range{rg(20, 5), rg(50, 60)}},
		{name: "spanning two prefetched ranges", ahead: []httprange.Range{rg(10, 10), rg(20, 10)}, ask: []httprange.Range{rg(15, 10)}},
		{name: "spanning overlapping ranges", ahead: []httprange.Range{rg(10, 20), rg(15, 30)}, ask: []httprange.Range{rg(12, 30)}},
		{name: "partly outside", ahead: []httprange.Range{rg(10, 10)}, ask: []httprange.Range{rg(15, 10)}, inner: [][]httprange.Range{{rg(15, 10)}}},
		{name: "only the rest goes out", ahead: []httprange.Range{rg(10, 10)}, ask: []httprange.Range{rg(10, 10), rg(500, 8), rg(900, 100)}, inner: [][]httprange.Range{{rg(500, 8), rg(900, 100)}}},
		{name: "a failed prefetch: the engine's request meets the error", ahead: []httprange.Range{rg(10, 10)}, fail: map[int64]error{10: errGone}, ask: []httprange.Range{rg(10, 10)}, inner: [][]httprange.Range{{rg(10, 10)}}, err: errGone},
		{name: "a suffix range goes out", ahead: []httprange.Range{rg(990, 10)}, ask: []httprange.Range{rg(-10, 10)}, inner: [][]httprange.Range{{rg(-10, 10)}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fake{data: d, fail: c.fail}
			s := New(f)
			s.Start(t.Context(), c.ahead)
			<-s.done
			out, err := fetch(t.Context(), s, c.ask...)
			require.ErrorIs(t, err, c.err)
			calls := f.log()
			require.Equal(t, c.ahead, calls[0], "the prefetch is one call")
			require.Equal(t, len(c.inner), len(calls)-1)
			if len(c.inner) > 0 {
				require.Equal(t, c.inner, calls[1:])
			}
			if c.err != nil {
				return
			}
			require.Equal(t, len(c.ask), len(out))
			for _, g := range out {
				i := slices.IndexFunc(c.ask, func(r httprange.Range) bool { return r.Off == g.off || int64(len(d))+r.Off == g.off })
				require.True(t, i >= 0 && bytes.Equal(d[g.off:g.off+c.ask[i].Len], g.b), "bytes at", g.off)
			}
			s.Stop()
		})
	}
}

func Test_Fetch_waitsForThePrefetch(t *testing.T) {
	d := data(1000)
	for _, c := range []struct {
		name  string
		fail  map[int64]error
		err   error
		inner int // the wrapped Source's calls after the prefetch's
	}{
		{name: "delivered"},
		{name: "failed", fail: map[int64]error{20: errGone}, err: errGone, inner: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fake{data: d, gate: make(chan struct{}), fail: c.fail}
			s := New(f)
			defer s.Stop()
			s.Start(t.Context(), []httprange.Range{rg(10, 10), rg(20, 10)})
			res := make(chan error)
			var out []got
			go func() {
				var err error
				out, err = fetch(t.Context(), s, rg(15, 10))
				res <- err
			}()
			time.Sleep(10 * time.Millisecond)
			require.Equal(t, 1, len(f.log()), "the request waits for the prefetch")
			close(f.gate)
			require.ErrorIs(t, <-res, c.err)
			require.Equal(t, 1+c.inner, len(f.log()))
			if c.err == nil {
				require.Equal(t, []got{{15, d[15:25]}}, out)
			}
		})
	}
}

func Test_Fetch_cancelled(t *testing.T) {
	f := &fake{data: data(100), gate: make(chan struct{})}
	s := New(f)
	s.Start(t.Context(), []httprange.Range{rg(10, 10)})
	ctx, cancel := context.WithCancel(t.Context())
	res := make(chan error)
	go func() {
		_, err := fetch(ctx, s, rg(10, 10))
		res <- err
	}()
	time.Sleep(5 * time.Millisecond)
	cancel()
	require.ErrorIs(t, <-res, context.Canceled)
	s.Stop() // cancels the prefetch, whose request is still waiting
	require.Equal(t, 1, len(f.log()))
}

// After Stop the kept bytes are gone and a delivery of the prefetch is discarded.
func Test_Stop(t *testing.T) {
	f := &fake{data: data(100), gate: make(chan struct{}), deaf: true}
	s := New(f)
	s.Start(t.Context(), []httprange.Range{rg(10, 10)})
	stopped := make(chan struct{})
	go func() { s.Stop(); close(stopped) }()
	time.Sleep(5 * time.Millisecond)
	close(f.gate) // the wrapped Source delivers anyway
	<-stopped
	require.Equal(t, int64(0), s.kept.Bytes())
	out, err := fetch(t.Context(), s, rg(10, 10))
	require.NoError(t, err)
	require.Equal(t, []got{{10, data(100)[10:20]}}, out)
	require.Equal(t, [][]httprange.Range{{rg(10, 10)}, {rg(10, 10)}}, f.log())
	require.Equal(t, int64(2), s.Delivered())
	require.Equal(t, int64(2), s.Stats().Requests)
}

// A deliver error stops the Fetch: no delivery after it, and it is returned.
func Test_Fetch_deliverError(t *testing.T) {
	f := &fake{data: data(100)}
	s := New(f)
	s.Start(t.Context(), []httprange.Range{rg(0, 10), rg(10, 10)})
	<-s.done
	n := 0
	err := s.Fetch(t.Context(), []httprange.Range{rg(0, 10), rg(10, 10), rg(50, 5)}, func(int64, []byte) error {
		n++
		return errGone
	})
	require.ErrorIs(t, err, errGone)
	require.Equal(t, 1, n)
}

// Concurrent Fetch calls over a prefetch in flight (go test -race) get the file's bytes.
func Test_Fetch_concurrent(t *testing.T) {
	d := data(1 << 16)
	f := &fake{data: d}
	slow := &slowSource{fake: f}
	s := New(slow)
	var ahead []httprange.Range
	for off := int64(0); off < 1<<16; off += 4096 {
		ahead = append(ahead, rg(off, 3000)) // gaps between the pieces
	}
	s.Start(t.Context(), ahead)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 50 {
				off := r.Int64N(1<<16 - 1)
				rs := []httprange.Range{rg(off, 1+r.Int64N(min(9000, 1<<16-off)))}
				out, err := fetch(t.Context(), s, rs...)
				if err != nil || len(out) != 1 || !bytes.Equal(out[0].b, d[rs[0].Off:rs[0].End()]) {
					t.Errorf("%v: %v", rs, err)
					return
				}
			}
		})
	}
	wg.Wait()
	s.Stop()
}

// slowSource delivers each range after a short random delay, several at once.
type slowSource struct{ *fake }

func (s *slowSource) Fetch(ctx context.Context, rs []httprange.Range, deliver func(int64, []byte) error) error {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var first error
	for _, r := range rs {
		wg.Go(func() {
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			mu.Lock()
			defer mu.Unlock()
			if first == nil {
				first = deliver(r.Off, bytes.Clone(s.data[r.Off:r.End()]))
			}
		})
	}
	wg.Wait()
	return first
}
