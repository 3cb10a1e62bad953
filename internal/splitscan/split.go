// Package splitscan cuts a file scan across cores (pqscan.Options.Threads): after pruning, the
// native engine plans the scan's units (internal/scan units.go: row groups, or runs of a large
// row group's pages), and internal/unitpool decodes them on a bounded pool of goroutines, on
// the Reader's engine, output in file order: the rows of one session. The Reader starts as a
// one-session scan; New decides at its start, from the bytes the statistics left, whether to
// split, and the first Next plans and starts the units (Start). It is apart from the root
// package, which keeps the Reader's API and forwards to it.
package splitscan

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/unitpool"
)

// UnitMinBytes is the least compressed data a unit should hold: below it a unit's own
// session start and index decode cost more than a core saves, and a scan with less than two
// units' worth runs as one session. Tests lower it to split small corpus files.
var UnitMinBytes int64 = 8 << 20

// Native starts a session of the native engine, with its footer cache: the plan is always
// made natively, whatever engine runs the units.
type Native func(scan.Options) (*scan.Scanner, error)

// Scan is a Reader's split scan: planned at the first Next, then run by pool.
type Scan struct {
	threads int
	target  int64             // the unit size (scan.UnitTarget)
	opts    scan.Options      // the scan's engine options
	tail    []metacache.Piece // the File's tail bytes
	tight   []string          // runtime filters accepted before the plan
	planRep scan.Report       // the planning session's report
	pool    *unitpool.Scan
	engine  scan.Engine
	native  Native
	table   *tableSplit // a dataset's runs of files (table.go); nil for a file's units
}

// splittable reports whether a scan with options o may be split into units: its answer must
// be its units' answers in order, and each unit's slice known before it runs (with a WHERE,
// which rows an offset or limit keeps depends on the rows before).
func splittable(o scan.Options) bool {
	return !o.Count && o.MinMax == "" && o.OrderBy == "" && !o.Explain &&
		(o.Where == "" || (o.Limit == 0 && o.Offset == 0))
}

// New returns the split of a scan with options o (eo: the engine's, completed by the File)
// whose session sess has reached its Metadata step, when threads (0: runtime.NumCPU) allow
// it, the session can plan units and the data left after the statistics is worth two units;
// else nil. engine runs the units; tail is the File's tail bytes.
func New(sess scan.Session, o, eo scan.Options, tail []metacache.Piece, threads int, engine scan.Engine, native Native) *Scan {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	if threads <= 1 || !splittable(o) {
		return nil
	}
	sc, ok := sess.(*scan.Scanner) // the native engine's session
	if !ok {
		// Another engine (the wasm module in wazero): the plan is made natively, from the
		// footer in the tail bytes, and its units run on the engine's sessions.
		if sc, ok = nativeMetadata(native, eo, tail); !ok {
			return nil
		}
	}
	if scan.PlannedBytes(sc) < 2*UnitMinBytes {
		return nil
	}
	return &Scan{threads: threads, target: unitTarget(scan.PlannedBytes(sc), threads, eo.MemoryCap),
		opts: eo, tail: tail, engine: engine, native: native}
}

// unitTarget is the unit size for planned bytes on threads within the memory cap memCap (0:
// the engine's default): scan.UnitTarget's two units per thread, but at most a quarter of
// the cap's share per thread. The units running reserve their compressed bytes within the
// cap, and a unit ahead of the output holds its decoded batches (several times its
// compressed bytes: 3.2× for the events file) until its turn; a unit that would go over the
// cap waits, which idles its core (with the sorted 4M-row events file's four 60 MB row
// groups as units, the unit ahead waited for the last quarter of the head's run). Smaller
// units keep what a unit ahead holds, and so the scan's peak memory, within the cap.
func unitTarget(planned int64, threads int, memCap int64) int64 {
	if memCap <= 0 {
		memCap = scan.DefaultOptions().MemoryCap
	}
	return min(scan.UnitTarget(planned, threads, UnitMinBytes), max(UnitMinBytes, memCap/int64(4*threads)))
}

// nativeMetadata runs a native session of the scan to its Metadata step on the File's tail
// bytes (no I/O): ok is false if the tail does not hold the footer.
func nativeMetadata(native Native, eo scan.Options, tail []metacache.Piece) (*scan.Scanner, bool) {
	s, err := native(eo)
	if err != nil {
		return nil, false
	}
	for _, p := range tail {
		if s.Push(p.Off, p.Bytes) != nil {
			return nil, false
		}
	}
	st := s.Next()
	return s, st.Kind == scan.Metadata
}

// Started reports whether the units run (Start has split the scan).
func (s *Scan) Started() bool { return s.pool != nil }

