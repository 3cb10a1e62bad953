// Package unitpool runs the units of one scan (scan.Unit: runs of rows that are independent
// sub-scans of the same file) on a bounded pool of goroutines, each unit its own engine
// session driven by its own drive.Driver, and hands their batches back in file order, so the
// output is the single session's output. It is the native host's half of a scan split
// across cores; the units come from a planning session (scan.Units).
//
// Bounds: at most Threads units run at once, and a unit starts only within a reorder window
// of 2×Threads units past the one the output waits for (the head). Memory: the estimated
// bytes of the units running (scan.Unit.Bytes) and the batches waiting to be returned are
// held within MemoryCap; a unit that would go over waits to start, and a unit that is not the
// head waits before buffering a batch that would. The head never waits, so the scan always
// progresses (as the single session reads its first row group's pages whatever their size).
// Buffers of batches returned are kept as spares for the units' next batches while they fit
// the cap beside the accounted bytes.
//
// Errors and cancellation are those of one session: the first error (a unit's, a fetch's,
// ctx's) stops every unit and is what Next returns from then on, with no batch after it;
// Close stops every goroutine and returns once they have all ended.
package unitpool

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// Piece is bytes of the file at Off that every unit session is pushed before it starts (the
// tail and index bytes the planning session fetched), so no unit fetches them again.
type Piece struct {
	Off int64
	B   []byte
}

// Config is what Start needs.
type Config struct {
	Engine scan.Engine
	Src    httpclient.Source
	// Opts are the scan's options; each unit runs them with its rows (RowsFrom, RowsTo),
	// without Offset and Limit (its rows are already the slice), Metadata and PlanUnits.
	Opts    scan.Options
	Units   []scan.Unit
	Threads int
	Pieces  []Piece
	// MemoryCap bounds the accounted bytes (see the package doc); 0 means Opts.MemoryCap or
	// the engine's default.
	MemoryCap int64
	// Open, when set, starts each unit's session instead of Engine with Opts and Pieces: a
	// table scan's run of files (internal/splitscan NewTable), whose unit names its files, not
	// rows. Files then resolves the driver's file table (drive.Driver.Files).
	Open  func(ctx context.Context, u scan.Unit) (scan.Session, error)
	Files func(i int) (httpclient.Source, string, error)
}

// Stats say how a scan ran.
type Stats struct {
	Units, Threads int
	// PeakBytes is the most the accounted bytes reached (units running, batches waiting and
	// the spare buffers of batches returned).
	PeakBytes int64
}

// Scan is one running split scan. Next and Close are used by one goroutine; Tighten may be
// called between Next calls.
type Scan struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	stop   func() bool // unregisters the AfterFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	cond  *sync.Cond
	units []*unit
	next  int   // next unit to start
	head  int   // next unit to deliver
	held  int64 // accounted bytes
	peak  int64
	err   error
	cur   []byte   // the batch Next returned last (held until the next call)
	spare [][]byte // buffers of batches returned, for the sessions to write into again
	// spareBytes is the capacity of the spares.
	spareBytes int64
	tight      []string // runtime filters, applied by each unit's goroutine before its next step
	empty      []byte   // a schema-only batch, returned when no unit returned a row
	rows       bool     // some batch held rows
	// progress adds up the units' drivers' totals (of the units that ended, and the last
	// told by each running one).
	progress drive.Progress
}

type unit struct {
	u        scan.Unit
	batches  [][]byte
	done     bool
	reserved int64
	rep      scan.Report
}

// window is how many units past the head may run or wait with their output, per thread.
const window = 2

// Start starts the units' goroutines. Close must be called (also after io.EOF or an error).
func Start(ctx context.Context, cfg Config) *Scan {
	if cfg.Threads < 1 {
		cfg.Threads = 1
	}
	if cfg.MemoryCap <= 0 {
		cfg.MemoryCap = cfg.Opts.MemoryCap
	}
	if cfg.MemoryCap <= 0 {
		cfg.MemoryCap = scan.DefaultOptions().MemoryCap
	}
	s := &Scan{cfg: cfg}
	s.cond = sync.NewCond(&s.mu)
	s.ctx, s.cancel = context.WithCancel(ctx)
	for _, u := range cfg.Units {
		s.units = append(s.units, &unit{u: u})
	}
	// A goroutine waiting for room or the consumer waiting for a batch learns of the end.
	s.stop = context.AfterFunc(s.ctx, func() {
		s.mu.Lock()
		s.failLocked(s.ctx.Err())
		s.mu.Unlock()
	})
	n := min(cfg.Threads, len(s.units))
	s.wg.Add(n)
	for range n {
		go s.worker()
	}
	return s
}

