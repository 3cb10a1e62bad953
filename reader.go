package pqscan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/prefetch"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/splitscan"
	"github.com/pqscan/pqscan/internal/tailcache"
	"github.com/pqscan/pqscan/internal/unitpool"
)

// Reader iterates the record batches of one scan. It is not safe for concurrent use.
type Reader struct {
	ctx    context.Context
	name   string // the file or dataset, for errors
	alloc  memory.Allocator
	d      drive.Driver
	schema *arrow.Schema
	done   bool
	err    error
	// rows counts the rows Next returned; progress, when set, is OnProgress's fn.
	rows     int64
	progress func(Progress)
	// split: the scan is cut into units decoded at once (internal/splitscan); nil: one session.
	split *splitscan.Scan
	// For a File's scan: the File and the options, to start the scan again when the File's
	// stored metadata turns out stale before any row was returned (internal/tailcache); mc is the
	// File's store link when the scan started, returned whether Next returned a batch.
	file     *File
	opts     ScanOptions
	mc       *tailcache.Link
	settle   func() // ends mc's count of the scan's index requests
	returned bool
	// A scan with a metadata store records its plan (the ranges it asks, asked) under its
	// options fingerprint fp; a returning one replays the stored plan through pf
	// (internal/prefetch), which the scan stops at its end.
	fp       string
	asked    []scan.Range
	pf       *prefetch.Source
	replayed bool
}

// Progress is how far a scan has come, for a progress display (the CLI's progress line).
type Progress struct {
	// BytesPlanned is the bytes of every round the engine has planned so far; it grows as the
	// scan plans its next rounds (the engine plans one round at a time).
	BytesPlanned int64
	// BytesFetched is the bytes fetched and handed to the engine so far.
	BytesFetched int64
	// Rows is the number of rows Next has returned so far.
	Rows int64
}

// OnProgress makes the scan call fn as it advances: when a round of requests is planned,
// after every range fetched and pushed to the engine, and after every batch Next returns. fn runs on the goroutine doing the fetch
// (several files of a dataset are fetched at once, but calls are never concurrent) and must
// not call the Reader. nil turns it off. Set it before the first Next.
func (r *Reader) OnProgress(fn func(Progress)) {
	r.progress = fn
	r.d.OnProgress = nil
	if fn != nil {
		r.d.OnProgress = func(p drive.Progress) {
			fn(Progress{BytesPlanned: p.BytesPlanned, BytesFetched: p.BytesFetched, Rows: r.rows})
		}
	}
}

