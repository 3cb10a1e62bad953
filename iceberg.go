package pqscan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/dataset/icebergsession"
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

// isIcebergMetadata reports whether s names a table metadata file.
func isIcebergMetadata(s string) bool {
	_, ok := iceberg.MetadataVersion(path.Base(filepath.ToSlash(s)))
	return ok || strings.HasSuffix(s, ".metadata.json")
}

// icebergRoot splits a metadata file's path or URL into the table root (the folder above the
// one holding it, ending in '/') and the file relative to it ("metadata/v3.metadata.json").
func icebergRoot(s string) (root, meta string) {
	dir, file := path.Split(s)
	parent, sub := path.Split(strings.TrimSuffix(dir, "/"))
	if parent == "" {
		parent = "./"
	}
	return parent, sub + "/" + file
}

// addIceberg makes the Iceberg table at root the dataset's only source; meta, when not "",
// is the metadata file to read (relative to root), else the current one is found (listing,
// when not nil, is an http(s) folder's metadata/ entries, the answer to the session's list).
func (d *Dataset) addIceberg(ctx context.Context, root, meta, nonce string, listing []delta.LogFile) error {
	if len(d.files) > 0 || d.delta != nil {
		return fmt.Errorf("%w: the Iceberg table %s must be the only source of a dataset", ErrSource, root)
	}
	so := icebergsession.Options{Metadata: meta, CanList: !isHTTP(root) || listing != nil, SnapshotID: d.opts.IcebergSnapshotID, Where: d.opts.IcebergWhere}
	so.PathMap = resolvePathMap(d.opts.PathMap) // checked by newOpenScope
	if !d.opts.IcebergAsOf.IsZero() {
		so.AsOf = new(d.opts.IcebergAsOf.UnixMilli())
	}
	if so.AsOf != nil && so.SnapshotID != nil {
		return fmt.Errorf("%w: an Iceberg snapshot id and a time (IcebergAsOf) together", ErrSource)
	}
	var s deltasession.Driven
	var err error
	if ie, ok := d.opts.Engine.(icebergEngine); ok {
		s, err = ie.StartIcebergSession(ctx, so)
	} else {
		s, err = icebergsession.StartNative(so)
	}
	if err != nil {
		return err
	}
	snap, err := driveSnapshot(ctx, root, d.opts, listing, d.scope, s)
	if err != nil {
		return fmt.Errorf("%s: %w", root, unsupported(err))
	}
	return d.addSnapshot(root, nonce, snap, &deltaTable{iceberg: true, statTypes: snap.Table.StatTypes, names: snap.Table.NameMapping})
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
		table = table || isIcebergMetadata(name)
		out = append(out, lf)
	}
	if !table {
		return nil
	}
	return out
}

// unsupported makes an Iceberg refusal an ErrUnsupportedFeature too, its message unchanged.
func unsupported(err error) error {
	if errors.Is(err, iceberg.ErrUnsupportedFeature) {
		return featureError{err}
	}
	return err
}

type featureError struct{ error }

func (e featureError) Unwrap() []error { return []error{e.error, ErrUnsupportedFeature} }
