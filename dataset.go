package pqscan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/glob"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/localfs"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// Dataset is several Parquet files read as one table: rows come in file order, Hive
// key=value directories become columns (after the file columns) and a predicate on them
// decides files before any of their bytes are read, the footers of all files cost one round
// of requests, and a limit stops before the footer of a file it does not need. The table's
// columns are the first file's; a column another file lacks reads as nulls, a narrower
// type is widened (integers, float to double, timestamps to a finer unit, decimals to more
// digits), anything else is an error naming the file and column (ErrSchemaMismatch).
// Columns are matched by name, or by position with Options.SchemaByPosition; with
// Options.UnionSchema the table has the union of the files' columns. A predicate on a column
// a file lacks is evaluated on nulls there.
//
// Its methods are safe for concurrent use; each Reader is used by one goroutine.
type Dataset struct {
	name    string
	opts    Options
	files   []tablescan.File
	srcs    []Source // one per file, kept across scans: they pin each file's version
	closers []io.Closer
	mu      sync.Mutex // guards schema and table when they are deferred
	schema  *arrow.Schema
	table   []arrowipc.Field // the engine's table schema, given to every scan
	delta   *deltaTable      // the source is a Delta table (delta.go)
	ice     *icebergTable    // the source is an Iceberg table (iceberg.go): files per scan
	scope   *openscope.Scope // what the dataset's sources may lead to (scope.go)
}

// TableEngine is an Engine that also runs table sessions (several files as one table): the
// native engine and *wazerohost.Host (the module's pq_open_table).
type TableEngine interface {
	StartTable(ctx context.Context, opts tablescan.Options) (scan.TableSession, error)
}

// StartTable implements TableEngine.
func (Native) StartTable(_ context.Context, opts tablescan.Options) (scan.TableSession, error) {
	return tablescan.New(opts, nativeFooters)
}

var datasetSeq atomic.Int64

// OpenDataset opens the files of srcs as one table and reads the first file's footer (the
// table schema). Each source is a local path or an http(s) URL; a local source may also be a
// glob (`*`, `**`, `?`, `[...]`) or a folder written with a trailing '/' (every *.parquet
// below it, hidden and _-prefixed names skipped, as Spark and Hive do), expanded in sorted
// order. A local folder holding a _delta_log/ is a Delta table (it must then be the only
// source): its snapshot (the latest, or Options.DeltaVersion) gives the files, their
// partition values and statistics (files are skipped by both before any footer is read), and
// the table schema (schemaString's data columns, then the partition columns); a table needing
// a feature this reader lacks fails with ErrUnsupportedFeature. An http(s) URL ending in '/'
// is listed once with S3 ListObjectsV2 (dataset_list.go): it is a Delta table the same way
// when the listing holds a _delta_log/ (whose entries the listing gives), otherwise its
// Parquet files are the listed ones; where the server does not list, the log is probed for
// (_last_checkpoint, then commits in parallel batches until a 404). An http(s) glob is listed.
func OpenDataset(ctx context.Context, srcs []string, opts Options) (*Dataset, error) {
	if opts.Engine == nil {
		opts.Engine = Native{}
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	if _, ok := opts.Engine.(TableEngine); !ok {
		return nil, fmt.Errorf("%w: the engine %T cannot read several files as one table", ErrSource, opts.Engine)
	}
	sc, err := newScope(srcs, opts)
	if err != nil {
		return nil, fmt.Errorf("pqscan: %w", err)
	}
	opts.HTTP.Client = sc.Client(opts.HTTP.Client)
	d := &Dataset{name: strings.Join(srcs, " "), opts: opts, scope: sc}
	nonce := fmt.Sprintf("pqscan.Dataset#%d", datasetSeq.Add(1))
	for _, s := range srcs {
		if d.delta != nil {
			d.Close()
			return nil, fmt.Errorf("pqscan: %w: a Delta table must be the only source of a dataset", ErrSource)
		}
		if err := d.add(ctx, s, nonce); err != nil {
			d.Close()
			return nil, fmt.Errorf("pqscan: %w", err)
		}
	}
	if len(d.files) == 0 && d.delta == nil { // an empty Delta snapshot is an empty table
		d.Close()
		return nil, fmt.Errorf("pqscan: %w: no Parquet file in %s", ErrSource, d.name)
	}
	if opts.DeferSchema && d.delta == nil {
		return d, nil // the first scan's first surviving footer gives the schema
	}
	r, err := d.start(ctx, ScanOptions{}, true)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.schema = r.schema
	if t, ok := r.d.Sess.(interface{ Fields() []arrowipc.Field }); ok {
		d.table = t.Fields()
	}
	r.Close()
	return d, nil
}

// keepSchema makes a deferred table schema (Options.DeferSchema) the one the first scan
// formed, for Schema and every later scan. An engine whose sessions do not hand the whole
// table schema over (the wasm module) gives it only for Schema, from a scan of every column.
func (d *Dataset) keepSchema(r *Reader, allColumns bool) {
	t, ok := r.d.Sess.(interface{ Fields() []arrowipc.Field })
	if !ok || t.Fields() == nil {
		if allColumns {
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.schema == nil {
				d.schema = r.schema
			}
		}
		return
	}
	b, err := arrowipc.WriteSchema(nil, &arrowipc.Schema{Fields: t.Fields()})
	if err != nil {
		return
	}
	rdr, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return
	}
	defer rdr.Release()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.table == nil {
		d.table, d.schema = t.Fields(), rdr.Schema()
	}
}