// Scan starts a scan. The returned Reader fetches ranges as Next needs them; ctx bounds the
// whole scan (every fetch made by Next). Invalid options (an unknown column, a WHERE that does
// not parse or bind) fail here.
func (f *File) Scan(ctx context.Context, o ScanOptions) (*Reader, error) {
	r := &Reader{ctx: ctx, name: f.name, alloc: f.opts.Allocator, file: f, opts: o}
	if err := r.start(); err != nil {
		if !r.restartable(err) {
			return nil, err
		}
		if err = r.restart(err); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// start starts the File's session for the Reader's options, gives it the tail bytes the File
// keeps and runs it to its Metadata step.
func (r *Reader) start() error {
	f := r.file
	f.mu.Lock()
	eo, src, tail, mc, info := f.engineOptions(r.opts), f.src, f.tail, f.mc, f.info
	f.mu.Unlock()
	r.pf.Stop() // a restart: the prefetch was of the stale version
	r.pf, r.replayed, r.asked, r.fp = nil, false, nil, ""
	var fetchSrc Source = src
	if mc != nil {
		r.fp = planID(eo)
		if p := mc.Plan(r.fp); p != nil && r.fp != "" {
			// Before the engine starts: the ranges are on their way while it does.
			r.pf, r.replayed = prefetch.New(src), true
			r.pf.Start(r.ctx, p.Ranges)
			fetchSrc = r.pf
		}
	}
	sess, err := f.opts.Engine.Start(r.ctx, eo)
	if err != nil {
		r.pf.Stop()
		return fmt.Errorf("pqscan: %w", err)
	}
	for _, p := range tail {
		if err := sess.Push(p.Off, p.Bytes); err != nil {
			sess.Close()
			r.pf.Stop()
			return fmt.Errorf("pqscan: %w", err)
		}
	}
	r.d = drive.Driver{Sess: sess, Src: fetchSrc, Sized: true}
	r.mc = mc
	var indexStart int64
	if info != nil {
		indexStart = info.IndexStart
	}
	r.settle = mc.Watch(indexStart, &r.d, func(off int64, b []byte) {
		f.mu.Lock()
		if f.mc == mc { // later scans of this File push it too
			f.tail = append(f.tail, piece{Off: off, Bytes: b})
		}
		f.mu.Unlock()
	})
	if mc != nil {
		watch := r.d.OnRound
		r.d.OnRound = func(rs []scan.Range) {
			if watch != nil {
				watch(rs)
			}
			if len(r.asked) <= metacache.PlanMaxRanges { // past it no plan is kept
				r.asked = append(r.asked, rs...)
			}
		}
	}
	r.OnProgress(r.progress)
	if _, r.schema, err = metadata(r.ctx, &r.d, f.opts.Allocator); err != nil {
		sess.Close()
		r.pf.Stop()
		return fmt.Errorf("pqscan: %s: %w", f.name, err)
	}
	if mc == nil {
		// A scan from stored metadata stays one session: it must confirm the metadata
		// before its first row, and may start again (internal/tailcache).
		r.split = splitscan.New(r.d.Sess, r.opts, eo, tail, f.opts.Threads, f.opts.Engine, nativeScanner)
	}
	return nil
}

// Schema returns the schema of the batches (the projected columns).
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Next returns the next non-empty batch, io.EOF after the last one, or the scan's error (every
// later call returns the same). The caller owns the batch and should Release it.
func (r *Reader) Next() (arrow.RecordBatch, error) {
	for {
		b, err := r.NextIPC()
		if err != nil {
			return nil, err
		}
		rec, err := decodeBatch(b, r.alloc)
		if err != nil {
			return nil, r.fail(err)
		}
		if rec.NumRows() > 0 {
			r.rows += rec.NumRows()
			if r.progress != nil {
				p := r.fetchProgress()
				r.progress(Progress{BytesPlanned: p.BytesPlanned, BytesFetched: p.BytesFetched, Rows: r.rows})
			}
			return rec, nil
		}
		rec.Release()
	}
}

// NextIPC returns the next batch as the engine wrote it: one Arrow IPC stream (schema,
// dictionaries, one record batch, end-of-stream), valid until the next call. It may hold zero
// rows (an empty result still carries its schema). io.EOF after the last one.
func (r *Reader) NextIPC() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.done {
		return nil, io.EOF
	}
	if r.split != nil {
		return r.nextSplit()
	}
	st, err := r.d.Step(r.ctx)
	if err == nil && st.Kind == Batch && !r.returned {
		err = r.confirm() // no row from stored metadata before a response confirmed it
	}
	if err != nil && r.restartable(err) {
		if err = r.restart(err); err == nil {
			return r.NextIPC()
		}
	}
	if err != nil {
		return nil, r.fail(err)
	}
	switch st.Kind {
	case Batch:
		r.returned = true
		return st.IPC, nil
	case Done:
		r.done = true
		r.d.Sess.Close() // as above: the report stays readable
		if r.settle != nil {
			r.settle()
		}
		r.mc.Flush()
		r.pf.Stop()
		if r.mc != nil && r.fp != "" {
			r.mc.KeepPlan(r.fp, r.asked)
		}
		return nil, io.EOF
	}
	return nil, r.fail(fmt.Errorf("%w: a second %v step", ErrProtocol, st.Kind))
}

// confirm makes sure, before the scan's first row is returned, that the file is still the
// version its stored metadata is of (tailcache.Link.Confirm).
func (r *Reader) confirm() error {
	if r.mc == nil {
		return nil
	}
	return r.mc.Confirm(r.ctx, r.d.Src, r.file.Size())
}

// restartable says whether err is a change of the file that the Reader can answer by
// reading it again: its metadata came from the store and no row has been returned.
func (r *Reader) restartable(err error) bool {
	if r.file == nil || r.mc == nil || r.returned || !errors.Is(err, ErrFileChanged) {
		return false
	}
	return r.mc.FromStore()
}

// restart drops the stale stored metadata, reads the file's footer again and starts the scan
// over; a file whose columns changed is ErrFileChanged (the caller has the old schema).
func (r *Reader) restart(cause error) error {
	f, old := r.file, r.schema
	if r.d.Sess != nil {
		r.d.Close()
		r.d.Sess.Close()
	}
	r.pf.Stop() // its requests meet the replaced file too
	if err := f.reload(r.ctx, r.mc); err != nil {
		return fmt.Errorf("pqscan: %s: %w", f.name, err)
	}
	if err := r.start(); err != nil {
		return err
	}
	if old != nil && !old.Equal(r.schema) {
		r.d.Sess.Close()
		return fmt.Errorf("pqscan: %s: %w (the columns changed: %v)", f.name, ErrFileChanged, cause)
	}
	return nil
}

// nextSplit is NextIPC for a split scan.
func (r *Reader) nextSplit() ([]byte, error) {
	if !r.split.Started() {
		pieces, split, err := r.split.Start(r.ctx, r.d.Src)
		if err == nil && !split {
			err = r.unsplit(pieces)
		}
		if err != nil {
			return nil, r.fail(err)
		}
		if r.split == nil {
			return r.NextIPC()
		}
	}
	b, err := r.split.Next()
	if err == io.EOF {
		r.done = true
		return nil, io.EOF
	}
	if err != nil {
		return nil, r.fail(err)
	}
	return b, nil
}

// unsplit goes on as one session, given the bytes the plan fetched.
func (r *Reader) unsplit(pieces []unitpool.Piece) error {
	sess, err := r.split.Unsplit(r.ctx, pieces)
	if err != nil {
		return err
	}
	r.d.Close()
	r.d.Sess.Close()
	r.d.Sess = sess
	if _, _, err := metadata(r.ctx, &r.d, r.alloc); err != nil {
		return err
	}
	tight := r.split.Tight()
	r.split = nil
	return splitscan.TightenAll(sess, tight)
}

// fetchProgress is the bytes planned and fetched so far: the first session's, plus the
// units' in a split scan.
func (r *Reader) fetchProgress() drive.Progress {
	p := r.d.Progress()
	if r.split != nil {
		p = r.split.Progress(p)
	}
	return p
}

func (r *Reader) fail(err error) error {
	r.err = fmt.Errorf("pqscan: %s: %w", r.name, err)
	// The instance goes back to its pool (the wasm engine) as soon as the scan ends.
	r.d.Close()
	r.d.Sess.Close()
	r.split.Close()
	r.pf.Stop()
	return r.err
}

// Report returns the engine's scan report so far (what was read and what each level of
// skipping removed); final once Next returned io.EOF or an error.
func (r *Reader) Report() Report {
	var rep Report
	if r.split != nil {
		rep = r.split.Report(r.d.Sess)
	} else {
		rep = r.d.Sess.Report()
	}
	r.mc.Report(&rep)
	if r.replayed && len(rep.MetadataFromCache) > 0 {
		rep.MetadataFromCache = append(rep.MetadataFromCache, "plan")
	}
	return rep
}

// Close ends the scan and releases the engine session. It is idempotent.
func (r *Reader) Close() error {
	if r.err == nil && !r.done {
		r.err = fmt.Errorf("pqscan: %s: %w", r.name, ErrClosed)
	}
	r.split.Close()
	r.pf.Stop()
	r.d.Close() // requests still in flight after a batch
	return r.d.Sess.Close()
}

// planID is the fingerprint of a scan's plan (tailcache.Link.Plan): its engine options but
// the File's footer-cache key, which names the process's File, not what the scan reads, and
// the file size, which the plan holds (so that a replaced file's plan replaces the old one).
// Two scans with the same fingerprint ask one version of a file for the same ranges.
func planID(eo scan.Options) string {
	eo.FileKey, eo.FileSize = "", 0
	b, err := json.Marshal(eo)
	if err != nil {
		return ""
	}
	return string(b)
}

// metadata runs the session to its Metadata step (the driver always asks for it) and returns
// the decoded footer with the Arrow schema of the session's output.
func metadata(ctx context.Context, d *drive.Driver, alloc memory.Allocator) (*FileInfo, *arrow.Schema, error) {
	st, err := d.Step(ctx)
	if err != nil {
		return nil, nil, err
	}
	if st.Kind != Metadata || st.Meta == nil {
		return nil, nil, fmt.Errorf("%w: %v before the Metadata step", ErrProtocol, st.Kind)
	}
	rdr, err := ipc.NewReader(bytes.NewReader(st.Meta.SchemaIPC), ipc.WithAllocator(alloc))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: engine schema: %v", ErrProtocol, err)
	}
	defer rdr.Release()
	return st.Meta, rdr.Schema(), nil
}

