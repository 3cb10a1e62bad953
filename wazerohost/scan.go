package wazerohost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// Scan is a Session driven by an httpclient.Source: Next fetches what the engine asks for (each
// NeedRanges batch in parallel through Source.Fetch) until a batch is ready. It is not safe
// for concurrent use. Close it (after io.EOF or an error too; Close is idempotent).
type Scan struct {
	sess  *Session
	src   httpclient.Source
	err   error // sticky end: io.EOF or the failure
	alloc memory.Allocator
	sized bool              // SetFileSize was called
	last  []httprange.Range // the previous NeedRanges, when no batch came since
}

// Scan starts a scan of src. When opts.FileSize is 0 the size is learned from src first (for
// the HTTP Source that request also fetches the tail, so the engine's footer read is free).
// ctx bounds only the start; each Next takes its own.
func (h *Host) Scan(ctx context.Context, src httpclient.Source, opts scan.Options) (*Scan, error) {
	if opts.FileSize <= 0 {
		n, err := src.Size(ctx)
		if err != nil {
			return nil, err
		}
		opts.FileSize = n
	}
	sess, err := h.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Scan{sess: sess, src: src, alloc: memory.DefaultAllocator}, nil
}

// Next returns the next record batch, or io.EOF after the last one. The caller must Release
// it. Errors wrap the Source's errors (httpclient.ErrFileChanged, …), ctx's, ErrScan (the
// engine's message), ErrTrap, ErrOutOfMemory.
func (s *Scan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := s.next(ctx)
	if err != nil {
		return nil, err
	}
	// Session.Next already copied the bytes out of wasm memory; arrow-go may keep slices of
	// its input, and s.sess reuses that buffer, so the reader gets its own copy.
	return readRecord(bytes.NewReader(bytes.Clone(b)), s.alloc)
}

// NextIPC returns the next batch as one Arrow IPC stream (schema, dictionaries, one record
// batch, end-of-stream), valid until the next call, or io.EOF after the last one.
func (s *Scan) NextIPC(ctx context.Context) ([]byte, error) { return s.next(ctx) }

func (s *Scan) next(ctx context.Context) ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.sess.ctx = ctx
	for {
		st := s.sess.Next()
		switch st.Kind {
		case scan.NeedRanges:
			if slices.Equal(st.Ranges, s.last) {
				return nil, s.end(fmt.Errorf("%w: %v", ErrStalled, st.Ranges))
			}
			s.last = append(s.last[:0], st.Ranges...)
			if err := s.sizeIfAsked(ctx, st.Ranges); err != nil {
				return nil, s.end(err)
			}
			if err := s.src.Fetch(ctx, st.Ranges, s.sess.Push); err != nil {
				return nil, s.end(err)
			}
		case scan.Batch:
			s.last = s.last[:0]
			return st.IPC, nil
		case scan.Done:
			return nil, s.end(io.EOF)
		default:
			return nil, s.end(st.Err)
		}
	}
}

// sizeIfAsked follows the protocol for a scan started without a size (the Source reported 0):
// a suffix range (Off < 0) asks the host to call SetFileSize before pushing.
func (s *Scan) sizeIfAsked(ctx context.Context, rs []httprange.Range) error {
	if s.sized || !slices.ContainsFunc(rs, func(r httprange.Range) bool { return r.Off < 0 }) {
		return nil
	}
	n, err := s.src.Size(ctx)
	if err != nil {
		return err
	}
	s.sized = true
	return s.sess.SetFileSize(n)
}

// end records the scan's end and gives the instance back right away (keeping the report).
func (s *Scan) end(err error) error {
	if err == nil {
		err = fmt.Errorf("%w: error step without an error", ErrABI)
	}
	s.err = err
	s.sess.Close()
	return err
}

// Report returns the engine's report: final after io.EOF, an error or Close, live before.
func (s *Scan) Report() scan.Report { return s.sess.Report() }

// Close ends the scan and returns its instance. It is idempotent and returns nil.
func (s *Scan) Close() error {
	if s.err == nil {
		s.err = ErrClosed
	}
	return s.sess.Close()
}

// RunRaw runs a whole scan, handing each batch's IPC stream to onIPC (valid only during the
// call: copy it to keep it), and returns the final report.
func (h *Host) RunRaw(ctx context.Context, src httpclient.Source, opts scan.Options, onIPC func(b []byte) error) (scan.Report, error) {
	s, err := h.Scan(ctx, src, opts)
	if err != nil {
		return scan.Report{}, err
	}
	defer s.Close()
	for {
		b, err := s.NextIPC(ctx)
		if errors.Is(err, io.EOF) {
			return s.Report(), nil
		}
		if err == nil {
			err = onIPC(b)
		}
		if err != nil {
			s.Close()
			return s.Report(), err
		}
	}
}

// readRecord decodes the single record batch of one IPC stream.
func readRecord(r io.Reader, alloc memory.Allocator) (arrow.RecordBatch, error) {
	rdr, err := ipc.NewReader(r, ipc.WithAllocator(alloc))
	if err != nil {
		return nil, fmt.Errorf("wazerohost: reading the module's IPC stream: %w", err)
	}
	defer rdr.Release()
	if !rdr.Next() {
		if err := rdr.Err(); err != nil {
			return nil, fmt.Errorf("wazerohost: reading the module's IPC stream: %w", err)
		}
		return nil, errors.New("wazerohost: the module's IPC stream has no record batch")
	}
	rec := rdr.RecordBatch()
	rec.Retain()
	return rec, nil
}
