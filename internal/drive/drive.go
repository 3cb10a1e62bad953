// Package drive is the one Go loop that runs the engine protocol (scan.Session): every Go host
// goes through it — package pqscan's File and Reader (and so the CLI, the benchmarks and the
// wazero host used as an Engine), its Datasets and Delta tables (whose log objects the host
// answers through OnObjects), and the tests that drive a raw session. It fetches what the
// engine asks for from a Source, pushes the bytes, answers a suffix request with the size, and
// stops an engine that stalls. The JavaScript twin is Core.drive in jsbridge/src/core.js.
package drive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

var (
	// ErrStalled: the engine asked again for exactly the ranges it was just given, without
	// producing anything in between; looping would never end.
	ErrStalled = errors.New("pqscan: the engine asked again for the ranges just pushed")
	// ErrProtocol: the engine broke the session protocol (an unknown step kind, an Error step
	// without an error, a step out of order).
	ErrProtocol = errors.New("pqscan: engine protocol violation")
)

// Driver runs one session. It is used by one goroutine.
type Driver struct {
	Sess scan.Session
	Src  httpclient.Source
	// Sized says the engine knows the file size (Options.FileSize was set); otherwise a suffix
	// request makes the driver learn it from Src and call SetFileSize first.
	Sized bool
	// OnRound, when set, sees every NeedRanges step's ranges before they are fetched.
	OnRound func(rs []scan.Range)
	// OnFetch, when set, sees every delivered range before it is pushed (b is valid only
	// during the call).
	OnFetch func(off int64, b []byte)
	// Files resolves the file table of a table session (scan.TableSession): the Source of
	// file i and the name errors give it. Required to drive one; called once per file (the
	// driver keeps the Sources).
	Files func(i int) (src httpclient.Source, name string, err error)
	// OnProgress, when set, is called when a round is planned (before its fetch) and after
	// every delivered range is pushed, with the totals so far. It is how a host shows a long scan advancing (the CLI's progress line) without
	// polling the engine: the driver is where bytes arrive. It is called from the goroutine
	// that fetched the range, never concurrently; it must not call into the session.
	OnProgress func(Progress)
	// OnObjects answers a Delta session's NeedObjects step (scan.NeedObjects: whole
	// log objects, which only the host knows how to get); required to drive one. It must
	// push every object before it returns. The step's checkpoint ranges (Reqs) are fetched
	// through Files meanwhile, so that the log round and its checkpoint reads share a round
	// trip; so OnObjects must hold session around each call into the session (the listing of
	// the objects, each push), and not while it fetches.
	OnObjects func(ctx context.Context, session sync.Locker) error

	progress Progress
	last     []scan.Range     // the previous NeedRanges, while no other step came since
	lastReqs []scan.FileRange // the same for NeedData
	srcs     map[int]httpclient.Source
	names    map[int]string
	mu       sync.Mutex // held around a session call while a step's fetches run in parallel

	// AsArrived rounds (arrive.go): the fetches in flight and their deliveries.
	flights  map[*flight]bool
	arrivals chan arrival
	landings chan landing
	wg       sync.WaitGroup
}

// Progress is what a session has asked for and received so far.
type Progress struct {
	// BytesPlanned adds up the ranges of every NeedRanges and NeedData step so far: the bytes
	// of the rounds the engine has planned until now (a later round adds to it; the engine
	// plans one round at a time, so the total is not known in advance).
	BytesPlanned int64
	// BytesFetched adds up the bytes delivered and pushed to the session.
	BytesFetched int64
}

// Progress returns the totals so far (what OnProgress was last told).
func (d *Driver) Progress() Progress { return d.progress }

// fetched counts n pushed bytes and tells OnProgress.
func (d *Driver) fetched(n int) {
	d.progress.BytesFetched += int64(n)
	d.tell()
}

func (d *Driver) tell() {
	if d.OnProgress != nil {
		d.OnProgress(d.progress)
	}
}

// fileConcurrency bounds the files a NeedData step fetches from at once (each Source has its
// own request concurrency on top).
const fileConcurrency = 8

