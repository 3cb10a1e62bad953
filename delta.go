package pqscan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/deltasession"
	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/tablescan"
)

// Delta tables (a local folder with a _delta_log/, or an http(s) URL ending in '/') are read
// host-side: this file drives the sans-IO delta.Loader with the local file system (listing
// _delta_log/, reading commits and _last_checkpoint, reading checkpoint and sidecar Parquet
// with pqscan's own engine; over HTTP, the folder's ListObjectsV2 listing when the server
// lists, else (delta_http.go) _last_checkpoint then probing commits in parallel batches
// until a 404; every round's requests in parallel), and the
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
	}
	snap, err := loadDelta(ctx, root, version, d.opts, log)
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
	data, err := deltasession.ArrowFields(snap.DataSchema())
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	for _, pc := range snap.PartitionColumns {
		for _, sf := range snap.Schema {
			if strings.EqualFold(sf.Name, pc.Name) {
				af, err := deltasession.ArrowField(sf)
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
	d.delta = &deltaTable{parts: snap.PartitionColumns, statTypes: deltasession.StatTypes(snap.Schema, "", map[string]prune.ColumnType{})}
	for i, f := range snap.Files {
		rows := f.Rows() // numRecords, for counts and min/max; 0: unknown
		if isHTTP(root) {
			u := root + pathenc.EscapePath(f.Path)
			ho := d.opts.HTTP
			ho.FileSize = f.Size
			d.files = append(d.files, tablescan.File{Path: u, Size: f.Size, Partition: f.Partition,
				Stats: deltasession.FileStats(snap.FileStats(i), d.delta.statTypes), Rows: rows, Version: nonce})
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
		d.files = append(d.files, tablescan.File{Path: p, Size: f.Size, Partition: f.Partition, Stats: deltasession.FileStats(snap.FileStats(i), d.delta.statTypes),
			Rows: rows, Version: fmt.Sprintf("%s:%d", nonce, st.ModTime().UnixNano())})
		d.srcs = append(d.srcs, httpclient.NewReaderAt(fh, f.Size))
	}
	return nil
}

// deltaFetches bounds the requests of one log round in flight at once: a probe batch (8
// commits) and a checkpoint's parts go out together, as the Loader plans them.
const deltaFetches = 8

// loadDelta replays the log of the Delta table at root up to version (-1: the latest). Each
// round of the Loader's requests is fetched in parallel (bounded by deltaFetches), then the
// answers are pushed in the Loader's order: the Loader is single-threaded, its I/O need not be.
func loadDelta(ctx context.Context, root string, version int64, opts Options, log []delta.LogFile) (*delta.Snapshot, error) {
	l := delta.NewLoader(delta.LoaderOptions{Version: version, CanList: !isHTTP(root) || log != nil})
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
		pushes := make([]func(*delta.Loader) error, len(reqs))
		errs := make([]error, len(reqs))
		sem := make(chan struct{}, deltaFetches)
		var wg sync.WaitGroup
		for i, r := range reqs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				if errs[i] = ctx.Err(); errs[i] == nil {
					pushes[i], errs[i] = fetchDelta(ctx, root, r, opts, log)
				}
			}()
		}
		wg.Wait()
		for i := range reqs {
			if errs[i] != nil {
				return nil, errs[i] // the first in the Loader's order, whichever failed first
			}
			if err := pushes[i](l); err != nil {
				return nil, err
			}
		}
	}
}

// fetchDelta performs one Loader request on the table at root and returns the push of its
// answer. A ReqList is answered from log when the folder's listing gave it.
func fetchDelta(ctx context.Context, root string, r delta.Request, opts Options, log []delta.LogFile) (func(*delta.Loader) error, error) {
	if r.Kind == delta.ReqList && log != nil {
		return func(l *delta.Loader) error { return l.PushList(log) }, nil
	}
	if isHTTP(root) {
		return fetchDeltaHTTP(ctx, root, r, opts)
	}
	p := filepath.Join(filepath.FromSlash(root), filepath.FromSlash(r.Path))
	switch r.Kind {
	case delta.ReqList:
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
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
		return func(l *delta.Loader) error { return l.PushList(files) }, nil
	case delta.ReqGet:
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return func(l *delta.Loader) error { return l.PushObject(r.Path, nil, false) }, nil
		}
		if err != nil {
			return nil, err
		}
		return func(l *delta.Loader) error { return l.PushObject(r.Path, b, true) }, nil
	case delta.ReqCheckpoint:
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return func(l *delta.Loader) error { return l.PushCheckpoint(r.Path, nil, false) }, nil
		}
		return fetchCheckpoint(ctx, p, r.Path, opts)
	}
	return nil, fmt.Errorf("%w: Delta request kind %d", ErrProtocol, r.Kind)
}

// fetchCheckpoint reads the checkpoint or sidecar Parquet file at src (a path or URL) with
// the engine and returns the push of its actions.
func fetchCheckpoint(ctx context.Context, src, name string, opts Options) (func(*delta.Loader) error, error) {
	rows, err := readCheckpointRows(ctx, src, opts)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", name, err)
	}
	acts, err := delta.ActionsFromRows(name, rows)
	if err != nil {
		return nil, err
	}
	return func(l *delta.Loader) error { return l.PushCheckpoint(name, acts, true) }, nil
}
