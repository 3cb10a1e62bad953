// Package protocol is the vocabulary the engine and its hosts share across the module
// boundary: the step kinds pq_next answers, the error kinds pq_error_kind answers, and the
// engine's default memory cap (wasm/ABI.md). It is defined here once, with no dependencies,
// so that the engine (internal/scan), the module (wasm), the Go hosts (internal/drive,
// wazerohost) and the Delta session all use the same numbers; the JS bridge spells them in
// jsbridge/src/module.js (step kinds) and jsbridge/src/errors.js (error codes), and
// jsbridge_test.go fails when either disagrees with this file.
//
// The numbers are the wire form: never renumber one; add new kinds at the end.
package protocol

// StepKind says what the engine wants or has after a call to Next (pq_next's answer).
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
	// NeedObjects: a Delta session asks for whole log objects: Objects lists them; the host
	// answers every one with PushObject before calling Next again. When the same log round
	// also reads checkpoint Parquet (a checkpoint and the commits after it), the step's Reqs
	// carry those reads' first ranges, as a NeedData step's: a host may fetch and push them
	// (PushFile) together with the objects, so that the round costs one round trip; a host
	// that ignores them is asked for them again by the NeedData step that follows.
	NeedObjects
	// NeedRangesAsArrived is the wire form of a NeedRanges step with Step.AsArrived: the same
	// ranges, whose bytes the host may push as they arrive, calling Next after each. A Step
	// never has this Kind (it has NeedRanges and AsArrived); only pq_next answers it, a kind of
	// its own so that no other step changes for a host.
	NeedRangesAsArrived
)

var stepNames = [...]string{
	NeedRanges:          "NeedRanges",
	Batch:               "Batch",
	Done:                "Done",
	Error:               "Error",
	Metadata:            "Metadata",
	NeedData:            "NeedData",
	NeedObjects:         "NeedObjects",
	NeedRangesAsArrived: "NeedRangesAsArrived",
}

func (k StepKind) String() string {
	if int(k) < len(stepNames) && stepNames[k] != "" {
		return stepNames[k]
	}
	return "StepKind(?)"
}

// The kinds of the objects a NeedObjects step asks for (the "kind" of pq_objects' JSON): the
// snapshot sessions' get and list, and a discovery's page, walk and stat
// (internal/dataset/discover says what each answer is).
const (
	ObjectGet  = "get"  // a whole object under the table root (or absolute), found or not
	ObjectList = "list" // the entries under a prefix, as JSON
	ObjectPage = "page" // a listing page at an absolute URL
	ObjectWalk = "walk" // the files below a local folder, as JSON
	ObjectStat = "stat" // whether a local path is a folder
)

// objectKinds lists them, for the bridge's check (jsbridge/src/module.js OBJECT_* constants).
var objectKinds = [...]string{ObjectGet, ObjectList, ObjectPage, ObjectWalk, ObjectStat}

// ErrorKind classifies a failure the way the native engine's sentinel errors do, so that the
// classification crosses the module boundary: the module answers it with pq_error_kind, the
// wazero host wraps the kind's sentinel (internal/errkind) and the JS bridge sets
// PqscanError.code from it. ErrOther is a failure no sentinel below describes: the host's own
// classification stands (a "scan" error, a "delta" error).
type ErrorKind uint8