// Step advances the session to its next step that is not NeedRanges (Metadata, Batch, Done),
// doing the I/O in between. An Error step, a stall, a failed fetch or a done ctx is an error.
//
// A Batch step keeps the requests in flight (a scan without a filter decodes row groups
// while the rest of its round arrives, internal/scan/protocol.go): they are pushed on the
// next call, or cancelled by Close. Every other step, and every error, cancels them.
func (d *Driver) Step(ctx context.Context) (scan.Step, error) {
	st, err := d.step(ctx)
	if err != nil || st.Kind != scan.Batch {
		d.drop() // no request outlives the call (arrive.go)
	}
	return st, err
}

// Close cancels the requests still in flight after a Batch step and waits for their
// goroutines; a host that stops a scan before its Done step calls it (idempotent).
func (d *Driver) Close() { d.drop() }

func (d *Driver) step(ctx context.Context) (scan.Step, error) {
	for {
		if err := ctx.Err(); err != nil {
			return scan.Step{}, err
		}
		st := d.Sess.Next()
		if st.Kind == scan.NeedRanges && st.AsArrived && !slices.ContainsFunc(st.Ranges, func(r scan.Range) bool { return r.Off < 0 }) {
			if err := d.asArrived(ctx, st.Ranges); err != nil {
				return scan.Step{}, err
			}
			continue
		}
		if st.Kind != scan.Batch {
			d.drop()
		}
		switch st.Kind {
		case scan.NeedRanges:
			if slices.Equal(d.last, st.Ranges) {
				return scan.Step{}, fmt.Errorf("%w: %v", ErrStalled, st.Ranges)
			}
			d.last = append(d.last[:0], st.Ranges...)
			if d.OnRound != nil {
				d.OnRound(st.Ranges)
			}
			for _, r := range st.Ranges {
				d.progress.BytesPlanned += r.Len // a suffix range (Off < 0) has its length too
			}
			d.tell()
			if err := d.fetch(ctx, st.Ranges); err != nil {
				return scan.Step{}, err
			}
		case scan.NeedData:
			if slices.Equal(d.lastReqs, st.Reqs) {
				return scan.Step{}, fmt.Errorf("%w: %v", ErrStalled, st.Reqs)
			}
			d.lastReqs = append(d.lastReqs[:0], st.Reqs...)
			for _, r := range st.Reqs {
				d.progress.BytesPlanned += r.Len
			}
			d.tell()
			if err := d.fetchFiles(ctx, st.Reqs); err != nil {
				return scan.Step{}, err
			}
		case scan.NeedObjects:
			if d.OnObjects == nil {
				return scan.Step{}, fmt.Errorf("%w: a NeedObjects step and no OnObjects", ErrProtocol)
			}
			d.last, d.lastReqs = d.last[:0], d.lastReqs[:0]
			if err := d.objects(ctx, st.Reqs); err != nil {
				return scan.Step{}, err
			}
		case scan.Error:
			if st.Err == nil {
				return scan.Step{}, fmt.Errorf("%w: an Error step without an error", ErrProtocol)
			}
			return scan.Step{}, st.Err
		case scan.Batch, scan.Done, scan.Metadata:
			d.last, d.lastReqs = d.last[:0], d.lastReqs[:0]
			return st, nil
		default:
			return scan.Step{}, fmt.Errorf("%w: step kind %v", ErrProtocol, st.Kind)
		}
	}
}

func (d *Driver) fetch(ctx context.Context, rs []scan.Range) error {
	if !d.Sized && slices.ContainsFunc(rs, func(r scan.Range) bool { return r.Off < 0 }) {
		// A suffix request: the engine started without a size and must learn it before the
		// bytes arrive (for the HTTP Source that request also keeps the tail it fetched).
		n, err := d.Src.Size(ctx)
		if err != nil {
			return err
		}
		if err := d.Sess.SetFileSize(n); err != nil {
			return err
		}
		d.Sized = true
	}
	return d.Src.Fetch(ctx, rs, func(off int64, b []byte) error {
		if d.OnFetch != nil {
			d.OnFetch(off, b)
		}
		if err := d.push(off, b); err != nil {
			return err
		}
		d.fetched(len(b))
		return nil
	})
}

