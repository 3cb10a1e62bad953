package tablehost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/scope"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// Iceberg tables (a local folder with a metadata/ folder and no _delta_log/, or a
// *.metadata.json file or URL) are read as Delta tables are: the engine reads the metadata,
// the manifest list and the manifests (the sans-IO internal/dataset/icebergsession, natively
// or in the wasm module when Options.Engine runs it) and this host answers its object
// requests through the same loop (driveSnapshot); the snapshot's Parquet files are then the
// dataset's, their columns matched to the table's by field id.

// icebergEngine is an Engine that runs the Iceberg session itself (a *wazerohost.Host).
type icebergEngine interface {
	StartIcebergSession(ctx context.Context, opts icebergsession.Options) (deltasession.Driven, error)
}

// isIcebergTable reports whether the folder s (written with a trailing '/') holds an
// Iceberg table's metadata/ (checked after _delta_log/: a Delta table is a Delta table).
func isIcebergTable(s string) bool {
	st, err := os.Stat(filepath.Join(filepath.FromSlash(s), "metadata"))
	return err == nil && st.IsDir()
}

// addIceberg makes the Iceberg table at root the dataset's only source; meta, when not "",
// is the metadata file to read (relative to root), else the current one is found (listing,
// when not nil, is an http(s) folder's metadata/ entries, the answer to the session's list).
// The open reads the metadata and the manifest list (the schema); each scan reads the
// manifests and files its own predicate may match (icebergScanFiles).
func (t *Table) addIceberg(ctx context.Context, root, meta, nonce string, listing []delta.LogFile) error {
	if len(t.files) > 0 || t.delta != nil {
		return fmt.Errorf("%w: the Iceberg table %s must be the only source of a dataset", openscope.ErrSource, root)
	}
	if !t.opts.IcebergAsOf.IsZero() && t.opts.IcebergSnapshotID != nil {
		return fmt.Errorf("%w: an Iceberg snapshot id and a time (IcebergAsOf) together", openscope.ErrSource)
	}
	if openscope.IsHTTP(root) {
		// Refused at the open, before any manifest names a file there.
		for prefix, base := range resolvePathMap(t.opts.PathMap) {
			if !openscope.IsHTTP(base) {
				return fmt.Errorf("%w: the path map's base %q for %q names a local folder, and the table is remote", scope.ErrOutside, base, prefix)
			}
		}
	}
	it := &icebergTable{root: root, nonce: nonce, listing: listing, meta: meta, cache: &objectCache{m: map[string][]byte{}}, opened: map[string]openedFile{}, tailed: map[string]bool{}}
	snap, err := t.icebergSnapshot(ctx, it, "", true, nil)
	if err != nil {
		return err
	}
	it.meta = snap.Metadata
	t.ice, t.table = it, snap.Table.Table
	t.delta = &deltaTable{iceberg: true, statTypes: snap.Table.StatTypes, names: snap.Table.NameMapping}
	return nil
}

// icebergTable is an Iceberg source: the metadata file its open read, the objects read so far
// (the metadata, the manifest list, manifests) and the data files opened, shared by its scans.
type icebergTable struct {
	root, nonce string
	listing     []delta.LogFile
	meta        string
	mu          sync.Mutex // serializes the scans' planning
	cache       *objectCache
	opened      map[string]openedFile
	tailed      map[string]bool // data files whose tails were fetched ahead once
}

// icebergSnapshot reads the table's snapshot with the session: with listOnly its schema alone,
// else its files that may hold a row matching where (and Options.IcebergWhere). With tails
// not nil, the data files' tails are fetched while their deletes are read (prefetchTails).
func (t *Table) icebergSnapshot(ctx context.Context, it *icebergTable, where string, listOnly bool, tails *tailFetch) (*deltasession.Snapshot, error) {
	so := icebergsession.Options{Metadata: it.meta, CanList: !openscope.IsHTTP(it.root) || it.listing != nil, SnapshotID: t.opts.IcebergSnapshotID,
		Where: andWhere(t.opts.IcebergWhere, where), ListOnly: listOnly}
	so.PathMap = resolvePathMap(t.opts.PathMap) // checked by newOpenScope
	if !t.opts.IcebergAsOf.IsZero() {
		so.AsOf = new(t.opts.IcebergAsOf.UnixMilli())
	}
	var s deltasession.Driven
	var err error
	if ie, ok := t.opts.Engine.(icebergEngine); ok {
		s, err = ie.StartIcebergSession(ctx, so)
	} else {
		s, err = icebergsession.StartNative(so)
	}
	if err != nil {
		return nil, err
	}
	if tails != nil {
		s = &prefetching{Driven: s, start: func(snap *deltasession.Snapshot) { t.prefetchTails(ctx, it, snap, tails) }}
	}
	snap, err := driveSnapshot(ctx, it.root, t.opts, it.listing, t.scope, s, it.cache)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", it.root, unsupported(err))
	}
	return snap, nil
}