// Start runs the planning session (footer from the cache, the index round; src: the File's)
// and starts the units. split is false when the scan goes on as one session instead (a
// runtime filter made the slice depend on the rows, or the plan has no unit: the single
// session still owes the empty result its schema): Unsplit starts it, given pieces.
func (s *Scan) Start(ctx context.Context, src httpclient.Source) (pieces []unitpool.Piece, split bool, err error) {
	if s.table != nil {
		s.startTable(ctx)
		return nil, true, nil
	}
	if len(s.tight) > 0 && !splittable(scan.Options{Where: "tightened", Limit: s.opts.Limit, Offset: s.opts.Offset}) {
		// A runtime filter before the index round joins the WHERE: the slice then counts
		// matching rows, which units cannot know.
		return tailPieces(s.tail), false, nil
	}
	po := s.opts
	// The Metadata step is where runtime filters given before the first Next are applied, as
	// in the first session: after the footer, so a slice without a WHERE stays positional.
	po.Metadata, po.PlanUnits = true, s.target
	// The plan is made by the native engine whatever runs the units: it reads only indexes.
	sc, err := s.native(po)
	if err != nil {
		return nil, false, err
	}
	defer sc.Close()
	pieces = tailPieces(s.tail)
	for _, p := range pieces {
		if err := sc.Push(p.Off, p.B); err != nil {
			return nil, false, err
		}
	}
	d := drive.Driver{Sess: sc, Src: src, Sized: true, OnFetch: func(off int64, b []byte) {
		pieces = append(pieces, unitpool.Piece{Off: off, B: bytes.Clone(b)})
	}}
	st, err := d.Step(ctx)
	if err == nil && st.Kind == scan.Metadata {
		if err := TightenAll(sc, s.tight); err != nil {
			return nil, false, err
		}
		st, err = d.Step(ctx)
	}
	if err != nil {
		return nil, false, err
	}
	if st.Kind != scan.Done {
		return nil, false, fmt.Errorf("%w: a %v step from a unit plan", drive.ErrProtocol, st.Kind)
	}
	s.planRep = sc.Report()
	units := scan.Units(sc)
	if len(units) == 0 {
		return pieces, false, nil
	}
	uo := s.opts
	uo.Where = joinWhere(uo.Where, s.tight)
	s.pool = unitpool.Start(ctx, unitpool.Config{Engine: s.engine, Src: src, Opts: uo,
		Units: units, Threads: s.threads, Pieces: pieces})
	return nil, true, nil
}

// tailPieces are the File's tail bytes as pieces every session of the scan is pushed first.
func tailPieces(tail []metacache.Piece) []unitpool.Piece {
	out := make([]unitpool.Piece, 0, len(tail))
	for _, p := range tail {
		out = append(out, unitpool.Piece{Off: p.Off, B: p.Bytes})
	}
	return out
}

// Unsplit starts the one session the scan goes on as, given the bytes the plan fetched. The
// caller runs it to its Metadata step, then applies Tight.
func (s *Scan) Unsplit(ctx context.Context, pieces []unitpool.Piece) (scan.Session, error) {
	sess, err := s.engine.Start(ctx, s.opts)
	if err != nil {
		return nil, err
	}
	for _, p := range pieces {
		if err := sess.Push(p.Off, p.B); err != nil {
			sess.Close()
			return nil, err
		}
	}
	return sess, nil
}

// Tight are the runtime filters accepted before the plan.
func (s *Scan) Tight() []string { return s.tight }

// TightenAll applies runtime filters to a session.
func TightenAll(sess scan.Session, where []string) error {
	if len(where) == 0 {
		return nil
	}
	t, ok := sess.(scan.Tightener)
	if !ok {
		return fmt.Errorf("%w: a split scan's session takes no runtime filter", drive.ErrProtocol)
	}
	for _, w := range where {
		if err := t.Tighten(w); err != nil {
			return err
		}
	}
	return nil
}

// joinWhere ANDs runtime filters accepted before the units started into the WHERE every unit
// starts with.
func joinWhere(where string, tight []string) string {
	for _, w := range tight {
		if where == "" {
			where = w
		} else {
			where = "(" + where + ") AND (" + w + ")"
		}
	}
	return where
}

// Next returns the units' next batch in file order; io.EOF after the last.
func (s *Scan) Next() ([]byte, error) {
	b, err := s.pool.Next()
	if err == io.EOF {
		s.pool.Close()
	}
	return b, err
}

// Tighten checks a runtime filter against the scan's first session t (which binds it to the
// schema and is not read from again) and hands it to the units.
func (s *Scan) Tighten(t scan.Tightener, where string) error {
	if err := t.Tighten(where); err != nil {
		return err
	}
	if s.pool == nil {
		s.tight = append(s.tight, where)
		return nil
	}
	s.pool.Tighten(where)
	return nil
}

// Report is the report of the split scan: the plan's levels and the units' data phases; the
// first session's (sess) before the units started.
func (s *Scan) Report(sess scan.Session) scan.Report {
	if s.pool == nil {
		return sess.Report()
	}
	if s.table != nil {
		return s.tableReport(sess)
	}
	rep := scan.MergeUnitReports(s.planRep, s.pool.Reports())
	st := s.pool.Stats()
	rep.Units, rep.Threads = st.Units, st.Threads
	return rep
}

// Progress is the bytes planned and fetched so far: the first session's (p), plus the units'.
func (s *Scan) Progress(p drive.Progress) drive.Progress {
	if s.pool != nil {
		u := s.pool.Progress()
		p.BytesPlanned += u.BytesPlanned
		p.BytesFetched += u.BytesFetched
	}
	return p
}

// Close stops the units' goroutines.
func (s *Scan) Close() {
	if s != nil && s.pool != nil {
		s.pool.Close()
	}
}
