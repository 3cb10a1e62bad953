package scan

import "github.com/pqscan/pqscan/internal/httprange"

// StepKind says what the engine wants or has after a call to Next.
type StepKind uint8

const (
	// NeedRanges: the host must Push the bytes of every range in Step.Ranges (in any order and
	// granularity, extra bytes welcome), then call Next again.
	NeedRanges StepKind = iota + 1
	// Batch: Step.IPC holds one complete Arrow IPC stream (schema message, dictionary batches,
	// one record batch, end-of-stream marker). The slice is valid until the next call to Next.
	Batch
	// Done: the scan finished; every matching row has been returned.
	Done
	// Error: the scan failed with Step.Err; further calls return the same error.
	Error
	// Metadata: Step.Meta holds the decoded footer (only with Options.Metadata, once, right
	// after the footer was decoded). Call Next to go on.
	Metadata
	// NeedData: a session over several files (a table) needs Step.Reqs, byte ranges of the
	// files of its file table: PushFile the bytes of every one (a range with Off < 0 is a
	// suffix: SetFileSizeOf first), then call Next. One step may span many files, so that the
	// footers of all files cost one round trip.
	NeedData
)

func (k StepKind) String() string {
	switch k {
	case NeedRanges:
		return "NeedRanges"
	case Batch:
		return "Batch"
	case Done:
		return "Done"
	case Error:
		return "Error"
	case Metadata:
		return "Metadata"
	case NeedData:
		return "NeedData"
	}
	return "StepKind(?)"
}

// Range is a half-open byte range [Off, Off+Len) of the Parquet file.
type Range = httprange.Range

// Step is the result of Next.
type Step struct {
	Kind   StepKind
	Ranges []Range     // NeedRanges
	IPC    []byte      // Batch
	Err    error       // Error
	Meta   *FileInfo   // Metadata
	Reqs   []FileRange // NeedData
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
