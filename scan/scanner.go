package scan

import "errors"

// Scanner is the sans-IO scan engine for one Parquet file. It is not safe for concurrent use.
//
// Protocol: call Next; on NeedRanges push the bytes of every range (Push accepts any order,
// granularity and extra bytes) and call Next again; on Batch consume Step.IPC before the next
// call; stop at Done or Error.
type Scanner struct {
	opts Options
	err  error
}

// New starts a scan. It does no I/O; the first Next asks for the file's tail.
func New(opts Options) (*Scanner, error) {
	opts.normalize()
	return &Scanner{opts: opts, err: errors.New("scan: engine not implemented yet")}, nil
}

// Next advances the scan. See Scanner.
func (s *Scanner) Next() Step { return Step{Kind: Error, Err: s.err} }

// Push hands the engine bytes of the file starting at off. The engine copies what it keeps.
func (s *Scanner) Push(off int64, b []byte) error { return nil }

// SetFileSize reports the file size learned by the host when Options.FileSize was 0.
func (s *Scanner) SetFileSize(n int64) error { s.opts.FileSize = n; return nil }

// Report returns the scan report so far (see Report).
func (s *Scanner) Report() Report { return Report{} }