// decodeBatch reads the one record batch of an engine IPC stream. arrow-go copies the message
// bodies into its own buffers, so the batch outlives the engine's slice.
func decodeBatch(b []byte, alloc memory.Allocator) (arrow.RecordBatch, error) {
	rdr, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(alloc))
	if err != nil {
		return nil, fmt.Errorf("%w: engine IPC: %v", ErrProtocol, err)
	}
	defer rdr.Release()
	if !rdr.Next() {
		if err := rdr.Err(); err != nil {
			return nil, fmt.Errorf("%w: engine IPC: %v", ErrProtocol, err)
		}
		return nil, fmt.Errorf("%w: engine IPC stream without a record batch", ErrProtocol)
	}
	rec := rdr.RecordBatch()
	rec.Retain()
	return rec, nil
}

// ErrTighten: Reader.Tighten refused a runtime filter (a conjunct that does not parse or bind,
// a count, minMax or sorted scan past its start, or a dataset scan, which takes none yet). The
// error also wraps the engine's own error where there is one. The scan goes on as before.
var ErrTighten = errors.New("pqscan: runtime filter refused")

// Tighten adds conjuncts (WHERE syntax; several are ANDed) to the running scan's predicate:
// a join's build side as an IN set or a range learned while scanning, as Polars and Impala
// push runtime filters into a probe scan. They apply from the next round of requests: row
// groups and pages their statistics, dictionaries, bloom filters and page index exclude are
// never requested, and every row not yet read is filtered exactly. Rows Next already returned
// stay returned, and so do the rows of the round in flight (their bytes were requested, and
// their filter may have run). A limit keeps counting; without a WHERE the limit was already
// applied by position, so a tighten only removes rows from that slice. After the last batch it
// does nothing.
//
// It is not safe to call concurrently with Next (call it between two Next calls).
func (r *Reader) Tighten(where ...string) error {
	if r.done {
		return nil
	}
	if r.err != nil {
		return r.err
	}
	var parts []string
	for _, w := range where {
		if strings.TrimSpace(w) != "" {
			parts = append(parts, "("+w+")")
		}
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: no conjunct", ErrTighten)
	}
	t, ok := r.d.Sess.(scan.Tightener)
	if !ok {
		return fmt.Errorf("%w: %s: this scan takes no runtime filter (a dataset scan)", ErrTighten, r.name)
	}
	tighten := t.Tighten
	if r.split != nil {
		tighten = func(w string) error { return r.split.Tighten(t, w) }
	}
	if err := tighten(strings.Join(parts, " AND ")); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrTighten, r.name, err)
	}
	return nil
}
