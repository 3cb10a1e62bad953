package wazerohost

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/protocol"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// pushChunk bounds one push: a large range is pushed in pieces (the engine accepts any
// granularity) so that no single module buffer gets large (and, with pq_push, the reusable
// staging buffer stays small).
const pushChunk = 8 << 20

// Session is one scan in one instance: the engine protocol (scan.Session: Next, Push,
// SetFileSize, Report, Close) over the module's exports. Package pqscan drives it when a Host
// is its Engine. It is not safe for concurrent use. Close it to return the instance to the
// pool.
//
// The context given to Start bounds every call into the module: when it is done, a running
// guest is stopped, the instance is discarded and Next returns an Error step wrapping
// ctx's error.
type Session struct {
	h      *Host
	in     *instance // nil once released
	handle int32
	ctx    context.Context
	ipc    []byte // the last batch, copied out of wasm memory; reused
	report scan.Report
	err    error // set once the instance died: every later step is this error
	table  bool  // a table session (pq_open_table)
}

// Start opens a scan session; it implements scan.Engine (so pqscan.Engine: a *Host is an engine
// of the Go API). It does no I/O. When opts.FileSize is 0 the first NeedRanges holds a suffix
// range (Off < 0) and the caller must call SetFileSize before pushing.
func (h *Host) Start(ctx context.Context, opts scan.Options) (scan.Session, error) {
	s, err := h.start(ctx, opts, false)
	if err != nil {
		return nil, err // not a nil *Session in a non-nil interface
	}
	return s, nil
}

// start opens a session in an instance of the pool: pq_open with opts as JSON, or pq_open_table.
func (h *Host) start(ctx context.Context, opts any, table bool) (*Session, error) {
	js, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("wazerohost: options: %w", err)
	}
	in, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	fn, name := in.open, "pq_open"
	if table {
		fn, name = in.openTable, "pq_open_table"
		if fn == nil {
			h.release(in)
			return nil, fmt.Errorf("%w: the module has no table sessions (pq_open_table): it is the lean one", ErrABI)
		}
	}
	s := &Session{h: h, in: in, ctx: ctx, table: table}
	if err := s.openWith(fn, name, js); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) openWith(fn api.Function, name string, js []byte) error {
	p, err := s.in.write(s.ctx, js)
	if err != nil {
		return err
	}
	v, err := s.in.call(s.ctx, fn, name, api.EncodeU32(p), api.EncodeI32(int32(len(js))))
	if err != nil {
		return err
	}
	if int32(v) <= 0 {
		return s.in.failure(s.ctx, name, 0, ErrABI)
	}
	s.handle = int32(v)
	return nil
}

// live returns the instance, or the error that ended it.
func (s *Session) live() (*instance, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.in == nil {
		return nil, ErrClosed
	}
	return s.in, nil
}

// died records an error that killed the instance and gives the instance back (discarded).
func (s *Session) died(err error) error {
	if s.in != nil && s.in.dead {
		s.err = err
		s.h.release(s.in)
		s.in = nil
	}
	return err
}

// TakeIPC gives the caller the buffer of the batch the last Next returned, to keep past the
// next call, and makes the session copy the next batch into spare (nil: a new buffer), as
// scan.TakeIPC does for the native scanner: a host holding batches back (a split scan's
// unit, until its turn) keeps them without a second copy.
func (s *Session) TakeIPC(spare []byte) []byte {
	b := s.ipc
	s.ipc = spare[:0]
	return b
}

