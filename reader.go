package pqscan

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/scan"
)

// ScanOptions select what a scan returns.
type ScanOptions struct {
	// Columns are top-level names or dotted paths to nested fields; empty means all columns.
	Columns []string
	// Where is a SQL WHERE subset (see package prune); empty means every row.
	Where string
	// Limit caps the rows returned; 0 means no limit.
	Limit int64
	// Offset skips that many matching rows first.
	Offset int64
	// BatchRows caps the rows per batch; 0 means the engine's default (65536).
	BatchRows int
	// NoPrune disables every skipping level except limit/offset (for differential testing).
	NoPrune bool
}

// Reader iterates the record batches of one scan. It is not safe for concurrent use.
type Reader struct {
	ctx     context.Context
	f       *File
	sess    Session
	schema  *arrow.Schema
	pending *scan.Step // a step taken by Scan while learning the schema
	last    []httprange.Range
	done    bool
	err     error
}

// Scan starts a scan. The returned Reader fetches ranges as Next needs them; ctx bounds the
// whole scan (every fetch made by Next).
func (f *File) Scan(ctx context.Context, o ScanOptions) (*Reader, error) {
	opts := f.scanOptions()
	opts.Columns, opts.Where = o.Columns, o.Where
	opts.Limit, opts.Offset, opts.BatchRows, opts.NoPrune = o.Limit, o.Offset, o.BatchRows, o.NoPrune
	sess, err := f.opts.Engine.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("pqscan: %w", err)
	}
	for _, p := range f.tail {
		if err := sess.Push(p.off, p.b); err != nil {
			sess.Close()
			return nil, fmt.Errorf("pqscan: %w", err)
		}
	}
	r := &Reader{ctx: ctx, f: f, sess: sess}
	// The footer bytes are already pushed, so the first step normally decodes it (and plans
	// the projection and filter): invalid options fail here rather than at the first Next.
	var b []byte
	for {
		st := sess.Next()
		if st.Kind == scan.Error {
			sess.Close()
			return nil, fmt.Errorf("pqscan: %w", st.Err)
		}
		if b, err = sess.Schema(); err == nil {
			r.pending = &st
			break
		}
		if st.Kind != scan.NeedRanges || checkProgress(&r.last, st.Ranges) != nil {
			sess.Close()
			return nil, fmt.Errorf("pqscan: %w: %v before the schema", scan.ErrInternal, st.Kind)
		}
		if err := f.src.Fetch(ctx, st.Ranges, sess.Push); err != nil {
			sess.Close()
			return nil, fmt.Errorf("pqscan: %w", err)
		}
	}
	rdr, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(f.opts.Allocator))
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("pqscan: %w: engine schema: %v", scan.ErrInternal, err)
	}
	r.schema = rdr.Schema()
	rdr.Release()
	return r, nil
}

// Schema returns the schema of the batches (the projected columns).
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Next returns the next non-empty batch, io.EOF after the last one, or the scan's error (every
// later call returns the same). The caller owns the batch and should Release it.
func (r *Reader) Next() (arrow.RecordBatch, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.done {
		return nil, io.EOF
	}
	for {
		if err := r.ctx.Err(); err != nil {
			return nil, r.fail(err)
		}
		var st scan.Step
		if r.pending != nil {
			st, r.pending = *r.pending, nil
		} else {
			st = r.sess.Next()
		}
		switch st.Kind {
		case scan.NeedRanges:
			if err := checkProgress(&r.last, st.Ranges); err != nil {
				return nil, r.fail(err)
			}
			if err := r.f.src.Fetch(r.ctx, st.Ranges, r.sess.Push); err != nil {
				return nil, r.fail(err)
			}
		case scan.Batch:
			r.last = nil
			rec, err := r.decode(st.IPC)
			if err != nil {
				return nil, r.fail(err)
			}
			if rec.NumRows() == 0 {
				rec.Release()
				continue
			}
			return rec, nil
		case scan.Done:
			r.done = true
			return nil, io.EOF
		case scan.Error:
			return nil, r.fail(st.Err)
		default:
			return nil, r.fail(fmt.Errorf("%w: step %v", scan.ErrInternal, st.Kind))
		}
	}
}

// decode reads the one record batch of an IPC stream. arrow-go copies the message bodies into
// its own buffers, so the batch outlives the engine's IPC slice.
func (r *Reader) decode(b []byte) (arrow.RecordBatch, error) {
	rdr, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(r.f.opts.Allocator))
	if err != nil {
		return nil, fmt.Errorf("%w: engine IPC: %v", scan.ErrInternal, err)
	}
	defer rdr.Release()
	if !rdr.Next() {
		if err := rdr.Err(); err != nil {
			return nil, fmt.Errorf("%w: engine IPC: %v", scan.ErrInternal, err)
		}
		return nil, fmt.Errorf("%w: engine IPC stream without a record batch", scan.ErrInternal)
	}
	rec := rdr.RecordBatch()
	rec.Retain()
	return rec, nil
}

func (r *Reader) fail(err error) error {
	r.err = fmt.Errorf("pqscan: %w", err)
	return r.err
}

// Report returns the engine's scan report so far (what was read and what each level of
// skipping removed).
func (r *Reader) Report() scan.Report { return r.sess.Report() }

// Close ends the scan and releases the engine session.
func (r *Reader) Close() error {
	if r.err == nil && !r.done {
		r.err = fmt.Errorf("pqscan: reader closed")
	}
	return r.sess.Close()
}
