package tablehost

import (
	"context"
	"fmt"
	"os"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/discover"
	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/prune"
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

// addDelta makes the Delta table at root the dataset's only source. log, when not nil, is
// the _delta_log/ listing the discovery read (nil: a local table lists its directory, an
// http(s) one that cannot list is probed); probes are the log objects it read.
func (t *Table) addDelta(ctx context.Context, root, nonce string, log []byte, probes map[string]discover.Probe) error {
	if len(t.files) > 0 || t.delta != nil {
		return fmt.Errorf("%w: the Delta table %s must be the only source of a dataset", openscope.ErrSource, root)
	}
	version := int64(-1)
	if t.opts.DeltaVersion != nil {
		if version = *t.opts.DeltaVersion; version < 0 {
			return fmt.Errorf("%w: Delta version %d", openscope.ErrSource, version)
		}
		if !t.opts.DeltaAsOf.IsZero() {
			return fmt.Errorf("%w: a Delta version and a timestamp (DeltaAsOf) together", openscope.ErrSource)
		}
	}
	snap, err := loadDelta(ctx, root, version, t.opts, log, probes, t.scope)
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	t.opts.use.delta(snap)
	return t.addSnapshot(root, nonce, snap, &deltaTable{parts: snap.Table.PartitionColumns, statTypes: snap.Table.StatTypes})
}

// addSnapshot makes the files of a table log's snapshot (Delta, Iceberg) the dataset's: each
// resolved under root and checked against the scope before any is opened or fetched.
func (t *Table) addSnapshot(root, nonce string, snap *deltasession.Snapshot, lt *deltaTable) error {
	files, srcs, err := t.snapshotFiles(root, nonce, snap, lt, nil)
	if err != nil {
		return err
	}
	t.table = snap.Table.Table
	t.delta = lt
	t.files, t.srcs = append(t.files, files...), append(t.srcs, srcs...)
	return nil
}

// openedFile is a data file opened for a snapshot: its source and version, kept across the
// scans of a table whose files are found per scan (an Iceberg table's, iceberg.go).
type openedFile struct {
	src     httpclient.Source
	version string
}

// snapshotFiles are the files of snap and their sources; opened, when not nil, holds the
// files already opened by location, and gets those opened now.
func (t *Table) snapshotFiles(root, nonce string, snap *deltasession.Snapshot, lt *deltaTable, opened map[string]openedFile) ([]tablescan.File, []httpclient.Source, error) {
	tab := snap.Table
	var err error
	// Every file is resolved and checked against the scope before any is opened or fetched.
	where := make([]string, len(tab.Files))
	for i := range tab.Files {
		if where[i], err = t.deltaFile(root, snap, lt, i); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", root, err)
		}
	}
	for i, p := range where {
		if _, ok := opened[p]; !ok && !openscope.IsHTTP(p) { // a missing local file is named now; over HTTP its first request fails naming it
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				return nil, nil, fmt.Errorf("%s: %s: %w: %s", root, lt.logName(snap), lt.missing(), snap.Paths[i])
			}
		}
	}
	files := make([]tablescan.File, 0, len(tab.Files))
	srcs := make([]httpclient.Source, 0, len(tab.Files))
	for i, f := range tab.Files {
		p := where[i]
		if o, ok := opened[p]; ok {
			f.Path, f.Version = p, o.version
			files, srcs = append(files, f), append(srcs, o.src)
			continue
		}
		var o openedFile
		if openscope.IsHTTP(p) {
			ho := t.opts.HTTP
			ho.FileSize = f.Size
			o = openedFile{t.opts.use.source(metacache.New(t.opts.MetadataCache), p, ho, true), nonce} // data files are immutable
		} else {
			fh, err := os.Open(p)
			if err != nil {
				return nil, nil, err
			}
			t.closers = append(t.closers, fh)
			st, err := fh.Stat()
			if err != nil {
				return nil, nil, err
			}
			if st.Size() != f.Size {
				return nil, nil, fmt.Errorf("%w: %s is %d bytes, the %s says %d", httpclient.ErrFileChanged, p, st.Size(), lt.logName(snap), f.Size)
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
func (t *Table) deltaFile(root string, snap *deltasession.Snapshot, lt *deltaTable, i int) (string, error) {
	p := snap.Paths[i]
	abs := i < len(snap.Absolute) && snap.Absolute[i]
	what := fmt.Sprintf("the Delta log (version %d) add action %q", snap.Version, p)
	if lt.iceberg {
		what = fmt.Sprintf("the Iceberg manifest entry (snapshot %d) for data file %q", snap.Version, p)
	}
	return t.scope.Locate(root, p, abs, what)
}
