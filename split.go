package pqscan

// A scan split across cores (Options.Threads): the native engine's scan is cut into units
// (internal/scan units.go) after pruning, and internal/unitpool decodes them on a bounded
// pool of goroutines, output in file order. The Reader starts as a one-session scan; its
// first Next decides, from the bytes the statistics left, whether to split.

import (
	"bytes"
	"fmt"
	"io"
	"runtime"

	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/unitpool"
)

// unitMinBytes is the least compressed data a unit should hold: below it a unit's own
// session start and index decode cost more than a core saves, and a scan with less than two
// units' worth runs as one session. Tests lower it to split small corpus files.
var unitMinBytes int64 = 8 << 20

// splitState is a Reader's split scan: planned at the first Next, then run by pool.
type splitState struct {
	threads int
	target  int64        // the unit size (scan.UnitTarget)
	opts    scan.Options // the scan's engine options
	tail    []piece      // the File's tail bytes
	tight   []string     // runtime filters accepted before the plan
	planRep scan.Report  // the planning session's report
	pool    *unitpool.Scan
	engine  Engine
}

// threads is the number of goroutines a scan of the File may decode on.
func (f *File) threads() int {
	if f.opts.Threads > 0 {
		return f.opts.Threads
	}
	return runtime.NumCPU()
}

// splittable reports whether a scan with options o may be split into units: its answer must
// be its units' answers in order, and each unit's slice known before it runs (with a WHERE,
// which rows an offset or limit keeps depends on the rows before).
func splittable(o scan.Options) bool {
	return !o.Count && o.MinMax == "" && o.OrderBy == "" && !o.Explain &&
		(o.Where == "" || (o.Limit == 0 && o.Offset == 0))
}

// maybeSplit makes r a split scan when its File allows threads, the session can plan units
// and the data left after the statistics is worth two units.
func (r *Reader) maybeSplit(f *File, o ScanOptions, eo scan.Options, tail []piece) {
	threads := f.threads()
	if threads <= 1 || !splittable(o) {
		return
	}
	sc, ok := r.d.Sess.(*scan.Scanner) // the native engine's session
	if !ok {
		// Another engine (the wasm module in wazero): the plan is made natively, from the
		// footer in the tail bytes, and its units run on the engine's sessions.
		if sc, ok = nativeMetadata(eo, tail); !ok {
			return
		}
	}
	if scan.PlannedBytes(sc) < 2*unitMinBytes {
		return
	}
	r.split = &splitState{threads: threads, target: scan.UnitTarget(scan.PlannedBytes(sc), threads, unitMinBytes),
		opts: eo, tail: tail, engine: f.opts.Engine}
}

// nativeMetadata runs a native session of the scan to its Metadata step on the File's tail
// bytes (no I/O): ok is false if the tail does not hold the footer.
func nativeMetadata(eo scan.Options, tail []piece) (*scan.Scanner, bool) {
	s, err := scan.NewCached(eo, nativeFooters)
	if err != nil {
		return nil, false
	}
	for _, p := range tail {
		if s.Push(p.Off, p.Bytes) != nil {
			return nil, false
		}
	}
	st := s.Next()
	return s, st.Kind == Metadata
}

// startSplit runs the planning session (footer from the cache, the index round) and starts
// the units. With no unit it falls back to one session (which still owes the empty result
// its schema).
func (r *Reader) startSplit() error {
	sp := r.split
	if len(sp.tight) > 0 && !splittable(scan.Options{Where: "tightened", Limit: sp.opts.Limit, Offset: sp.opts.Offset}) {
		// A runtime filter before the index round joins the WHERE: the slice then counts
		// matching rows, which units cannot know.
		return r.unsplit(tailPieces(sp.tail))
	}
	po := sp.opts
	// The Metadata step is where runtime filters given before the first Next are applied, as
	// in the first session: after the footer, so a slice without a WHERE stays positional.
	po.Metadata, po.PlanUnits = true, sp.target
	// The plan is made by the native engine whatever runs the units: it reads only indexes.
	sess, err := Native{}.Start(r.ctx, po)
	if err != nil {
		return err
	}
	defer sess.Close()
	pieces := tailPieces(sp.tail)
	for _, p := range pieces {
		if err := sess.Push(p.Off, p.B); err != nil {
			return err
		}
	}
	d := drive.Driver{Sess: sess, Src: r.d.Src, Sized: true, OnFetch: func(off int64, b []byte) {
		pieces = append(pieces, unitpool.Piece{Off: off, B: bytes.Clone(b)})
	}}
	st, err := d.Step(r.ctx)
	if err == nil && st.Kind == Metadata {
		if err := tightenAll(sess, sp.tight); err != nil {
			return err
		}
		st, err = d.Step(r.ctx)
	}
	if err != nil {
		return err
	}
	if st.Kind != Done {
		return fmt.Errorf("%w: a %v step from a unit plan", ErrProtocol, st.Kind)
	}
	sp.planRep = sess.Report()
	sc, ok := sess.(*scan.Scanner)
	if !ok {
		return fmt.Errorf("%w: a unit plan from a session of another engine", ErrProtocol)
	}
	units := scan.Units(sc)
	if len(units) == 0 {
		return r.unsplit(pieces)
	}
	uo := sp.opts
	uo.Where = joinWhere(uo.Where, sp.tight)
	sp.pool = unitpool.Start(r.ctx, unitpool.Config{Engine: sp.engine, Src: r.d.Src, Opts: uo,
		Units: units, Threads: sp.threads, Pieces: pieces})
	return nil
}

