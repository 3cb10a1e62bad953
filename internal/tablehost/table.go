// Package tablehost is the Go host's side of a dataset open: it turns the sources named (local
// files, folders and globs, http(s) URLs, folders and globs listed with ListObjectsV2, Delta and
// Iceberg tables) into the files and Sources of one table session, hosting the engine's Delta
// and Iceberg log sessions (natively, or in the module when the engine runs them) by answering
// their object and range requests with local and HTTP I/O, each location checked against the
// open's scope (internal/openscope). It is apart from the root package so that the public API
// holds no object-store client and no table format: pqscan.Dataset only forwards to it.
package tablehost

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/glob"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// Options are the settings of pqscan.Options a dataset open uses (documented there).
type Options struct {
	// Engine is checked for the methods that run a Delta or Iceberg log session in the
	// engine (a *wazerohost.Host); with any other the sessions run natively.
	Engine            any
	HTTP              httpclient.Options
	MemoryCap         int64
	TailSize          int64
	PathStyleListing  bool
	DeltaVersion      *int64
	DeltaAsOf         time.Time
	IcebergWhere      string
	IcebergSnapshotID *int64
	IcebergAsOf       time.Time
	PathMap           map[string]string
	SchemaByPosition  bool
	UnionSchema       bool
	MetadataCache     metacache.Store

	use *cacheUse // what came from MetadataCache (set by Open)
}

// ErrUnsupportedFeature is a table needing a feature this reader does not implement
// (pqscan.ErrUnsupportedFeature): an Iceberg refusal wraps it too (unsupported).
var ErrUnsupportedFeature = delta.ErrUnsupportedFeature

// ParsePathMap parses the text form of an Iceberg path map (pqscan.ParsePathMap); a
// malformed spec is an ErrSource error.
func ParsePathMap(spec string) (map[string]string, error) {
	m, err := iceberg.ParsePathMap(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", openscope.ErrSource, err)
	}
	return m, nil
}

// Table is the files of an open dataset, with their Sources (kept across scans: they pin each
// file's version) and what a Delta or Iceberg log says about them.
type Table struct {
	name    string
	opts    Options
	files   []tablescan.File
	srcs    []httpclient.Source
	closers []io.Closer
	table   []arrowipc.Field // the log's table schema (Delta, Iceberg); nil otherwise
	delta   *deltaTable      // the source is a Delta table (delta.go)
	ice     *icebergTable    // the source is an Iceberg table (iceberg.go): files per scan
	scope   *openscope.Scope // what the dataset's sources may lead to
}

// Open finds the files of srcs (see pqscan.OpenDataset). nonce versions the files whose
// version nothing else gives (an http(s) file named alone): the footer cache keys on it.
// Every location is checked against sc before it is read.
func Open(ctx context.Context, srcs []string, opts Options, sc *openscope.Scope, nonce string) (*Table, error) {
	opts.use = &cacheUse{}
	t := &Table{name: strings.Join(srcs, " "), opts: opts, scope: sc}
	for _, s := range srcs {
		if t.delta != nil {
			t.Close()
			return nil, fmt.Errorf("%w: a Delta table must be the only source of a dataset", openscope.ErrSource)
		}
		if err := t.add(ctx, s, nonce); err != nil {
			t.Close()
			return nil, err
		}
	}
	if len(t.files) == 0 && t.delta == nil { // an empty Delta snapshot is an empty table
		t.Close()
		return nil, fmt.Errorf("%w: no Parquet file in %s", openscope.ErrSource, t.name)
	}
	return t, nil
}

// FromLog reports whether a table log (Delta, Iceberg) gives the files and the schema.
func (t *Table) FromLog() bool { return t.delta != nil }

// Schema is the log's table schema; nil when the files give it.
func (t *Table) Schema() []arrowipc.Field { return t.table }

// IsIceberg reports whether the table is an Iceberg table.
func (t *Table) IsIceberg() bool { return t.ice != nil }

