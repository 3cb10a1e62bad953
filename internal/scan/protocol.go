package scan

import "context"

// Session is the engine protocol, the one seam every host drives: the native engine
// (*Scanner), the wasm module's sessions (package wazerohost, and jsbridge in JavaScript) and
// any test double implement it, and one driver loop per language runs it (the Go API's
// reader in package pqscan; Core.drive in jsbridge).
//
// The host calls Next and acts on the step:
//   - NeedRanges: Push the bytes of every range (any order or granularity, extra bytes
//     allowed), then call Next again. A range with Off < 0 is a suffix of -Off bytes, asked
//     when Options.FileSize was 0: call SetFileSize with the real size before pushing.
//   - Metadata (only with Options.Metadata): Step.Meta holds the decoded footer, once, right
//     after it was decoded and before any other step; call Next to go on, or Close when the
//     metadata was all the host wanted.
//   - Batch: Step.IPC is one Arrow IPC stream, valid until the next call.
//   - Done or Error: the scan is over; later calls return the same step.
//
// A driver must fail a scan whose engine asks again for exactly the ranges just pushed,
// without a batch in between: pushing them changed nothing, so looping would never end.
//
// A Session is used by one goroutine. Close releases it (for the wasm engine: its handle and
// instance) and is idempotent.
type Session interface {
	Next() Step
	Push(off int64, b []byte) error
	SetFileSize(n int64) error
	Report() Report
	Close() error
}

// TableSession is a Session over several files read as one table (package tablescan): its
// NeedData steps name files by their index in the session's file table; the host pushes their
// bytes with PushFile and reports a file's size, when it asked for a suffix, with
// SetFileSizeOf. Push and SetFileSize (file-less) are errors on it.
type TableSession interface {
	Session
	PushFile(file int, off int64, b []byte) error
	SetFileSizeOf(file int, n int64) error
}

// Engine starts sessions. Implementations must be safe for concurrent use. Start does no
// I/O; ctx bounds the calls into the engine for the session's life (for the wasm engine:
// every call into the module).
type Engine interface {
	Start(ctx context.Context, opts Options) (Session, error)
}

// Close implements Session; the native scanner holds nothing that needs releasing.
func (s *Scanner) Close() error { return nil }

var _ Session = (*Scanner)(nil)