// icebergScanFiles are the files (and their sources) scan o reads: those of the manifests and
// partitions its predicate may match, with their deletes.
func (t *Table) icebergScanFiles(ctx context.Context, o scan.Options) ([]tablescan.File, []httpclient.Source, error) {
	it := t.ice
	it.mu.Lock()
	defer it.mu.Unlock()
	where := o.Where
	if o.NoPrune || len(o.Disable) > 0 {
		where = "" // every file, for the scan's own levels to decide
	}
	// A scan that reads every surviving footer (no limit, no answer from metadata) has them
	// fetched with the delete files.
	var tails *tailFetch
	if !o.Count && o.MinMax == "" && o.Limit == 0 && o.OrderBy == "" {
		tails = &tailFetch{}
		defer tails.wg.Wait() // on an error too: no fetch outlives the call
	}
	snap, err := t.icebergSnapshot(ctx, it, where, false, tails)
	if err != nil {
		return nil, nil, err
	}
	files, srcs, err := t.snapshotFiles(it.root, it.nonce, snap, t.delta, it.opened)
	if err != nil || tails == nil {
		return files, srcs, err
	}
	tails.wg.Wait()
	for i, f := range files {
		if b, ok := tails.got.Load(f.Path); ok {
			srcs[i] = &tailSource{Source: srcs[i], tail: b.([]byte), off: f.Size - int64(len(b.([]byte)))}
		}
	}
	return files, srcs, nil
}

// andWhere is the conjunction of two predicates ("" is none).
func andWhere(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return "(" + a + ") AND (" + b + ")"
}

// objectCache holds a table's objects by the path its session asks them by. Nil holds none.
type objectCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

// answer pushes the objects of objs the cache holds and returns the others.
func (c *objectCache) answer(objs []deltasession.Object, push func(p string, b []byte, found bool) error) ([]deltasession.Object, error) {
	if c == nil {
		return objs, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rest := objs[:0:0]
	for _, o := range objs {
		b, ok := c.m[o.Path]
		if !ok || o.Kind != "get" {
			rest = append(rest, o)
			continue
		}
		if err := push(o.Path, b, true); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

func (c *objectCache) get(p string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[p]
}

func (c *objectCache) put(p string, b []byte) {
	if c != nil {
		c.mu.Lock()
		c.m[p] = b
		c.mu.Unlock()
	}
}

// icebergMetadata is the folder's metadata/ entries (the Iceberg session's listing) when one
// of them is a table metadata file, else nil.
func (fl *folderListing) icebergMetadata() []delta.LogFile {
	var out []delta.LogFile
	table := false
	for _, o := range fl.objects {
		name, ok := strings.CutPrefix(o.Key, fl.prefix+"metadata/")
		if !ok || name == "" || strings.Contains(name, "/") {
			continue
		}
		lf := delta.LogFile{Name: name, Size: o.Size}
		if t, err := time.Parse(time.RFC3339, o.LastModified); err == nil {
			lf.ModTime = t.UnixMilli()
		}
		table = table || iceberg.IsMetadataFile(name)
		out = append(out, lf)
	}
	if !table {
		return nil
	}
	return out
}

// unsupported makes an Iceberg refusal an delta.ErrUnsupportedFeature too, its message unchanged.
func unsupported(err error) error {
	if errors.Is(err, iceberg.ErrUnsupportedFeature) {
		return featureError{err}
	}
	return err
}

type featureError struct{ error }

func (e featureError) Unwrap() []error { return []error{e.error, delta.ErrUnsupportedFeature} }
