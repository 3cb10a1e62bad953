package pqscan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/scope"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// Delta tables (a local folder with a _delta_log/, or an http(s) URL ending in '/') are
// read as every other host reads them: the engine replays the log (the sans-IO
// internal/dataset/deltasession, natively or in the wasm module when Options.Engine runs it)
// and this host only answers its requests, through the one Go driver loop: whole log objects
// (NeedObjects: a local file or directory listing; over HTTP a GET, or the folder's
// ListObjectsV2 listing when the server lists, else the session probes _last_checkpoint and
// commits in parallel batches until a 404) and byte ranges of checkpoint and sidecar Parquet
// (NeedData), every round in parallel. The session ends with the snapshot as table options:
// its live files with their sizes, partition values, statistics and row counts, and its
// schema as the table schema (the data columns in the order of schemaString, then the
// partition columns in partitionColumns order, as for Hive tables).

// deltaTable is what a Delta snapshot gives the table session besides its files.
type deltaTable struct {
	parts     []hive.Column
	statTypes map[string]prune.ColumnType
	// iceberg marks an Iceberg table: its columns are matched by field id, its names are
	// case-sensitive and its zoned timestamps are stored as such.
	iceberg bool
	// names is an Iceberg table's name mapping, for its files without field ids.
	names []tablescan.NameMapping
}

// logName names the snapshot's log in messages.
func (lt *deltaTable) logName(snap *deltasession.Snapshot) string {
	if lt.iceberg {
		return fmt.Sprintf("Iceberg snapshot %d", snap.Version)
	}
	return fmt.Sprintf("Delta log (version %d)", snap.Version)
}

// missing is the error of a data file the log names that is not there.
func (lt *deltaTable) missing() error {
	if lt.iceberg {
		return iceberg.ErrMissingFile
	}
	return delta.ErrMissingFile
}

// isDeltaTable reports whether the folder s (written with a trailing '/') holds a Delta log.
func isDeltaTable(s string) bool {
	st, err := os.Stat(filepath.Join(filepath.FromSlash(s), "_delta_log"))
	return err == nil && st.IsDir()
}

// addDelta makes the Delta table at root the dataset's only source. log, when not nil, is
// the _delta_log/ listing an http(s) folder's ListObjectsV2 gave (nil: a local table lists
// its directory, an http(s) one that cannot list is probed).
func (d *Dataset) addDelta(ctx context.Context, root, nonce string, log []delta.LogFile) error {
	if len(d.files) > 0 || d.delta != nil {
		return fmt.Errorf("%w: the Delta table %s must be the only source of a dataset", ErrSource, root)
	}
	version := int64(-1)
	if d.opts.DeltaVersion != nil {
		if version = *d.opts.DeltaVersion; version < 0 {
			return fmt.Errorf("%w: Delta version %d", ErrSource, version)
		}
		if !d.opts.DeltaAsOf.IsZero() {
			return fmt.Errorf("%w: a Delta version and a timestamp (DeltaAsOf) together", ErrSource)
		}
	}
	snap, err := loadDelta(ctx, root, version, d.opts, log, d.scope)
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	return d.addSnapshot(root, nonce, snap, &deltaTable{parts: snap.Table.PartitionColumns, statTypes: snap.Table.StatTypes})
}

// addSnapshot makes the files of a table log's snapshot (Delta, Iceberg) the dataset's: each
// resolved under root and checked against the scope before any is opened or fetched.
func (d *Dataset) addSnapshot(root, nonce string, snap *deltasession.Snapshot, lt *deltaTable) error {
	files, srcs, err := d.snapshotFiles(root, nonce, snap, lt, nil)
	if err != nil {
		return err
	}
	d.table = snap.Table.Table
	d.delta = lt
	d.files, d.srcs = append(d.files, files...), append(d.srcs, srcs...)
	return nil
}

// openedFile is a data file opened for a snapshot: its source and version, kept across the
// scans of a table whose files are found per scan (an Iceberg table's, iceberg.go).
type openedFile struct {
	src     Source
	version string
}