// Paths are the paths or URLs of the table's files, in table order. An Iceberg table's are
// found in its manifests (those Options.IcebergWhere may match; fetched once), none when they
// do not read.
func (t *Table) Paths() []string {
	files := t.files
	if t.ice != nil {
		files, _, _ = t.icebergScanFiles(context.Background(), scan.Options{Count: true})
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// ScanOptions are the table session's options for scan o, whose table schema is table (nil:
// the session forms it), and the Sources of its files. With footerOnly the session reads one
// file's footer (the schema) and nothing else.
func (t *Table) ScanOptions(ctx context.Context, o scan.Options, table []arrowipc.Field, footerOnly bool) (tablescan.Options, []httpclient.Source, error) {
	files, srcs := t.files, t.srcs
	if t.ice != nil && !footerOnly {
		var err error
		if files, srcs, err = t.icebergScanFiles(ctx, o); err != nil {
			return tablescan.Options{}, nil, err
		}
	}
	to := tablescan.Options{Options: o, Files: files, Table: table, ByPosition: t.opts.SchemaByPosition}
	to.UnionSchema = t.opts.UnionSchema && t.delta == nil
	if t.delta != nil {
		to.NoHive, to.PartitionColumns, to.StatTypes = true, t.delta.parts, t.delta.statTypes
		to.ZonelessUTC, to.FoldCase = !t.delta.iceberg, !t.delta.iceberg
		to.NameMapping = t.delta.names
	}
	if footerOnly {
		to.Where, to.Columns, to.Limit = "", nil, 1 // one file's footer is the schema
	}
	return to, srcs, nil
}

// Close releases the table's local file handles.
func (t *Table) Close() error {
	var first error
	for _, c := range t.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	t.closers = nil
	return first
}

// add appends the files of one source: a folder or glob as the engine's discovery finds it
// (discover.go), a table's metadata file, or a file named alone.
func (t *Table) add(ctx context.Context, s, nonce string) error {
	if strings.HasSuffix(s, "/") || glob.HasMeta(s) {
		return t.addDiscovered(ctx, s, nonce)
	}
	if iceberg.IsMetadataFile(filepath.ToSlash(s)) {
		root, meta := iceberg.SplitMetadataPath(filepath.ToSlash(s))
		return t.addIceberg(ctx, root, meta, nonce, nil, nil)
	}
	if openscope.IsHTTP(s) {
		t.files = append(t.files, tablescan.File{Path: s, Version: nonce})
		t.srcs = append(t.srcs, httpclient.NewHTTP(s, t.opts.HTTP))
		return nil
	}
	return t.addLocal(s, []string{s})
}

// addLocal opens the local files paths of source s (s itself when named alone).
func (t *Table) addLocal(s string, paths []string) error {
	for _, p := range paths {
		if len(paths) > 1 || p != s { // a file named alone is in scope as named
			if err := t.scope.CheckLocal(p, "the walk of "+s); err != nil {
				return err
			}
		}
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		st, err := fh.Stat()
		if err != nil {
			fh.Close()
			return err
		}
		if st.IsDir() {
			fh.Close()
			return fmt.Errorf("%s is a directory (a folder is written with a trailing /)", p)
		}
		t.closers = append(t.closers, fh)
		// A local file's version is its modification time (ns) and size: the footer cache
		// reuses its footer across Opens until the file changes.
		t.files = append(t.files, tablescan.File{Path: p, Size: st.Size(), Version: fmt.Sprintf("mtime:%d", st.ModTime().UnixNano())})
		t.srcs = append(t.srcs, httpclient.NewReaderAt(fh, st.Size()))
	}
	return nil
}

// resolvePathMap is the path map as the Iceberg session takes it: each local base made an
// absolute file: URL (the session, in the module, resolves no path itself). A base that
// cannot be made absolute stays as written, which the session refuses, naming it.
func resolvePathMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for prefix, b := range m {
		out[prefix] = b
		if iceberg.IsBaseURL(b) {
			continue
		}
		abs, err := filepath.Abs(filepath.FromSlash(b))
		if err != nil {
			continue
		}
		p := filepath.ToSlash(abs)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a drive letter: file:///C:/…
		}
		out[prefix] = (&url.URL{Scheme: "file", Path: p}).String()
	}
	return out
}