// add appends the files of one source.
func (d *Dataset) add(ctx context.Context, s, nonce string) error {
	if openscope.IsHTTP(s) {
		if strings.HasSuffix(s, "/") && !glob.HasMeta(s) {
			return d.addHTTPFolder(ctx, s, nonce)
		}
		if glob.HasMeta(s) || strings.HasSuffix(s, "/") {
			return d.listHTTP(ctx, s, nonce) // dataset_list.go
		}
		if isIcebergMetadata(s) {
			root, meta := icebergRoot(s)
			return d.addIceberg(ctx, root, meta, nonce, nil)
		}
		d.files = append(d.files, tablescan.File{Path: s, Version: nonce})
		d.srcs = append(d.srcs, httpclient.NewHTTP(s, d.opts.HTTP))
		return nil
	}
	paths := []string{s}
	switch {
	case strings.HasSuffix(s, "/") && isDeltaTable(s):
		return d.addDelta(ctx, s, nonce, nil)
	case strings.HasSuffix(s, "/") && isIcebergTable(s):
		return d.addIceberg(ctx, s, "", nonce, nil)
	case isIcebergMetadata(s):
		root, meta := icebergRoot(filepath.ToSlash(s))
		return d.addIceberg(ctx, root, meta, nonce, nil)
	case strings.HasSuffix(s, "/"):
		var err error
		if paths, err = walk(s, glob.Folder(filepath.ToSlash(s))); err != nil {
			return err
		}
	case glob.HasMeta(s):
		sel, err := glob.Glob(filepath.ToSlash(s))
		if err != nil {
			return err
		}
		if paths, err = walk(sel.Prefix(), sel); err != nil {
			return err
		}
	}
	for _, p := range paths {
		if len(paths) > 1 || p != s { // a file named alone is in scope as named
			if err := d.scope.CheckLocal(p, "the walk of "+s); err != nil {
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
		d.closers = append(d.closers, fh)
		// A local file's version is its modification time (ns) and size: the footer cache
		// reuses its footer across Opens until the file changes.
		d.files = append(d.files, tablescan.File{Path: p, Size: st.Size(), Version: fmt.Sprintf("mtime:%d", st.ModTime().UnixNano())})
		d.srcs = append(d.srcs, httpclient.NewReaderAt(fh, st.Size()))
	}
	return nil
}

// addHTTPFolder adds an http(s) folder: a Delta table when it has a _delta_log/, an Iceberg
// table when its metadata/ holds a metadata file, otherwise every Parquet file below it. One
// ListObjectsV2 walk of the folder's prefix decides and gives either the log's (or
// metadata/'s) entries or the files, so that a plain Hive folder costs its listing pages and
// nothing more. Only where the server does not list (a plain CDN: the listing fails) is the
// Delta log probed for (_last_checkpoint, then commits in parallel batches until a 404), then
// an Iceberg version hint (metadata/version-hint.text); when neither finds a table, the
// listing's error is the one reported.
func (d *Dataset) addHTTPFolder(ctx context.Context, s, nonce string) error {
	fl, lerr := d.listFolder(ctx, s, true)
	if lerr == nil {
		if log := fl.deltaLog(); log != nil {
			return d.addDelta(ctx, s, nonce, log)
		}
		if meta := fl.icebergMetadata(); meta != nil {
			return d.addIceberg(ctx, s, "", nonce, meta)
		}
		return d.addListed(fl, nonce)
	}
	err := d.addDelta(ctx, s, nonce, nil)
	if errors.Is(err, delta.ErrNotATable) {
		// No Delta log: an Iceberg table's version hint, else the listing's error stands.
		// (Over the module, the Iceberg session's ErrNotATable comes back as Delta's.)
		err = d.addIceberg(ctx, s, "", nonce, nil)
		if errors.Is(err, iceberg.ErrNotATable) || errors.Is(err, delta.ErrNotATable) {
			return fmt.Errorf("%s has no Delta log nor Iceberg version hint, and listing its Parquet files failed: %w", s, lerr)
		}
	}
	return err
}

// walk lists the files below the directory part of prefix that sel keeps, sorted. Symbolic
// links are followed, cycles and broken links skipped (internal/localfs).
func walk(prefix string, sel glob.Selector) ([]string, error) {
	dir := prefix
	if i := strings.LastIndex(dir, "/"); i >= 0 {
		dir = dir[:i+1]
	} else {
		dir = "."
	}
	var out []string
	err := localfs.Walk(filepath.FromSlash(dir), func(p string) error {
		key := filepath.ToSlash(p)
		if dir == "." {
			key = strings.TrimPrefix(key, "./")
		}
		if sel.Keep(key) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Schema returns the table schema: the Delta log's, the first file's columns or with
// Options.UnionSchema the union of all files' columns, then the partition columns. With
// Options.DeferSchema it is nil until a scan has read a footer (the first file its partition
// predicate keeps).
func (d *Dataset) Schema() *arrow.Schema {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.schema
}

// Files returns the paths or URLs of the dataset's files, in table order. An Iceberg table's
// are found in its manifests (those Options.IcebergWhere may match; fetched once), none when
// they do not read.
func (d *Dataset) Files() []string {
	files := d.files
	if d.ice != nil {
		files, _, _ = d.icebergScanFiles(context.Background(), ScanOptions{Count: true})
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// Scan starts a scan of the table (see File.Scan; Columns and Where name table columns,
// partition columns included).
func (d *Dataset) Scan(ctx context.Context, o ScanOptions) (*Reader, error) {
	return d.start(ctx, o, false)
}

func (d *Dataset) start(ctx context.Context, o ScanOptions, footerOnly bool) (*Reader, error) {
	if o.MemoryCap == 0 {
		o.MemoryCap = d.opts.MemoryCap
	}
	if o.TailSize == 0 {
		o.TailSize = d.opts.TailSize
	}
	o.Metadata = true
	d.mu.Lock()
	table := d.table
	d.mu.Unlock()
	files, srcs := d.files, d.srcs
	if d.ice != nil && !footerOnly {
		var err error
		if files, srcs, err = d.icebergScanFiles(ctx, o); err != nil {
			return nil, fmt.Errorf("pqscan: %w", err)
		}
	}
	to := tablescan.Options{Options: o, Files: files, Table: table, ByPosition: d.opts.SchemaByPosition}
	to.UnionSchema = d.opts.UnionSchema && d.delta == nil
	if d.delta != nil {
		to.NoHive, to.PartitionColumns, to.StatTypes = true, d.delta.parts, d.delta.statTypes
		to.ZonelessUTC, to.FoldCase = !d.delta.iceberg, !d.delta.iceberg
		to.NameMapping = d.delta.names
	}
	if footerOnly {
		to.Where, to.Columns, to.Limit = "", nil, 1 // one file's footer is the schema
	}
	sess, err := d.opts.Engine.(TableEngine).StartTable(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("pqscan: %w", err)
	}
	r := &Reader{ctx: ctx, name: d.name, alloc: d.opts.Allocator, d: drive.Driver{Sess: sess, Sized: true,
		Files: func(i int) (httpclient.Source, string, error) {
			if i < 0 || i >= len(srcs) {
				return nil, "", fmt.Errorf("%w: file %d of %d", ErrProtocol, i, len(srcs))
			}
			return srcs[i], files[i].Path, nil
		}}}
	if _, r.schema, err = metadata(ctx, &r.d, d.opts.Allocator); err != nil {
		sess.Close()
		return nil, fmt.Errorf("pqscan: %s: %w", d.name, err)
	}
	if table == nil && !footerOnly && !o.Count { // a count's schema is its one column
		d.keepSchema(r, len(o.Columns) == 0)
	}
	return r, nil
}

// Close releases the dataset's local file handles.
func (d *Dataset) Close() error {
	var first error
	for _, c := range d.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	d.closers = nil
	return first
}
