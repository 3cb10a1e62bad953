package pqscan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// Delta tables (a local folder with a _delta_log/, or an http(s) URL ending in '/') are read
// host-side: this file drives the sans-IO delta.Loader with the local file system (listing
// _delta_log/, reading commits and _last_checkpoint, reading checkpoint and sidecar Parquet
// with pqscan's own engine; over HTTP, delta_http.go: no listing, _last_checkpoint then
// probing commits until a 404), and the
// snapshot becomes the table session's input: its live files with their sizes, partition
// values and statistics, and its schema as the table schema (the data columns in the order of
// schemaString, then the partition columns in partitionColumns order, as for Hive tables).
// DESIGN.md §7 wants the engine itself to plan the log read so that every host shares it; that
// needs new request kinds in the engine protocol (list a prefix, get a whole object) and is not
// done yet (docs/ARCHITECTURE.md, "Tables").

// deltaTable is what a Delta snapshot gives the table session besides its files.
type deltaTable struct {
	parts     []hive.Column
	statTypes map[string]prune.ColumnType
}

// isDeltaTable reports whether the folder s (written with a trailing '/') holds a Delta log.
func isDeltaTable(s string) bool {
	st, err := os.Stat(filepath.Join(filepath.FromSlash(s), "_delta_log"))
	return err == nil && st.IsDir()
}

// addDelta makes the Delta table at root the dataset's only source.
func (d *Dataset) addDelta(ctx context.Context, root, nonce string) error {
	if len(d.files) > 0 || d.delta != nil {
		return fmt.Errorf("%w: the Delta table %s must be the only source of a dataset", ErrSource, root)
	}
	version := int64(-1)
	if d.opts.DeltaVersion != nil {
		if version = *d.opts.DeltaVersion; version < 0 {
			return fmt.Errorf("%w: Delta version %d", ErrSource, version)
		}
	}
	snap, err := loadDelta(ctx, root, version, d.opts)
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	local := func(p string) string { return filepath.Join(filepath.FromSlash(root), filepath.FromSlash(p)) }
	for _, f := range snap.Files {
		if f.Absolute {
			return fmt.Errorf("%w: %s: the log names the absolute URI %s, which is not supported", ErrSource, root, f.Path)
		}
	}
	if !isHTTP(root) {
		// A missing file is named now; over HTTP its first request fails naming it.
		err = snap.CheckFiles(func(p string) bool {
			st, err := os.Stat(local(p))
			return err == nil && !st.IsDir()
		})
		if err != nil {
			return fmt.Errorf("%s: version %d: %w", root, snap.Version, err)
		}
	}
	data, err := arrowFields(snap.DataSchema())
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	for _, pc := range snap.PartitionColumns {
		for _, sf := range snap.Schema {
			if strings.EqualFold(sf.Name, pc.Name) {
				af, err := arrowField(sf)
				if err != nil {
					return fmt.Errorf("%s: %w", root, err)
				}
				data = append(data, af)
			}
		}
	}
	if len(data) == 0 {
		return fmt.Errorf("%w: %s: the Delta schema has no columns", ErrSource, root)
	}
	d.table = data
	d.delta = &deltaTable{parts: snap.PartitionColumns, statTypes: statTypes(snap.Schema, "", map[string]prune.ColumnType{})}
	for i, f := range snap.Files {
		if isHTTP(root) {
			u := root + pathenc.EscapePath(f.Path)
			ho := d.opts.HTTP
			ho.FileSize = f.Size
			d.files = append(d.files, tablescan.File{Path: u, Size: f.Size, Partition: f.Partition,
				Stats: fileStats(snap.FileStats(i), d.delta.statTypes), Version: nonce})
			d.srcs = append(d.srcs, httpclient.NewHTTP(u, ho))
			continue
		}
		p := local(f.Path)
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		d.closers = append(d.closers, fh)
		st, err := fh.Stat()
		if err != nil {
			return err
		}
		if st.Size() != f.Size {
			return fmt.Errorf("%w: %s is %d bytes, the Delta log (version %d) says %d", ErrFileChanged, p, st.Size(), f.Version, f.Size)
		}
		d.files = append(d.files, tablescan.File{Path: p, Size: f.Size, Partition: f.Partition, Stats: fileStats(snap.FileStats(i), d.delta.statTypes),
			Version: fmt.Sprintf("%s:%d", nonce, st.ModTime().UnixNano())})
		d.srcs = append(d.srcs, httpclient.NewReaderAt(fh, f.Size))
	}
	return nil
}

// loadDelta replays the log of the local Delta table at root up to version (-1: the latest),
// answering each round of the Loader's requests from the file system.
func loadDelta(ctx context.Context, root string, version int64, opts Options) (*delta.Snapshot, error) {
	l := delta.NewLoader(delta.LoaderOptions{Version: version, CanList: !isHTTP(root)})
	for round := 0; ; round++ {
		reqs, done, err := l.Next()
		if err != nil {
			return nil, err
		}
		if done {
			return l.Snapshot()
		}
		if len(reqs) == 0 || round > 1000 {
			return nil, fmt.Errorf("%w: the Delta log read made no progress", ErrProtocol)
		}
		for _, r := range reqs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := answerDelta(ctx, l, root, r, opts); err != nil {
				return nil, err
			}
		}
	}
}

// answerDelta performs one Loader request on the local table at root.
func answerDelta(ctx context.Context, l *delta.Loader, root string, r delta.Request, opts Options) error {
	if isHTTP(root) {
		return answerDeltaHTTP(ctx, l, root, r, opts)
	}
	p := filepath.Join(filepath.FromSlash(root), filepath.FromSlash(r.Path))
	switch r.Kind {
	case delta.ReqList:
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		var files []delta.LogFile
		for _, e := range ents {
			lf, ok := delta.ParseLogName(e.Name())
			if !ok || e.IsDir() {
				continue
			}
			lf.Size = -1
			if info, err := e.Info(); err == nil {
				lf.Size = info.Size()
			}
			files = append(files, lf)
		}
		return l.PushList(files)
	case delta.ReqGet:
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return l.PushObject(r.Path, nil, false)
		}
		if err != nil {
			return err
		}
		return l.PushObject(r.Path, b, true)
	case delta.ReqCheckpoint:
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return l.PushCheckpoint(r.Path, nil, false)
		}
		rows, err := readCheckpointRows(ctx, p, opts)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", r.Path, err)
		}
		acts, err := delta.ActionsFromRows(r.Path, rows)
		if err != nil {
			return err
		}
		return l.PushCheckpoint(r.Path, acts, true)
	}
	return fmt.Errorf("%w: Delta request kind %d", ErrProtocol, r.Kind)
}