// failLocked records the first error and wakes everyone.
func (s *Scan) failLocked(err error) {
	if s.err == nil && err != nil {
		s.err = err
		s.cancel()
	}
	s.cond.Broadcast()
}

func (s *Scan) account(n int64) {
	s.held += n
	s.peak = max(s.peak, s.held+s.spareBytes)
}

func (s *Scan) worker() {
	defer s.wg.Done()
	for {
		u, ok := s.take()
		if !ok {
			return
		}
		err := s.run(u)
		s.mu.Lock()
		s.account(-u.reserved)
		u.reserved = 0
		u.done = true
		s.failLocked(err)
		s.mu.Unlock()
	}
}

// take waits until the next unit may start: it is the head, or it is within the window and
// its estimated bytes fit the memory cap.
func (s *Scan) take() (*unit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.err != nil || s.next >= len(s.units) {
			return nil, false
		}
		u := s.units[s.next]
		if s.next == s.head || (s.next < s.head+window*s.cfg.Threads && s.held+u.u.Bytes <= s.cfg.MemoryCap) {
			s.next++
			u.reserved = u.u.Bytes
			s.account(u.reserved)
			return u, true
		}
		s.cond.Wait()
	}
}

// run scans one unit to its end.
func (s *Scan) run(u *unit) error {
	sess, pushed, err := s.open(u)
	if err != nil {
		return err
	}
	defer sess.Close()
	d := drive.Driver{Sess: sess, Src: s.cfg.Src, Sized: true, Files: s.cfg.Files}
	defer d.Close() // requests still in flight after a batch, when the unit stops early
	var last drive.Progress
	d.OnProgress = func(p drive.Progress) {
		s.mu.Lock()
		s.progress.BytesPlanned += p.BytesPlanned - last.BytesPlanned
		s.progress.BytesFetched += p.BytesFetched - last.BytesFetched
		s.mu.Unlock()
		last = p
	}
	applied := 0
	var held []byte // the unit's first batch, until it is known not to be the schema-only one
	first := true
	for {
		if err := s.tighten(sess, &applied); err != nil {
			return err
		}
		st, err := d.Step(s.ctx)
		if err != nil {
			return err
		}
		switch st.Kind {
		case scan.Batch:
			b := s.keep(sess, st.IPC)
			if first {
				held, first = b, false
				continue
			}
			if held != nil {
				if err := s.put(u, held); err != nil {
					return err
				}
				held = nil
			}
			if err := s.put(u, b); err != nil {
				return err
			}
		case scan.Done:
			rep := sess.Report()
			rep.BytesPushed -= pushed
			s.mu.Lock()
			u.rep = rep
			if held != nil && rep.RowsReturned == 0 && s.empty == nil {
				s.empty, held = held, nil
			}
			s.mu.Unlock()
			if held != nil && rep.RowsReturned > 0 {
				return s.put(u, held)
			}
			return nil
		default:
			return fmt.Errorf("%w: a %v step in a unit", drive.ErrProtocol, st.Kind)
		}
	}
}

// open starts u's session and pushes it the plan's pieces (pushed: their bytes).
func (s *Scan) open(u *unit) (sess scan.Session, pushed int64, err error) {
	if s.cfg.Open != nil {
		sess, err = s.cfg.Open(s.ctx, u.u)
		return sess, 0, err
	}
	opts := s.cfg.Opts
	opts.RowsFrom, opts.RowsTo = u.u.Start, u.u.End
	opts.Offset, opts.Limit, opts.Metadata, opts.PlanUnits = 0, 0, false, 0
	if sess, err = s.cfg.Engine.Start(s.ctx, opts); err != nil {
		return nil, 0, err
	}
	for _, p := range s.cfg.Pieces {
		if err := sess.Push(p.Off, p.B); err != nil {
			sess.Close()
			return nil, 0, err
		}
		pushed += int64(len(p.B))
	}
	return sess, pushed, nil
}

