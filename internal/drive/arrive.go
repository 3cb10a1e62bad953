package drive

// Rounds whose bytes the engine takes as they arrive (scan.Step.AsArrived): each
// range is pushed as soon as the Source delivers it and the engine is asked again at once,
// so that it filters the row groups whose bytes are in while the rest of the round is still
// on its way and asks for their output pages meanwhile. The driver keeps the requests in
// flight: a step is fetched minus what is in flight, and a step with nothing new waits for
// the next arrival. A Batch step keeps the flights (a scan without a filter emits row groups
// between the AsArrived steps of its round): they are pushed on the next call to Step. Any
// other step ends the round: what is still in flight is cancelled (the engine asks again for
// what it still needs), so no request outlives those steps, or Close.

import (
	"context"
	"fmt"
	"slices"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/scan"
)

// flight is one Fetch call in progress.
type flight struct {
	ranges []scan.Range
	left   int64 // bytes not yet delivered
	cancel context.CancelFunc
}

// arrival is a range a flight's Source delivered; the fetching goroutine waits on ack until
// the driver's goroutine has pushed it (b is valid only until deliver returns).
type arrival struct {
	f   *flight
	off int64
	b   []byte
	ack chan error
}

// landing is the end of a flight's Fetch.
type landing struct {
	f   *flight
	err error
}

// asArrived serves one AsArrived NeedRanges step: it starts a fetch of the ranges not in
// flight, then waits for the next arrival (or a flight's end) and pushes it.
func (d *Driver) asArrived(ctx context.Context, rs []scan.Range) error {
	var busy []scan.Range
	for f := range d.flights {
		busy = append(busy, f.ranges...)
	}
	fresh := httprange.Subtract(rs, busy)
	if len(fresh) > 0 {
		if slices.Equal(d.last, fresh) {
			return fmt.Errorf("%w: %v", ErrStalled, fresh)
		}
		d.last = append(d.last[:0], fresh...)
		if d.OnRound != nil {
			d.OnRound(fresh)
		}
		for _, r := range fresh {
			d.progress.BytesPlanned += r.Len
		}
		d.tell()
		d.start(ctx, fresh)
	} else if len(d.flights) == 0 {
		return fmt.Errorf("%w: a NeedRanges step with no range", ErrStalled)
	}
	return d.land(ctx)
}

// start fetches rs in a goroutine of its own.
func (d *Driver) start(ctx context.Context, rs []scan.Range) {
	if d.flights == nil {
		d.flights = map[*flight]bool{}
		d.arrivals = make(chan arrival)
		d.landings = make(chan landing)
	}
	fctx, cancel := context.WithCancel(ctx)
	f := &flight{ranges: rs, left: httprange.Total(rs), cancel: cancel}
	d.flights[f] = true
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		err := d.Src.Fetch(fctx, rs, func(off int64, b []byte) error {
			a := arrival{f: f, off: off, b: b, ack: make(chan error, 1)}
			select {
			case d.arrivals <- a:
			case <-fctx.Done():
				return fctx.Err()
			}
			return <-a.ack // the driver always answers a received arrival
		})
		select {
		case d.landings <- landing{f: f, err: err}:
		case <-fctx.Done():
		}
	}()
}

// land waits for one arrival or landing and handles it, then takes every arrival already
// waiting, so that the engine is asked once for all of them.
func (d *Driver) land(ctx context.Context) error {
	select {
	case a := <-d.arrivals:
		if err := d.pushArrival(a); err != nil {
			return err
		}
	case l := <-d.landings:
		if err := d.landed(l); err != nil {
			return err
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	for {
		select {
		case a := <-d.arrivals:
			if err := d.pushArrival(a); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

func (d *Driver) pushArrival(a arrival) error {
	if d.OnFetch != nil {
		d.OnFetch(a.off, a.b)
	}
	err := d.push(a.off, a.b)
	a.ack <- err
	if err != nil {
		return err
	}
	d.fetched(len(a.b))
	if a.f.left -= int64(len(a.b)); a.f.left <= 0 {
		delete(d.flights, a.f) // every byte is in: nothing of it is in flight any more
	}
	return nil
}

func (d *Driver) landed(l landing) error {
	delete(d.flights, l.f)
	l.f.cancel()
	return l.err
}

// drop cancels the flights still in progress and waits for their goroutines.
func (d *Driver) drop() {
	if d.flights == nil {
		return
	}
	for f := range d.flights {
		f.cancel()
	}
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	for {
		// A goroutine blocked on a send is answered (a flight whose bytes all arrived is
		// not cancelled yet when it lands).
		select {
		case <-done:
			clear(d.flights)
			return
		case l := <-d.landings:
			l.f.cancel()
		case a := <-d.arrivals:
			a.ack <- context.Canceled // not pushed: the round is over
		}
	}
}
