package pqscan

import (
	"context"

	"github.com/pqscan/pqscan/internal/scan"
)

// Engine runs scans. It is the seam between the I/O this package does (fetching ranges from a
// Source, decoding Arrow IPC with arrow-go) and the sans-IO engine that decides which bytes
// to read and turns them into Arrow: Native links package scan directly; the wazero host
// (package wazerohost) runs the same engine compiled to WebAssembly behind the same
// interface, so both are driven by one loop and can be compared byte for byte.
//
// Implementations must be safe for concurrent use; each Session is used by one goroutine.
type Engine interface {
	// Start begins one scan. It does no I/O: the session asks for bytes through Next.
	Start(ctx context.Context, opts scan.Options) (Session, error)
}

// Session is one scan inside an Engine, with the protocol of scan.Scanner: call Next; on
// NeedRanges Push the bytes of every range (any order or granularity, extra bytes allowed) and
// call Next again; on Batch the Step.IPC bytes are valid until the next call; stop at Done or
// Error. Close releases the session (for the wasm engine: its handle and instance).
type Session interface {
	Next() scan.Step
	Push(off int64, b []byte) error
	// Schema is a schema-only Arrow IPC stream, available once the footer has been decoded.
	Schema() ([]byte, error)
	Report() scan.Report
	Close() error
}

// Native is the engine linked into the Go binary (package scan), without WebAssembly: the
// fastest choice and the reference the wasm engine is tested against.
type Native struct{}

// Start implements Engine.
func (Native) Start(_ context.Context, opts scan.Options) (Session, error) {
	s, err := scan.New(opts)
	if err != nil {
		return nil, err
	}
	return nativeSession{s}, nil
}

type nativeSession struct{ *scan.Scanner }

func (nativeSession) Close() error { return nil }