// ipcTaker is a session that hands the buffer of its last batch over and writes the next one
// into a spare (the wasm host's session).
type ipcTaker interface {
	TakeIPC(spare []byte) []byte
}

// keep makes a batch outlive the next step: the native scanner and a session that can hand
// its buffer over do (and take a spare one), other sessions' batches are copied.
func (s *Scan) keep(sess scan.Session, ipc []byte) []byte {
	sc, native := sess.(*scan.Scanner)
	t, takes := sess.(ipcTaker)
	if !native && !takes {
		return bytes.Clone(ipc)
	}
	s.mu.Lock()
	var spare []byte
	if n := len(s.spare); n > 0 {
		spare, s.spare = s.spare[n-1], s.spare[:n-1]
		s.spareBytes -= int64(cap(spare))
	}
	s.mu.Unlock()
	if native {
		return scan.TakeIPC(sc, spare)
	}
	return t.TakeIPC(spare)
}

// tighten applies the runtime filters the unit has not seen yet.
func (s *Scan) tighten(sess scan.Session, applied *int) error {
	s.mu.Lock()
	ws := s.tight[*applied:]
	*applied = len(s.tight)
	s.mu.Unlock()
	for _, w := range ws {
		t, ok := sess.(scan.Tightener)
		if !ok {
			return fmt.Errorf("%w: a unit session takes no runtime filter", drive.ErrProtocol)
		}
		if err := t.Tighten(w); err != nil {
			return err
		}
	}
	return nil
}

// put queues a batch of u, waiting for room unless u is the head.
func (s *Scan) put(u *unit, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.err == nil && u != s.units[s.head] && s.held+int64(len(b)) > s.cfg.MemoryCap {
		s.cond.Wait()
	}
	if s.err != nil {
		return s.err
	}
	u.batches = append(u.batches, b)
	s.rows = true
	s.account(int64(len(b)))
	s.cond.Broadcast()
	return nil
}

// Next returns the next batch in file order (an Arrow IPC stream, valid until the next call),
// io.EOF after the last, or the scan's error.
func (s *Scan) Next() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		s.account(-int64(len(s.cur)))
		// A spare saves the next batch a fresh buffer (its allocation, its zeroing and,
		// on a heap that grows, its page faults): they are kept while they and the
		// accounted bytes fit the cap together.
		if s.held+s.spareBytes+int64(cap(s.cur)) <= s.cfg.MemoryCap {
			s.spare = append(s.spare, s.cur)
			s.spareBytes += int64(cap(s.cur))
			s.peak = max(s.peak, s.held+s.spareBytes)
		}
		s.cur = nil
	}
	s.cond.Broadcast()
	for {
		if s.err != nil {
			return nil, s.err
		}
		if s.head >= len(s.units) {
			if !s.rows && s.empty != nil {
				b := s.empty
				s.empty = nil
				return b, nil
			}
			return nil, io.EOF
		}
		u := s.units[s.head]
		if len(u.batches) > 0 {
			b := u.batches[0]
			u.batches[0] = nil
			u.batches = u.batches[1:]
			s.cur = b
			return b, nil
		}
		if u.done {
			s.head++
			s.cond.Broadcast()
			continue
		}
		s.cond.Wait()
	}
}

// Tighten adds a runtime filter (already checked by the caller) to every unit from its next
// step on: units that have not started take it before their first.
func (s *Scan) Tighten(where string) {
	s.mu.Lock()
	s.tight = append(s.tight, where)
	s.mu.Unlock()
}

// Close stops every unit and waits for their goroutines to end. It is idempotent.
func (s *Scan) Close() {
	s.cancel()
	s.wg.Wait()
	s.stop()
}

// Reports returns the reports of the units that ended, in unit order (zero for the others).
func (s *Scan) Reports() []scan.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]scan.Report, len(s.units))
	for i, u := range s.units {
		out[i] = u.rep
	}
	return out
}

// Progress returns the bytes the units have planned and fetched so far.
func (s *Scan) Progress() drive.Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progress
}

// Stats returns how the scan ran so far.
func (s *Scan) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Units: len(s.units), Threads: min(s.cfg.Threads, max(1, len(s.units))), PeakBytes: s.peak}
}