const (
	ErrOther ErrorKind = iota
	// ErrCorrupt: the file's metadata contradicts itself or the file, or a page's CRC its
	// bytes (scan.ErrCorrupt).
	ErrCorrupt
	// ErrNotParquet: the bytes are not a Parquet file (scan.ErrNotParquet).
	ErrNotParquet
	// ErrEncrypted: Parquet Modular Encryption (scan.ErrEncrypted).
	ErrEncrypted
	// ErrMemoryCap: the memory cap would be exceeded (scan.ErrMemoryCap).
	ErrMemoryCap
	// ErrFileChanged: the host gave another size for the same file (scan.ErrFileChanged).
	ErrFileChanged
	// ErrSchemaMismatch: a table's file does not fit the table schema (tablescan.ErrSchema).
	ErrSchemaMismatch
	// ErrUnsupportedFeature: a Delta table needs a feature this reader does not implement
	// (delta.ErrUnsupportedFeature).
	ErrUnsupportedFeature
	// ErrDeltaMalformed … ErrDeltaPartition: a Delta log the engine cannot replay, one kind
	// per sentinel of internal/dataset/delta, so that a Go host over the module answers
	// errors.Is for each as the native replay does.
	ErrDeltaMalformed
	ErrDeltaSchema
	ErrDeltaVersionGap
	ErrDeltaVersionNotFound
	ErrDeltaNotATable
	ErrDeltaNoMetadata
	ErrDeltaNoProtocol
	ErrDeltaMissingFile
	ErrDeltaPartition
	// ErrIcebergMalformed … ErrIcebergOutsideTable: an Iceberg table's metadata the engine
	// cannot read, one kind per sentinel of internal/dataset/iceberg (its unsupported
	// features are ErrUnsupportedFeature).
	ErrIcebergMalformed
	ErrIcebergNotATable
	ErrIcebergSnapshotNotFound
	ErrIcebergMissingFile
	ErrIcebergOutsideTable
	// ErrNeedsFullModule: the lean module (single files, common codecs) met a page whose codec
	// it leaves out (codec.ErrNotInModule); it fails before any row, and a host runs the same
	// query again in the full module.
	ErrNeedsFullModule
	// ErrOptions … ErrIceberg: a table discovery's failures (internal/dataset/discover): the
	// options contradict the dataset, the dataset is not there, a listing page the engine
	// cannot use, and the snapshot session's failures no sentinel above classifies, by table
	// format. They come after every other kind, so that a more precise one wins (errkind.Of).
	ErrOptions
	ErrSource
	ErrListing
	ErrDelta
	ErrIceberg
)

// errorCodes are the JS bridge's PqscanError codes of the kinds (jsbridge/src/errors.js
// ERROR_KINDS): the Go sentinels as strings, the Delta kinds sharing "delta" and the Iceberg ones
// "iceberg".
var errorCodes = [...]string{
	ErrOther:                "",
	ErrCorrupt:              "corrupt",
	ErrNotParquet:           "not-parquet",
	ErrEncrypted:            "encrypted",
	ErrMemoryCap:            "memory-cap",
	ErrFileChanged:          "file-changed",
	ErrSchemaMismatch:       "schema-mismatch",
	ErrUnsupportedFeature:   "unsupported",
	ErrDeltaMalformed:       "delta",
	ErrDeltaSchema:          "delta",
	ErrDeltaVersionGap:      "delta",
	ErrDeltaVersionNotFound: "delta",
	ErrDeltaNotATable:       "delta",
	ErrDeltaNoMetadata:      "delta",
	ErrDeltaNoProtocol:      "delta",
	ErrDeltaMissingFile:     "delta",
	ErrDeltaPartition:       "delta",

	ErrIcebergMalformed:        "iceberg",
	ErrIcebergNotATable:        "iceberg",
	ErrIcebergSnapshotNotFound: "iceberg",
	ErrIcebergMissingFile:      "iceberg",
	ErrIcebergOutsideTable:     "iceberg",
	ErrNeedsFullModule:         "needs-full-module",
	ErrOptions:                 "options",
	ErrSource:                  "source",
	ErrListing:                 "listing",
	ErrDelta:                   "delta",
	ErrIceberg:                 "iceberg",
}

// NumErrorKinds is one more than the largest ErrorKind.
const NumErrorKinds = len(errorCodes)

// Code is the JS bridge's PqscanError code of the kind ("" for ErrOther and unknown kinds:
// the bridge's own code stands).
func (k ErrorKind) Code() string {
	if int(k) < len(errorCodes) {
		return errorCodes[k]
	}
	return ""
}

// DefaultMemoryCap is the engine's memory cap when the options set none (scan.Options
// MemoryCap): the bound of one page, dictionary, footer or batch, and of what a table or a
// Delta snapshot holds at once.
const DefaultMemoryCap = 256 << 20
