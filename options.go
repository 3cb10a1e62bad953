package pqscan

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablehost"
)

// Options configure Open.
type Options struct {
	// Engine runs the scans; nil means Native{}. A *wazerohost.Host runs them inside the
	// WebAssembly module instead (sandboxed: memory cap, deadline, no I/O in the guest).
	Engine Engine
	// HTTP configures the client used for http(s) URLs.
	HTTP HTTPOptions
	// MemoryCap bounds the bytes the engine allocates for one page, dictionary or batch; 0
	// means the engine's default (256 MiB). A scan's own ScanOptions.MemoryCap wins.
	MemoryCap int64
	// TailSize is the size of the first tail read; 0 means 64 KiB.
	TailSize int64
	// Threads bounds the sessions one scan decodes on at once: a scan with enough data left
	// after the statistics (two units of 8 MiB) is cut into units (row groups, or runs of a
	// large row group's pages) decoded at once, within MemoryCap, and returned in file order,
	// the same rows as one session. With the wasm engine each unit runs on an instance of the
	// Host's pool (the plan is made natively). A dataset's scan is cut into runs of whole
	// files (those its partitions and table statistics leave), each a table session of its own.
	// 0 means runtime.NumCPU(); 1 runs every scan as one session. A count, min/max, ORDER BY,
	// Explain and a WHERE with a limit or offset run as one session whatever it says, and so
	// does a dataset's scan with a limit or offset or a file of unknown size.
	Threads int
	// Allocator allocates the arrow-go buffers of returned batches; nil means the Go allocator.
	Allocator memory.Allocator
	// PathStyleListing lists http(s) dataset folders and globs path-style
	// (<origin>/<bucket>?list-type=2…, the URL's first path segment being the bucket: MinIO,
	// GCS's XML API) instead of virtual-hosted style (<origin>/?list-type=2…).
	PathStyleListing bool
	// DeltaVersion selects the snapshot of a Delta table source (OpenDataset on a folder with
	// a _delta_log/) to read: nil means the latest version, a version the log cannot
	// reconstruct is an error. It does not apply to other sources.
	DeltaVersion *int64
	// DeltaAsOf, when not zero, selects the snapshot of a Delta table source committed at or
	// before this time instead: the latest version whose commit timestamp is not after it
	// (commitInfo.inCommitTimestamp where the table enables inCommitTimestamp, else the commit
	// file's modification time: the local file's, or the LastModified of an http(s) folder's
	// listing; a server that does not list cannot answer it). A time before the first commit
	// is an error, one after the latest reads the latest. With DeltaVersion it is an error.
	DeltaAsOf time.Time
	// IcebergWhere is a predicate every scan of an Iceberg table source implies (a SQL WHERE
	// subset, as ScanOptions.Where), added to each scan's own: what cannot hold a matching
	// row is never read (manifests by their partition summaries, files by their partition
	// values and metrics), and Files lists only the files it may match.
	IcebergWhere string
	// IcebergSnapshotID selects the snapshot of an Iceberg table source (a folder with a
	// metadata/, or a metadata file) by its snapshot-id instead of the current one; an id the
	// metadata does not hold is an error. A snapshot other than the current one reads with its
	// own schema (its schema-id), not the table's current one.
	IcebergSnapshotID *int64
	// IcebergAsOf, when not zero, selects the snapshot of an Iceberg table source that was
	// current at this time instead: the latest snapshot-log entry at or before it (else the
	// latest snapshot by timestamp-ms). A time before the first snapshot is an error, as is
	// IcebergAsOf with IcebergSnapshotID. Neither option applies to other sources, nor the
	// Delta ones to an Iceberg table.
	IcebergAsOf time.Time
	// PathMap reads the files an Iceberg table's metadata names under a prefix (as written:
	// "s3://other-bucket/t/data", "hdfs://nn:8020/warehouse") from a base: an http(s) URL, a
	// file: URL or a local folder. The longest prefix matching at a path-segment boundary
	// wins, the table location's own mapping onto the opened folder included. Each base is
	// in the open's scope as an AllowPrefixes entry is (the caller named it); a mapped path
	// that leaves its base ("../") is refused as any other out-of-scope path is, and a remote
	// table's files never map to local ones. ParsePathMap reads the CLI's text form.
	PathMap map[string]string
	// SchemaByPosition resolves each dataset file's columns against the table's by position
	// (the i-th table column is the file's i-th column, whatever its name) instead of by
	// name: for files whose writer renamed columns. It does not apply to single files.
	SchemaByPosition bool
	// UnionSchema makes a dataset's table schema the union of all its files' columns (in the
	// order first seen, each typed by the widest of its types) instead of the first file's;
	// OpenDataset then reads every file's footer. A Delta table's schema is its log's
	// whatever this says.
	UnionSchema bool
	// DeferSchema makes OpenDataset read no footer: the table schema is formed by the first
	// scan, from the first file its partition predicate keeps (so a query of one partition
	// fetches no footer of another), and kept for Dataset.Schema and every later scan;
	// Schema is nil before. A Delta table's schema is its log's, read at open either way.
	// Over the wasm engine, whose sessions hand over only the projected schema, Schema comes
	// from the first scan of every column and each scan forms its own table schema.
	DeferSchema bool
	// AllowPrefixes are locations, besides the sources named, that a table may make the
	// reader fetch: http(s) URL prefixes, file: URLs or local paths. A table's log, a listing
	// and a redirect may only lead to the named sources (a file, a folder or table root, a
	// glob's fixed part) and these; anything else fails with ErrOutOfScope before a request
	// is sent or a file opened. A prefix ending in '/' is a folder; any other covers that
	// object and the folder of the same name ("…/shared" covers "…/shared/x", not
	// "…/shared-secret"). A local prefix also covers its real path.
	AllowPrefixes []string
	// MetadataCache keeps each http(s) file's metadata (the bytes of its tail and page
	// indexes as fetched) across Opens and processes, keyed by URL with the file's size and
	// validator (ETag, else Last-Modified): an Open it holds makes no request, and a scan's
	// first request is a data request. Every response is checked against the stored size and
	// validator (If-Match / If-Unmodified-Since, Content-Range): a file replaced since is read
	// again and its scan starts over, transparently, before any row is returned (after one,
	// ErrFileChanged as without a cache). A file served without either validator is not
	// kept. A complete scan also keeps its plan (the data ranges it read, under its options),
	// which a returning scan with the same options fetches at once before its engine asks.
	// nil: no cache (MetadataDir gives a folder; the CLI's --metadata-cache). The scan
	// report's MetadataFromCache, RequestsSaved and RoundTripsSaved say what it saved.
	MetadataCache MetadataStore
	// RedirectOrigins are origins ("https://cdn.example.com") a redirect may lead to outside
	// the scope; by default a redirect is followed only within it (the sources named and
	// AllowPrefixes).
	RedirectOrigins []string
}