// tailPieces are the File's tail bytes as pieces every session of the scan is pushed first.
func tailPieces(tail []piece) []unitpool.Piece {
	out := make([]unitpool.Piece, 0, len(tail))
	for _, p := range tail {
		out = append(out, unitpool.Piece{Off: p.Off, B: p.Bytes})
	}
	return out
}

// unsplit goes on as one session, given the bytes the plan fetched.
func (r *Reader) unsplit(pieces []unitpool.Piece) error {
	sess, err := r.split.engine.Start(r.ctx, r.split.opts)
	if err != nil {
		return err
	}
	for _, p := range pieces {
		if err := sess.Push(p.Off, p.B); err != nil {
			sess.Close()
			return err
		}
	}
	r.d.Sess.Close()
	r.d.Sess = sess
	if _, _, err := metadata(r.ctx, &r.d, r.alloc); err != nil {
		return err
	}
	tight := r.split.tight
	r.split = nil
	return tightenAll(sess, tight)
}

// tightenAll applies runtime filters to a session.
func tightenAll(sess Session, where []string) error {
	if len(where) == 0 {
		return nil
	}
	t, ok := sess.(scan.Tightener)
	if !ok {
		return fmt.Errorf("%w: a split scan's session takes no runtime filter", ErrProtocol)
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

// nextSplit is NextIPC for a split scan.
func (r *Reader) nextSplit() ([]byte, error) {
	if r.split.pool == nil {
		if err := r.startSplit(); err != nil {
			return nil, r.fail(err)
		}
		if r.split == nil {
			return r.NextIPC()
		}
	}
	b, err := r.split.pool.Next()
	if err == io.EOF {
		r.done = true
		r.split.pool.Close()
		return nil, io.EOF
	}
	if err != nil {
		return nil, r.fail(err)
	}
	return b, nil
}

// tightenSplit checks a runtime filter against the scan's first session (which binds it to
// the schema and is not read from again) and hands it to the units.
func (r *Reader) tightenSplit(t scan.Tightener, where string) error {
	if err := t.Tighten(where); err != nil {
		return err
	}
	if r.split.pool == nil {
		r.split.tight = append(r.split.tight, where)
		return nil
	}
	r.split.pool.Tighten(where)
	return nil
}

// splitReport is the report of a split scan: the plan's levels and the units' data phases.
func (r *Reader) splitReport() Report {
	sp := r.split
	if sp.pool == nil {
		return r.d.Sess.Report()
	}
	rep := scan.MergeUnitReports(sp.planRep, sp.pool.Reports())
	st := sp.pool.Stats()
	rep.Units, rep.Threads = st.Units, st.Threads
	return rep
}

// fetchProgress is the bytes planned and fetched so far: the first session's, plus the
// units' in a split scan.
func (r *Reader) fetchProgress() drive.Progress {
	p := r.d.Progress()
	if r.split != nil && r.split.pool != nil {
		u := r.split.pool.Progress()
		p.BytesPlanned += u.BytesPlanned
		p.BytesFetched += u.BytesFetched
	}
	return p
}

// closeSplit stops the units' goroutines.
func (r *Reader) closeSplit() {
	if r.split != nil && r.split.pool != nil {
		r.split.pool.Close()
	}
}
