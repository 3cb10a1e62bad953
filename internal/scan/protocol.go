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
//     With Step.AsArrived the host may instead push each range as it arrives and call Next
//     at once, before the rest is in (a host that does not is still right).
//   - Metadata (only with Options.Metadata): Step.Meta holds the decoded footer, once, right
//     after it was decoded and before any other step; call Next to go on, or Close when the
//     metadata was all the host wanted.
//   - Batch: Step.IPC is one Arrow IPC stream, valid until the next call.
//   - Done or Error: the scan is over; later calls return the same step.
//
// A driver must fail a scan whose engine asks again for exactly the ranges just pushed,
// without a batch in between: pushing them changed nothing, so looping would never end.
//
// Rounds taken as they arrive (AsArrived). The data rounds of a scan are where the
// engine's work is: the exact filter decodes the predicate columns' pages of every row group
// of the window before it can ask for the other columns' pages over the matching rows, and
// with whole rounds that work sits between the last predicate response and the next request
// (Q2 of the benchmark: 55-67 ms of decoding). So those rounds of a scan with a filter are
// marked AsArrived: the host pushes each range as it arrives and calls Next; the engine
// filters the row groups whose bytes are all in (in window order while an offset or a limit
// is left, so that they count the same rows; else in any order), and answers
// NeedRanges with what the round still misses — the ranges in flight included, since the
// engine does not know what the host has asked for — plus the output pages of the row groups
// filtered so far (within the same memory budget as the whole round's). The host keeps its
// requests in flight and fetches only the parts of a step not in flight; a step with nothing
// new waits for the next arrival. A scan without a filter takes its data round the same way:
// the row groups of the window whose bytes are all in are decoded, in window order, while
// the rest arrive, so its Batch steps come between AsArrived steps. A Batch step therefore
// does not end the round: the host keeps its requests in flight across it. Any other step
// ends the round: the host drops what is still in flight (the engine asks again for what it
// still needs), so no request outlives those steps and every other state may keep assuming
// whole rounds. The stall
// guard applies to the parts fetched: the same new ranges again after they were pushed,
// with nothing in between, is a stall; the round trips and requests of the report count
// what was asked while nothing else was outstanding, as with whole rounds.
//
// Why this design rather than prefetch hints (ranges the host should start fetching
// before the engine needs them): the output pages depend on the filter's result, which is
// what takes the time, so a hint could only come from the same per-row-group progress, and
// it would need a second kind of range in every host; here the one NeedRanges step stays
// the one request kind, a host that ignores AsArrived sees the steps of whole rounds, and the
// engine's states other than the data rounds are untouched.
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