// ScanOptions select what a scan returns and tune its cost rules. They are the engine's
// options (defined once, in the engine, with their JSON wire form): every option the wasm
// module and the JavaScript bridge accept is settable here. The driver sets the host fields
// (FileSize, Metadata, FileKey) itself; values given for them are ignored.
//
// The fields users set most: Columns (top-level names or dotted paths; empty means all),
// Where (a SQL WHERE subset), Limit and Offset, BatchRows; and, for the cost rules,
// RoundTripBytes, MaxGap, DictionaryArrays, Explain and NoPrune.
type ScanOptions = scan.Options

// newScope is the scope of an open of srcs (internal/openscope).
func newScope(srcs []string, opts Options) (*openscope.Scope, error) {
	return openscope.New(srcs, openscope.Options{AllowPrefixes: opts.AllowPrefixes, PathMap: opts.PathMap, RedirectOrigins: opts.RedirectOrigins})
}

// ParsePathMap parses the text form of Options.PathMap: "PREFIX=BASE,PREFIX=BASE,…" (the
// CLI's --path-map and PQSCAN_ICEBERG_PATHS). Each entry splits at the first '=' that a base
// follows (an http(s) URL, a file: URL, or a local folder starting with '/', './' or '../'),
// so a prefix may hold '='; a prefix or base holding ',' needs the map form. A malformed
// spec is an ErrSource error saying what is wrong.
func ParsePathMap(spec string) (map[string]string, error) {
	return tablehost.ParsePathMap(spec)
}

// MetadataStore keeps values by key across processes (Options.MetadataCache): Get returns
// (nil, nil) for a missing key; it may drop any value at any time. Values are entries with
// a version, their key and a checksum: whatever a store returns that is not an intact entry
// is ignored.
type MetadataStore = metacache.Store

// MetadataDir returns the MetadataStore in folder dir (created if missing), holding at most
// maxBytes (least recently used out first; <= 0 means 256 MiB). Processes may share it.
func MetadataDir(dir string, maxBytes int64) (MetadataStore, error) {
	d, err := metacache.NewDir(dir, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("pqscan: metadata cache: %w", err)
	}
	return d, nil
}