// ownedPusher is a session that can keep a buffer it is pushed (scan.Scanner).
type ownedPusher interface {
	PushOwned(off int64, b []byte) error
}

// push pushes fetched bytes to the session: without a copy where the Source hands its buffers
// over and the session can keep them.
func (d *Driver) push(off int64, b []byte) error {
	if _, ok := d.Src.(httpclient.HandsOver); ok {
		if o, ok := d.Sess.(ownedPusher); ok {
			return o.PushOwned(off, b)
		}
	}
	return d.Sess.Push(off, b)
}

// objects serves a NeedObjects step: OnObjects and the checkpoint ranges reqs at once, every
// call into the session under d.mu.
func (d *Driver) objects(ctx context.Context, reqs []scan.FileRange) error {
	if len(reqs) == 0 {
		return d.OnObjects(ctx, &d.mu)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- d.fetchFiles(ctx, reqs) }()
	err := d.OnObjects(ctx, &d.mu)
	if err != nil {
		cancel()
	}
	if ferr := <-errc; err == nil {
		err = ferr
	}
	return err
}

// fetchFiles serves a NeedData step: the ranges of each file from its Source, several files at
// once; pushes are serialized (a session is used by one goroutine at a time).
func (d *Driver) fetchFiles(ctx context.Context, reqs []scan.FileRange) error {
	ts, ok := d.Sess.(scan.TableSession)
	if !ok || d.Files == nil {
		return fmt.Errorf("%w: a NeedData step from a session that is not a table, or no file table", ErrProtocol)
	}
	byFile := map[int][]scan.Range{}
	var order []int
	for _, r := range reqs {
		if _, seen := byFile[r.File]; !seen {
			order = append(order, r.File)
		}
		byFile[r.File] = append(byFile[r.File], r.Range)
	}
	if d.srcs == nil {
		d.srcs, d.names = map[int]httpclient.Source{}, map[int]string{}
	}
	mu := &d.mu
	mu.Lock() // Files may ask the session (a Delta session's checkpoint table)
	for _, i := range order {
		if d.srcs[i] == nil {
			src, name, err := d.Files(i)
			if err != nil {
				mu.Unlock()
				return err
			}
			d.srcs[i], d.names[i] = src, name
		}
	}
	mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(order))
	sem := make(chan struct{}, fileConcurrency)
	for _, i := range order {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			src, rs := d.srcs[i], byFile[i]
			if slices.ContainsFunc(rs, func(r scan.Range) bool { return r.Off < 0 }) {
				n, err := src.Size(ctx)
				if err == nil {
					mu.Lock()
					err = ts.SetFileSizeOf(i, n)
					mu.Unlock()
				}
				if err != nil {
					errs <- fmt.Errorf("%s: %w", d.names[i], err)
					return
				}
			}
			err := src.Fetch(ctx, rs, func(off int64, b []byte) error {
				mu.Lock()
				defer mu.Unlock()
				if err := ts.PushFile(i, off, b); err != nil {
					return err
				}
				d.fetched(len(b))
				return nil
			})
			if err != nil {
				err = fmt.Errorf("%s: %w", d.names[i], err)
			}
			errs <- err
		}()
	}
	var first error
	for range order {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel() // the other files' requests stop; nothing partial is used
		}
	}
	return first
}

// Run drives a whole session, handing each batch's IPC stream to onIPC (valid only during the
// call), skipping a Metadata step, and returns the final report. It closes the session.
func Run(ctx context.Context, sess scan.Session, src httpclient.Source, sized bool, onIPC func(b []byte) error) (scan.Report, error) {
	defer sess.Close()
	d := &Driver{Sess: sess, Src: src, Sized: sized}
	defer d.Close()
	for {
		st, err := d.Step(ctx)
		if err == nil {
			switch st.Kind {
			case scan.Done:
				sess.Close() // the final report is kept
				return sess.Report(), nil
			case scan.Batch:
				err = onIPC(st.IPC)
			}
		}
		if err != nil {
			sess.Close()
			return sess.Report(), err
		}
	}
}
