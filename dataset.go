package pqscan

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/splitscan"
	"github.com/pqscan/pqscan/internal/tablehost"
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
	name   string
	opts   Options
	tab    *tablehost.Table // the files and their Sources (internal/tablehost)
	mu     sync.Mutex       // guards schema and table when they are deferred
	schema *arrow.Schema
	table  []arrowipc.Field // the engine's table schema, given to every scan
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
// is listed once with S3 ListObjectsV2 (internal/tablehost): it is a Delta table the same way
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
	nonce := fmt.Sprintf("pqscan.Dataset#%d", datasetSeq.Add(1))
	tab, err := tablehost.Open(ctx, srcs, tableOptions(opts), sc, nonce)
	if err != nil {
		return nil, fmt.Errorf("pqscan: %w", err)
	}
	d := &Dataset{name: strings.Join(srcs, " "), opts: opts, tab: tab, table: tab.Schema()}
	if opts.DeferSchema && !tab.FromLog() {
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
func (d *Dataset) Files() []string { return d.tab.Paths() }

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
	to, srcs, err := d.tab.ScanOptions(ctx, o, table, footerOnly)
	if err != nil {
		return nil, fmt.Errorf("pqscan: %w", err)
	}
	files := to.Files
	engine := d.opts.Engine.(TableEngine)
	sess, err := engine.StartTable(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("pqscan: %w", err)
	}
	fileOf := func(i int) (httpclient.Source, string, error) {
		if i < 0 || i >= len(srcs) {
			return nil, "", fmt.Errorf("%w: file %d of %d", ErrProtocol, i, len(srcs))
		}
		return srcs[i], files[i].Path, nil
	}
	r := &Reader{ctx: ctx, name: d.name, alloc: d.opts.Allocator, d: drive.Driver{Sess: sess, Sized: true, Files: fileOf}}
	if _, r.schema, err = metadata(ctx, &r.d, d.opts.Allocator); err != nil {
		sess.Close()
		return nil, fmt.Errorf("pqscan: %s: %w", d.name, err)
	}
	if !footerOnly {
		r.split = splitscan.NewTable(sess, to, d.opts.Threads, engine.StartTable, fileOf)
	}
	if table == nil && !footerOnly && !o.Count { // a count's schema is its one column
		d.keepSchema(r, len(o.Columns) == 0)
	}
	return r, nil
}

// Close releases the dataset's local file handles.
func (d *Dataset) Close() error { return d.tab.Close() }

// Metadata says what of the dataset's metadata came from Options.MetadataCache (the files'
// tails, the table log's objects), and a Delta table's snapshot: its version and whether its
// log was resumed from the stored replayed state.
func (d *Dataset) Metadata() DatasetMetadata { return d.tab.Metadata() }

// tableOptions are the settings of opts a dataset open uses.
func tableOptions(opts Options) tablehost.Options {
	return tablehost.Options{Engine: opts.Engine, HTTP: opts.HTTP, MemoryCap: opts.MemoryCap, TailSize: opts.TailSize,
		PathStyleListing: opts.PathStyleListing, DeltaVersion: opts.DeltaVersion, DeltaAsOf: opts.DeltaAsOf,
		IcebergWhere: opts.IcebergWhere, IcebergSnapshotID: opts.IcebergSnapshotID, IcebergAsOf: opts.IcebergAsOf,
		PathMap: opts.PathMap, SchemaByPosition: opts.SchemaByPosition, UnionSchema: opts.UnionSchema,
		MetadataCache: opts.MetadataCache}
}

// Iceberg describes the dataset's Iceberg table (the files Options.IcebergWhere may match,
// with the deletes that apply read); it fails for a dataset of another source.
func (d *Dataset) Iceberg(ctx context.Context) (*IcebergTable, error) {
	if !d.tab.IsIceberg() {
		return nil, fmt.Errorf("pqscan: %w: %s is not an Iceberg table", ErrSource, d.name)
	}
	it, err := d.tab.Iceberg(ctx)
	if err != nil {
		return nil, err
	}
	out := &IcebergTable{Metadata: it.Metadata, Snapshot: it.Snapshot}
	for _, s := range it.Snapshots {
		out.Snapshots = append(out.Snapshots, IcebergSnapshot(s))
	}
	for _, f := range it.Files {
		out.Files = append(out.Files, IcebergFile(f))
	}
	return out, nil
}

// IcebergTable describes the Iceberg table a Dataset reads (Dataset.Iceberg): its snapshots
// and the files of the one read.
type IcebergTable struct {
	// Metadata is the table metadata file read, relative to the table root.
	Metadata  string            `json:"metadata"`
	Snapshots []IcebergSnapshot `json:"snapshots"`
	// Snapshot is the id of the snapshot read (0 when the table has none).
	Snapshot int64         `json:"snapshot"`
	Files    []IcebergFile `json:"files"`
}

// IcebergSnapshot is one snapshot of the table's metadata, oldest first.
type IcebergSnapshot struct {
	ID        int64             `json:"id"`
	Timestamp time.Time         `json:"timestamp"`
	Operation string            `json:"operation,omitempty"`
	Summary   map[string]string `json:"summary,omitempty"`
}

// IcebergFile is a data file of the snapshot read: where it is read, its partition values
// as its manifest writes them, its rows (before deletes) and bytes, and its deleted rows.
type IcebergFile struct {
	Path      string `json:"path"`
	Partition string `json:"partition,omitempty"`
	Records   int64  `json:"records"`
	Size      int64  `json:"size"`
	Deleted   int64  `json:"deleted"`
}
