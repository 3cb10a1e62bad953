// Package testclock stands in for the timers of code under test: a Recorder is passed where
// the code would sleep (httpclient.Options.Sleep, the faultserver's wait) and records the
// durations asked for instead of waiting, so that tests assert on the delays themselves rather
// than on elapsed wall-clock time.
package testclock

import (
	"context"
	"sync"
	"time"
)

// Recorder records waits; it is safe for concurrent use. The zero value is ready.
type Recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d and returns at once with ctx.Err(): the signature of httpclient.Options.Sleep.
func (r *Recorder) Sleep(ctx context.Context, d time.Duration) error {
	r.add(d)
	return ctx.Err()
}

// Wait records d and reports that the wait ran to its end (true), unless ctx is already done.
func (r *Recorder) Wait(ctx context.Context, d time.Duration) bool {
	r.add(d)
	return ctx.Err() == nil
}

func (r *Recorder) add(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
}

// Waits returns a copy of the durations recorded so far, in order.
func (r *Recorder) Waits() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...)
}