// snapshotFiles are the files of snap and their sources; opened, when not nil, holds the
// files already opened by location, and gets those opened now.
func (d *Dataset) snapshotFiles(root, nonce string, snap *deltasession.Snapshot, lt *deltaTable, opened map[string]openedFile) ([]tablescan.File, []Source, error) {
	t := snap.Table
	var err error
	// Every file is resolved and checked against the scope before any is opened or fetched.
	where := make([]string, len(t.Files))
	for i := range t.Files {
		if where[i], err = d.deltaFile(root, snap, lt, i); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", root, err)
		}
	}
	for i, p := range where {
		if _, ok := opened[p]; !ok && !isHTTP(p) { // a missing local file is named now; over HTTP its first request fails naming it
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				return nil, nil, fmt.Errorf("%s: %s: %w: %s", root, lt.logName(snap), lt.missing(), snap.Paths[i])
			}
		}
	}
	files := make([]tablescan.File, 0, len(t.Files))
	srcs := make([]Source, 0, len(t.Files))
	for i, f := range t.Files {
		p := where[i]
		if o, ok := opened[p]; ok {
			f.Path, f.Version = p, o.version
			files, srcs = append(files, f), append(srcs, o.src)
			continue
		}
		var o openedFile
		if isHTTP(p) {
			ho := d.opts.HTTP
			ho.FileSize = f.Size
			o = openedFile{metacache.NewHTTP(metacache.New(d.opts.MetadataCache), p, ho), nonce} // data files are immutable
		} else {
			fh, err := os.Open(p)
			if err != nil {
				return nil, nil, err
			}
			d.closers = append(d.closers, fh)
			st, err := fh.Stat()
			if err != nil {
				return nil, nil, err
			}
			if st.Size() != f.Size {
				return nil, nil, fmt.Errorf("%w: %s is %d bytes, the %s says %d", ErrFileChanged, p, st.Size(), lt.logName(snap), f.Size)
			}
			o = openedFile{httpclient.NewReaderAt(fh, f.Size), fmt.Sprintf("%s:%d", nonce, st.ModTime().UnixNano())}
		}
		if opened != nil {
			opened[p] = o
		}
		f.Path, f.Version = p, o.version
		files, srcs = append(files, f), append(srcs, o.src)
	}
	return files, srcs, nil
}

// deltaFile is where the i-th file of a snapshot of the table at root is read (deltaLocation),
// naming the entry that lists it: a Delta add action, an Iceberg manifest entry (its path
// as written when outside the table location, else as mapped onto the table folder).
func (d *Dataset) deltaFile(root string, snap *deltasession.Snapshot, lt *deltaTable, i int) (string, error) {
	p := snap.Paths[i]
	abs := i < len(snap.Absolute) && snap.Absolute[i]
	what := fmt.Sprintf("the Delta log (version %d) add action %q", snap.Version, p)
	if lt.iceberg {
		what = fmt.Sprintf("the Iceberg manifest entry (snapshot %d) for data file %q", snap.Version, p)
	}
	return d.scope.deltaLocation(root, p, abs, what)
}

// deltaLocation is where a path that a Delta log or Iceberg metadata names (what: its entry)
// is read: a URL, or a local path. A path relative to the root (decoded) is joined to it; an
// absolute URI (Delta allows them for data files and deletion vectors; an Iceberg path outside
// the table location, iceberg.Locate) is an http(s) URL or, for a local table only, a file:
// URL or an absolute path, read as written. Either must be in the open's scope: metadata that
// names a file outside the table root and the allowed prefixes is refused, naming its entry,
// before anything is requested.
func (s *openScope) deltaLocation(root, p string, abs bool, what string) (string, error) {
	scheme, _, _ := strings.Cut(p, ":")
	switch {
	case !abs && isHTTP(root):
		u := root + pathenc.EscapePath(p)
		return u, s.checkURL(u, what)
	case !abs:
		l := filepath.Join(filepath.FromSlash(root), filepath.FromSlash(p))
		return l, s.checkLocal(l, what)
	case strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"):
		return p, s.checkURL(p, what)
	case strings.EqualFold(scheme, "file") && isHTTP(root):
		return "", fmt.Errorf("%w: %s names a local file, and the table is remote", ErrOutOfScope, what)
	case strings.HasPrefix(p, "/") && isHTTP(root):
		return "", fmt.Errorf("%w: %s names a local file, and the table is remote", ErrOutOfScope, what)
	case strings.HasPrefix(p, "/"):
		// An absolute path (Iceberg writes bare paths for local tables): a local file.
		local := filepath.FromSlash(p)
		return local, s.checkLocal(local, what)
	case strings.EqualFold(scheme, "file"):
		l, err := scope.ParseFile(p)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %w", ErrOutOfScope, what, err)
		}
		local := filepath.FromSlash(l.Path)
		return local, s.checkLocal(local, what)
	}
	return "", fmt.Errorf("%w: %s names the URI scheme %s:, which this reader does not fetch", delta.ErrUnsupportedFeature, what, scheme)
}