// Next advances the scan (see scan.Scanner.Next). Step.IPC is valid until the next call.
func (s *Session) Next() scan.Step {
	in, err := s.live()
	if err != nil {
		return scan.Step{Kind: scan.Error, Err: err}
	}
	k, err := in.call(s.ctx, in.next, "pq_next", api.EncodeI32(s.handle))
	if err != nil {
		return scan.Step{Kind: scan.Error, Err: s.died(err)}
	}
	switch kind := stepKind(k); kind {
	case protocol.NeedRanges, protocol.NeedRangesAsArrived:
		rs, err := s.ranges(in)
		if err != nil {
			return scan.Step{Kind: scan.Error, Err: s.died(err)}
		}
		return scan.Step{Kind: scan.NeedRanges, Ranges: rs, AsArrived: kind == protocol.NeedRangesAsArrived}
	case scan.NeedData:
		reqs, err := s.fileRanges(in)
		if err != nil {
			return scan.Step{Kind: scan.Error, Err: s.died(err)}
		}
		return scan.Step{Kind: scan.NeedData, Reqs: reqs}
	case scan.Batch:
		v, err := in.call(s.ctx, in.ipc, "pq_ipc", api.EncodeI32(s.handle))
		if err != nil {
			return scan.Step{Kind: scan.Error, Err: s.died(err)}
		}
		b, ok := in.view(v)
		if v == fail64 || !ok {
			return scan.Step{Kind: scan.Error, Err: s.died(in.failure(s.ctx, "pq_ipc", s.handle, ErrABI))}
		}
		s.ipc = append(s.ipc[:0], b...)
		return scan.Step{Kind: scan.Batch, IPC: s.ipc}
	case scan.Metadata:
		fi, err := s.metadata(in)
		if err != nil {
			return scan.Step{Kind: scan.Error, Err: s.died(err)}
		}
		return scan.Step{Kind: scan.Metadata, Meta: fi}
	case scan.NeedObjects: // a Delta session (delta.go): the objects come from DeltaSession.Objects
		st := scan.Step{Kind: scan.NeedObjects}
		raw, err := in.buffer(s.ctx, in.ranges, "pq_ranges", s.handle)
		if err == nil && len(raw) > 0 { // the checkpoint ranges of the same round, if any
			st.Reqs, err = parseFileRanges(raw)
		}
		if err != nil {
			return scan.Step{Kind: scan.Error, Err: s.died(err)}
		}
		return st
	case scan.Done:
		return scan.Step{Kind: scan.Done}
	case scan.Error:
		return scan.Step{Kind: scan.Error, Err: s.died(in.failure(s.ctx, "pq_next", s.handle, ErrScan))}
	}
	return scan.Step{Kind: scan.Error, Err: s.died(in.failure(s.ctx, "pq_next", s.handle, ErrABI))}
}

// stepKind is pq_next's answer as a step kind; 0, which no step has, for an answer outside
// the kinds' range (-1: an unknown handle).
func stepKind(k uint64) protocol.StepKind {
	if v := int32(k); v > 0 && v <= 0xff {
		return protocol.StepKind(v)
	}
	return 0
}

func (s *Session) ranges(in *instance) ([]scan.Range, error) {
	raw, err := in.buffer(s.ctx, in.ranges, "pq_ranges", s.handle)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || len(raw)%16 != 0 {
		return nil, fmt.Errorf("%w: NeedRanges with a %d-byte range list", ErrABI, len(raw))
	}
	rs := make([]scan.Range, len(raw)/16)
	for i := range rs {
		rs[i] = httprange.Range{
			Off: int64(binary.LittleEndian.Uint64(raw[16*i:])),
			Len: int64(binary.LittleEndian.Uint64(raw[16*i+8:])),
		}
	}
	return rs, nil
}

// fileRanges reads a NeedData step's requests: (file, off, len) little-endian i64 triples.
func (s *Session) fileRanges(in *instance) ([]scan.FileRange, error) {
	raw, err := in.buffer(s.ctx, in.ranges, "pq_ranges", s.handle)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: NeedData with an empty request list", ErrABI)
	}
	return parseFileRanges(raw)
}

