package scan

import (
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/protocol"
)

// StepKind says what the engine wants or has after a call to Next; the kinds and their wire
// numbers are defined once, in internal/protocol.
type StepKind = protocol.StepKind

// The step kinds (see internal/protocol for what each asks of the host).
const (
	NeedRanges  = protocol.NeedRanges
	Batch       = protocol.Batch
	Done        = protocol.Done
	Error       = protocol.Error
	Metadata    = protocol.Metadata
	NeedData    = protocol.NeedData
	NeedObjects = protocol.NeedObjects
)

// Range is a half-open byte range [Off, Off+Len) of the Parquet file.
type Range = httprange.Range

// Step is the result of Next.
type Step struct {
	Kind   StepKind
	Ranges []Range     // NeedRanges
	IPC    []byte      // Batch
	Err    error       // Error
	Meta   *FileInfo   // Metadata
	Reqs   []FileRange // NeedData, NeedObjects (checkpoint ranges of the same round)
	// AsArrived (NeedRanges): the host may push each range as it arrives and call Next
	// before the others are in; the engine then makes what progress they allow and asks
	// again for what it still misses, the ranges in flight included (fetch only the rest).
	// Without it, push every range before calling Next. See Session and pipeline.go.
	AsArrived bool
}

// FileRange is a byte range of file File of a table session's file table (Range for it).
type FileRange struct {
	File int
	Range
}
