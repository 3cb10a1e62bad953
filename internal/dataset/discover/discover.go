// Package discover decides what a dataset the user opened is, sans IO, for every host: an
// http(s) folder URL or glob, a local folder or glob, or a named Iceberg metadata file. Its
// session asks the host for listing pages (over HTTP it builds the ListObjectsV2 URL and parses
// the XML page the host GETs), folder walks and stats (locally) and probe objects
// (`_delta_log/_last_checkpoint`, `metadata/version-hint.text`), decides with one algorithm
// whether the dataset is a Delta table, an Iceberg table or a plain (Hive) folder, applies the
// glob and the hidden-name rule, and then either ends with the data files or goes on as the
// Delta or Iceberg snapshot session, answering that session's first objects from what the
// probes already read. The steps are the snapshot sessions' (NeedObjects, NeedData), so a host
// that drives a Delta session drives this one with three more object kinds.
package discover

import (
	"errors"

	"github.com/pqscan/pqscan/internal/dataset/deltasession"
)

// Sentinel errors, each an error kind of its own over the module boundary (errkind).
var (
	// ErrOptions: the options contradict the dataset (a Delta version on an Iceberg table, a
	// time travel option on a plain folder) or cannot be read (a bad glob).
	ErrOptions = errors.New("discover: options")
	// ErrSource: the dataset is not there (no Parquet file, a root that is not a folder).
	ErrSource = errors.New("discover: source")
	// ErrListing: a listing page the engine cannot use (malformed, refused, looping).
	ErrListing = errors.New("discover: listing")
	// ErrDelta and ErrIceberg mark a failure of the snapshot session that no more precise
	// sentinel classifies, so that a host still tells a Delta failure from an Iceberg one.
	ErrDelta   = errors.New("discover: Delta table")
	ErrIceberg = errors.New("discover: Iceberg table")
	// ErrProtocol: the host answered what was not asked, or called Next too early.
	ErrProtocol = errors.New("discover: protocol")
)

// The object kinds this session adds to the snapshot sessions' get and list (protocol):
//   - page (protocol.ObjectPage): GET the absolute listing URL Path and push its body; found
//     false for a 404. With Optional set, any failure of the request (the host's own errors
//     but a refusal by its scope) is answered not found: the engine then probes instead.
//   - walk (protocol.ObjectWalk): the files below the local folder Path (relative to the
//     root, or absolute with Absolute set), symbolic links followed, cycles and broken links
//     skipped, as a JSON array of slash-separated keys relative to it, in byte order; not
//     found with the reason as the body.
//   - stat (protocol.ObjectStat): whether the local Path (relative to the root) exists:
//     found, with the body "dir" for a folder and anything else for another file; not
//     found, with the reason as the body.

// Object is one request of a NeedObjects step (deltasession.Object, with Optional).
type Object = deltasession.Object

// ListEntry is one entry of a "list" answer.
type ListEntry = deltasession.ListEntry

// Options is what the user opened (the JSON of pq_open_discover). Exactly one of URL and
// Path is set.
type Options struct {
	// URL is an absolute http(s) URL: a folder (ending in '/') or, with Glob, a glob over keys.
	URL string `json:"url,omitempty"`
	// PathStyle: the URL's first path segment is the bucket (`<origin>/<bucket>/<key>`).
	PathStyle bool `json:"pathStyle,omitempty"`
	// Path is a local folder or, with Glob, a glob, as the user wrote it (messages name it);
	// Abs is it resolved to an absolute slash-separated path (a glob needs it).
	Path string `json:"path,omitempty"`
	Abs  string `json:"abs,omitempty"`
	Glob bool   `json:"glob,omitempty"`
	// List only lists the URL (listDataset): no table detection, and an empty result is no
	// error.
	List bool `json:"list,omitempty"`
	// Metadata names the Iceberg metadata file (relative to the folder) instead of the folder.
	Metadata string `json:"metadata,omitempty"`
	// Time travel: Version (Delta), SnapshotID (Iceberg), AsOf (either, ms since the epoch).
	Version    *int64 `json:"version,omitempty"`
	SnapshotID *int64 `json:"snapshotId,omitempty"`
	AsOf       *int64 `json:"asOf,omitempty"`
	// RootURL is the table root as an absolute URL ending in '/' (a local table's file: URL;
	// the URL by default): the Delta session reads deletion vectors named absolutely under it.
	RootURL string `json:"rootURL,omitempty"`
	// PathMap, TailSize and MemoryCap are passed on to the snapshot sessions.
	PathMap   map[string]string `json:"pathMap,omitempty"`
	TailSize  int64             `json:"tailSize,omitempty"`
	MemoryCap int64             `json:"memoryCap,omitempty"`
	// MaxPages bounds a listing (0: listing.DefaultMaxPages).
	MaxPages int `json:"maxPages,omitempty"`
	// Resume and KeepState are passed on to a Delta table's session
	// (deltasession.Options): a host's stored replayed state, and asking for the new one.
	Resume    []byte `json:"resume,omitempty"`
	KeepState bool   `json:"keepState,omitempty"`
	// Detected, when set, ends the discovery at its decision on a table (a Result with the
	// Format alone), handing it what the probes read: for a host that runs the snapshot
	// session itself (the Go host runs it in the engine it was given, and an Iceberg
	// table's once per scan).
	Detected func(Detection) `json:"-"`
}

// Detection is what the probes read of a table (Options.Detected).
type Detection struct {
	Format string // "delta" or "iceberg"
	// List is the listing of the table's log folder (`_delta_log/`, `metadata/`) the probe
	// read, as the JSON of the snapshot session's "list" answer; nil when none was read.
	List []byte
	// Probes are the objects the probes read by path relative to the root (found or not):
	// the snapshot session's first answers, each given once.
	Probes map[string]Probe
}

// Probe is an object's answer: its bytes, and whether it was found.
type Probe struct {
	Data  []byte
	Found bool
}

// Result is what the session ends with: a table's snapshot, or the data files.
type Result struct {
	*deltasession.Snapshot
	// Format is "delta", "iceberg" or "files".
	Format string `json:"format"`
	// Files are the data files of a plain folder or glob, in listing order.
	Files []File `json:"files,omitempty"`
	// Dir is the folder a local glob's keys are relative to (a local folder's are relative to
	// the root).
	Dir string `json:"dir,omitempty"`
	// Listed are the listed keys that are not data files, with their URLs: with Files, what
	// the host checks against the open's scope (a listing naming "../x" is refused there).
	Listed []File `json:"listed,omitempty"`
}

// File is one data file of a plain folder or glob.
type File struct {
	Key  string `json:"key"`           // the object key, or the path relative to Dir or the root
	URL  string `json:"url,omitempty"` // over HTTP: the object's URL
	Size int64  `json:"size"`          // over HTTP: from the listing; locally 0 (unknown)
	ETag string `json:"etag,omitempty"`
}