// parseFileRanges decodes (file, off, len) little-endian i64 triples.
func parseFileRanges(raw []byte) ([]scan.FileRange, error) {
	if len(raw)%24 != 0 {
		return nil, fmt.Errorf("%w: NeedData with a %d-byte request list", ErrABI, len(raw))
	}
	rs := make([]scan.FileRange, len(raw)/24)
	for i := range rs {
		rs[i] = scan.FileRange{
			File:  int(int64(binary.LittleEndian.Uint64(raw[24*i:]))),
			Range: httprange.Range{Off: int64(binary.LittleEndian.Uint64(raw[24*i+8:])), Len: int64(binary.LittleEndian.Uint64(raw[24*i+16:]))},
		}
	}
	return rs, nil
}

// StartTable opens a table session (several files as one table, package tablescan) in one
// instance: a *Host is a pqscan.TableEngine.
func (h *Host) StartTable(ctx context.Context, opts tablescan.Options) (scan.TableSession, error) {
	s, err := h.start(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Fields returns a table session's whole schema (file columns, then partition columns) once
// its first footer is read (pq_table_fields), for tablescan.Options.Table of later sessions
// of the same files: every scan of a dataset then has the open's schema, whichever files its
// predicate skips. Nil for a single file's session, a module without the export, or before.
func (s *Session) Fields() []arrowipc.Field {
	in, err := s.live()
	if err != nil || in.tableFields == nil || !s.table {
		return nil
	}
	b, err := in.buffer(s.ctx, in.tableFields, "pq_table_fields", s.handle)
	if err != nil {
		return nil
	}
	var f []arrowipc.Field
	if json.Unmarshal(b, &f) != nil {
		return nil
	}
	return f
}

// PushFile hands the table session bytes of file file (copied into the module).
func (s *Session) PushFile(file int, off int64, b []byte) error {
	in, err := s.live()
	if err != nil {
		return err
	}
	for len(b) > 0 {
		n := min(len(b), pushChunk)
		p, err := in.write(s.ctx, b[:n])
		if err != nil {
			return s.died(err)
		}
		rc, err := in.call(s.ctx, in.pushFile, "pq_push_file", api.EncodeI32(s.handle), api.EncodeI32(int32(file)),
			api.EncodeI64(off), api.EncodeU32(p), api.EncodeI32(int32(n)))
		if err != nil {
			return s.died(err)
		}
		if int32(rc) < 0 {
			return in.failure(s.ctx, "pq_push_file", s.handle, ErrScan)
		}
		off, b = off+int64(n), b[n:]
	}
	return nil
}

// SetFileSizeOf reports the size of file file of a table session.
func (s *Session) SetFileSizeOf(file int, n int64) error {
	in, err := s.live()
	if err != nil {
		return err
	}
	rc, err := in.call(s.ctx, in.setFileSize, "pq_set_file_size", api.EncodeI32(s.handle), api.EncodeI32(int32(file)), api.EncodeI64(n))
	if err != nil {
		return s.died(err)
	}
	if int32(rc) < 0 {
		return in.failure(s.ctx, "pq_set_file_size", s.handle, ErrScan)
	}
	return nil
}

// Push hands the engine bytes of the file starting at off (see scan.Scanner.Push). b is
// copied into the module; the caller keeps ownership.
func (s *Session) Push(off int64, b []byte) error {
	in, err := s.live()
	if err != nil {
		return err
	}
	for len(b) > 0 {
		n := min(len(b), pushChunk)
		if err := s.pushOne(in, off, b[:n]); err != nil {
			return s.died(err)
		}
		off, b = off+int64(n), b[n:]
	}
	return nil
}

// pushOne pushes one chunk: into a fresh module buffer the engine keeps (pq_push_owned: one
// copy, host to guest), or, for a module without it, through the reusable staging buffer
// (pq_push, which copies again inside the guest).
func (s *Session) pushOne(in *instance, off int64, b []byte) error {
	fn, name, write := in.push, "pq_push", in.write
	if in.pushOwned != nil {
		fn, name, write = in.pushOwned, "pq_push_owned", in.writeOwned
	}
	p, err := write(s.ctx, b)
	if err != nil {
		return err
	}
	rc, err := in.call(s.ctx, fn, name, api.EncodeI32(s.handle), api.EncodeI64(off),
		api.EncodeU32(p), api.EncodeI32(int32(len(b))))
	if err != nil {
		return err
	}
	if int32(rc) < 0 {
		return in.failure(s.ctx, name, s.handle, ErrScan)
	}
	return nil
}

// SetFileSize reports the file size when Options.FileSize was 0.
func (s *Session) SetFileSize(n int64) error {
	in, err := s.live()
	if err != nil {
		return err
	}
	rc, err := in.call(s.ctx, in.setSize, "pq_set_size", api.EncodeI32(s.handle), api.EncodeI64(n))
	if err != nil {
		return s.died(err)
	}
	if int32(rc) < 0 {
		return in.failure(s.ctx, "pq_set_size", s.handle, ErrScan)
	}
	return nil
}

// Tighten ANDs where to the running scan's predicate (scan.Scanner.Tighten, through
// pq_tighten). A conjunct the engine refuses is an ErrScan error with the engine's message, and
// the scan goes on as before.
func (s *Session) Tighten(where string) error {
	in, err := s.live()
	if err != nil {
		return err
	}
	if in.tighten == nil {
		return fmt.Errorf("%w: the module does not export pq_tighten", ErrABI)
	}
	p, err := in.write(s.ctx, []byte(where))
	if err != nil {
		return s.died(err)
	}
	rc, err := in.call(s.ctx, in.tighten, "pq_tighten", api.EncodeI32(s.handle), api.EncodeU32(p), api.EncodeI32(int32(len(where))))
	if err != nil {
		return s.died(err)
	}
	if int32(rc) < 0 {
		return in.failure(s.ctx, "pq_tighten", s.handle, ErrScan)
	}
	return nil
}

var _ scan.Tightener = (*Session)(nil)

// metadata reads the Metadata step: the footer as JSON (pq_metadata) and the output schema
// (pq_schema), both copied out of the module.
func (s *Session) metadata(in *instance) (*scan.FileInfo, error) {
	b, err := in.buffer(s.ctx, in.metadata, "pq_metadata", s.handle)
	if err != nil {
		return nil, err
	}
	fi := new(scan.FileInfo)
	if err := json.Unmarshal(b, fi); err != nil {
		return nil, fmt.Errorf("%w: pq_metadata: %v", ErrABI, err)
	}
	if fi.SchemaIPC, err = in.buffer(s.ctx, in.schema, "pq_schema", s.handle); err != nil {
		return nil, err
	}
	return fi, nil
}

// Report returns the engine's report: live while the instance is alive, else the last one
// read (at Close).
func (s *Session) Report() scan.Report {
	if in, err := s.live(); err == nil {
		if r, err := readReport(s.ctx, in, s.handle); err == nil {
			s.report = r
		} else {
			s.died(err)
		}
	}
	return s.report
}

func readReport(ctx context.Context, in *instance, h int32) (scan.Report, error) {
	var r scan.Report
	b, err := in.buffer(ctx, in.report, "pq_report", h)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%w: pq_report: %v", ErrABI, err)
	}
	return r, nil
}

// Close saves the final report, closes the handle and returns the instance to the pool (a dead
// one is discarded). It is idempotent and always returns nil.
func (s *Session) Close() error {
	in := s.in
	if in == nil {
		return nil
	}
	s.in = nil
	if s.err == nil {
		s.err = ErrClosed
	}
	if !in.dead && s.handle > 0 {
		// Short calls with a fresh context: the session's may be the reason we are closing.
		ctx := context.Background()
		if r, err := readReport(ctx, in, s.handle); err == nil {
			s.report = r
		}
		if rc, err := in.call(ctx, in.closeFn, "pq_close", api.EncodeI32(s.handle)); err == nil && int32(rc) < 0 {
			in.kill() // a handle we cannot close would keep its memory in a pooled instance
		}
	}
	s.h.release(in)
	return nil
}
