// Package prefetch fetches a file's ranges before a scan's engine asks for them and serves the
// engine's requests from those bytes: a returning scan replays the ranges its options read
// last time (metacache.Plan), so that its dependent rounds (page index, filter pages, output
// pages) cost one round trip. The engine still plans and asks as always; a request the
// prefetched bytes do not hold goes to the wrapped Source. jsbridge/src/http.js prefetch is
// the JavaScript twin.
//
// Non-goals: keeping bytes across scans (Stop drops them), choosing what to prefetch.
package prefetch

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
)

// Source is an httpclient.Source that serves ranges from what Start fetched ahead. It is
// safe for concurrent use: the driver may call Fetch while another Fetch runs (a round taken
// as it arrives). Size and Stats are the wrapped Source's: the prefetch's requests and bytes
// are the scan's.
type Source struct {
	inner     httpclient.Source
	delivered atomic.Int64 // ranges the wrapped Source delivered through this one

	mu      sync.Mutex
	kept    httprange.Cache // prefetched bytes not yet dropped
	ahead   []*span         // prefetched ranges still in flight
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{} // closed when the prefetch's Fetch has returned
}

// span is one prefetched range in flight; settled is closed when it was delivered or the
// prefetch ended without it.
type span struct {
	r       httprange.Range
	settled chan struct{}
}

// New wraps inner (an HTTP source; its deliveries are not handed over, so none of its
// optional interfaces matter to the driver).
func New(inner httpclient.Source) *Source { return &Source{inner: inner} }

// Start fetches ranges through the wrapped Source in the background, in one Fetch call (which
// runs them concurrently), keeping each delivered range for Fetch. Ranges must lie inside
// the file; empty and suffix ranges are ignored. A failure ends the prefetch and is dropped:
// a request of the engine for what it did not deliver goes to the wrapped Source and meets
// the failure there (a replaced file is ErrFileChanged). Start is called at most once.
func (s *Source) Start(ctx context.Context, ranges []httprange.Range) {
	rs := slices.DeleteFunc(slices.Clone(ranges), func(r httprange.Range) bool { return r.Off < 0 || r.Len <= 0 })
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if s.stopped || s.done != nil || len(rs) == 0 {
		s.mu.Unlock()
		cancel()
		return
	}
	s.cancel, s.done = cancel, make(chan struct{})
	spans := make([]*span, len(rs))
	for i, r := range rs {
		spans[i] = &span{r: r, settled: make(chan struct{})}
	}
	s.ahead = append(s.ahead, spans...)
	s.mu.Unlock()
	go func() {
		defer close(s.done)
		defer cancel()
		s.inner.Fetch(ctx, rs, func(off int64, b []byte) error {
			s.delivered.Add(1)
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.stopped {
				return context.Canceled
			}
			s.kept.PushOwned(off, slices.Clone(b)) // b is valid only during the call
			if i := slices.IndexFunc(s.ahead, func(a *span) bool { return a.r.Off == off }); i >= 0 {
				close(s.ahead[i].settled)
				s.ahead = slices.Delete(s.ahead, i, i+1)
			}
			return nil
		})
		s.mu.Lock()
		for _, a := range s.ahead {
			close(a.settled)
		}
		s.ahead = nil
		s.mu.Unlock()
	}()
}

// Stop drops the kept bytes and ends the prefetch: what it still delivers is discarded. It
// waits for the prefetch's Fetch to return (its requests are cancelled). A nil Source does
// nothing.
func (s *Source) Stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.stopped = true
	s.kept = httprange.Cache{}
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Delivered is the number of ranges the wrapped Source delivered through this one (to the
// prefetch or to Fetch): each is a response the pinned HTTP source checked against its
// validators, which a stored tail's confirmation needs (tailcache.Link.Confirm).
func (s *Source) Delivered() int64 { return s.delivered.Load() }

// Size is the wrapped Source's.
func (s *Source) Size(ctx context.Context) (int64, error) { return s.inner.Size(ctx) }

// Stats is the wrapped Source's: the prefetch's requests and bytes count as the scan's.
func (s *Source) Stats() httpclient.Stats { return s.inner.Stats() }

// Fetch implements httpclient.Source. A range the kept bytes hold (in one piece or joined
// from several) is served from them; one that the kept bytes and the prefetches in flight
// hold together is served once those arrive; the others are fetched through the wrapped
// Source, at once. Deliveries are serialized, and none follows the first error.
func (s *Source) Fetch(ctx context.Context, ranges []httprange.Range, deliver func(off int64, b []byte) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu     sync.Mutex
		failed bool
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if !failed {
			failed = true
			cancel(err)
		}
	}
	dl := func(off int64, b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		if failed {
			return context.Cause(ctx)
		}
		if err := deliver(off, b); err != nil {
			failed = true
			cancel(err)
			return err
		}
		return nil
	}
	count := func(off int64, b []byte) error {
		s.delivered.Add(1)
		return dl(off, b)
	}

	type served struct {
		off int64
		b   []byte
	}
	var now []served
	var wait []httprange.Range
	var rest []httprange.Range
	s.mu.Lock()
	for _, r := range ranges {
		if r.Off < 0 || r.Len <= 0 {
			rest = append(rest, r)
		} else if b, ok := s.kept.Get(r); ok {
			now = append(now, served{r.Off, b})
		} else if s.coming(r) != nil {
			wait = append(wait, r)
		} else {
			rest = append(rest, r)
		}
	}
	s.mu.Unlock()

	var wg sync.WaitGroup
	if len(rest) > 0 {
		wg.Go(func() {
			if err := s.inner.Fetch(ctx, rest, count); err != nil {
				fail(err)
			}
		})
	}
	for _, p := range now {
		if dl(p.off, p.b) != nil {
			break
		}
	}
	var late []httprange.Range
	for _, r := range wait {
		b, ok := s.await(ctx, r)
		if ctx.Err() != nil {
			break
		}
		if !ok {
			late = append(late, r) // the prefetch ended without it
			continue
		}
		if dl(r.Off, b) != nil {
			break
		}
	}
	if len(late) > 0 && ctx.Err() == nil {
		if err := s.inner.Fetch(ctx, late, count); err != nil {
			fail(err)
		}
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// coming returns the prefetches in flight that r waits for: those it overlaps, when they and
// the kept bytes together hold all of r; nil otherwise. s.mu is held.
func (s *Source) coming(r httprange.Range) []*span {
	var over []*span
	var cover []httprange.Range
	for _, a := range s.ahead {
		if a.r.Off < r.End() && r.Off < a.r.End() {
			over = append(over, a)
			cover = append(cover, a.r)
		}
	}
	if len(over) == 0 || len(httprange.Subtract(s.kept.Missing(r), cover)) > 0 {
		return nil
	}
	return over
}

// await waits until the prefetches r waits for have settled and returns r's bytes, or false
// when they are not all kept (a prefetch failed, or Stop).
func (s *Source) await(ctx context.Context, r httprange.Range) ([]byte, bool) {
	for {
		s.mu.Lock()
		if b, ok := s.kept.Get(r); ok {
			s.mu.Unlock()
			return b, true
		}
		over := s.coming(r)
		s.mu.Unlock()
		if over == nil {
			return nil, false
		}
		for _, a := range over {
			select {
			case <-a.settled:
			case <-ctx.Done():
				return nil, false
			}
		}
	}
}
