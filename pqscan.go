// Package pqscan reads Parquet files, local or remote over HTTP range requests, as arrow-go
// record batches, downloading only the bytes a query needs.
//
// The scan is done by a sans-IO engine that says which byte ranges it needs and returns Arrow
// IPC; this package fetches the ranges from a Source and decodes the IPC with arrow-go. The
// engine is linked natively (Native, the default) or, through package wazerohost, run as the
// same WebAssembly module browsers use: a *wazerohost.Host is an Engine.
//
//	f, err := pqscan.Open(ctx, "https://example.com/data.parquet", pqscan.Options{})
//	r, err := f.Scan(ctx, pqscan.ScanOptions{Columns: []string{"id", "name"}, Limit: 10})
//	for {
//		rec, err := r.Next()
//		if err == io.EOF { break }
//		...
//	}
//
// Protocol: Open starts one engine session that stops at its Metadata step (one tail read,
// one footer decode); each Scan starts another session of the same file, which takes the
// decoded footer from the engine's footer cache (Options.FileKey of the engine) and the tail
// bytes kept by the File, so it fetches neither again. See Session for the steps.
//
// Non-goals: writing Parquet, encrypted Parquet (an error).
package pqscan

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/drive"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/openscope"
	"github.com/pqscan/pqscan/internal/scan"
	"github.com/pqscan/pqscan/internal/tailcache"
)

// File is an open Parquet file whose footer has been read. Its methods are safe for
// concurrent use; each Reader is used by one goroutine.
type File struct {
	// mu guards the fields a File reads again when its cached metadata turns out stale
	// (reload): src, size, key, schema, info, tail, mc.
	mu     sync.Mutex
	src    Source
	closer io.Closer
	name   string
	size   int64
	key    string // the engine's footer-cache key for this File
	opts   Options
	schema *arrow.Schema
	info   *FileInfo
	// tail holds the bytes fetched while reading the footer (often the page index too); every
	// scan is given them first, so a scan on an engine instance whose footer cache misses
	// (another wazero instance) still fetches nothing twice.
	tail []piece
	// mc links the File to the persistent metadata store (Options.MetadataCache); nil
	// without one.
	mc *tailcache.Link
}

// piece is bytes of the file at an offset, as the metadata cache stores them.
type piece = metacache.Piece

// fileSeq numbers the Files of the process: a File's scans share its footer-cache key, and no
// other File's (two Opens of one URL may see two versions of it).
var fileSeq atomic.Int64

// Open opens a Parquet file and reads its footer. src is a local path, an http:// or https://
// URL (fetched with range requests) or a Source.
func Open(ctx context.Context, src any, opts Options) (*File, error) {
	switch s := src.(type) {
	case string:
		if openscope.IsHTTP(s) {
			sc, err := newScope([]string{s}, opts)
			if err != nil {
				return nil, fmt.Errorf("pqscan: %w", err)
			}
			opts.HTTP.Client = sc.Client(opts.HTTP.Client)
			return openHTTP(ctx, s, opts)
		}
		fh, err := os.Open(s)
		if err != nil {
			return nil, fmt.Errorf("pqscan: %w", err)
		}
		st, err := fh.Stat()
		if err != nil {
			fh.Close()
			return nil, fmt.Errorf("pqscan: %w", err)
		}
		if st.IsDir() {
			fh.Close()
			return nil, fmt.Errorf("pqscan: %s is a directory", s)
		}
		f, err := open(ctx, httpclient.NewReaderAt(fh, st.Size()), fh, s, opts)
		if err != nil {
			fh.Close()
		}
		return f, err
	case Source:
		return open(ctx, s, nil, "source", opts)
	}
	return nil, fmt.Errorf("%w, not %T", ErrSource, src)
}

// OpenReaderAt opens a Parquet file of the given size read through r.
func OpenReaderAt(ctx context.Context, r io.ReaderAt, size int64, opts Options) (*File, error) {
	return open(ctx, httpclient.NewReaderAt(r, size), nil, "reader", opts)
}

func open(ctx context.Context, src Source, closer io.Closer, name string, opts Options) (*File, error) {
	return openWith(ctx, src, closer, name, opts, nil)
}

// openWith is open with a File's link to the metadata store (nil: none), whose entry, when
// it came from the store, gives the tail bytes.
func openWith(ctx context.Context, src Source, closer io.Closer, name string, opts Options, mc *tailcache.Link) (*File, error) {
	if opts.Engine == nil {
		opts.Engine = Native{}
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	size, err := src.Size(ctx)
	if err != nil {
		return nil, fmt.Errorf("pqscan: %s: %w", name, err)
	}
	if size < 12 {
		// Also keeps a 0 size from meaning "unknown" to the engine.
		return nil, fmt.Errorf("pqscan: %s: %w: %d bytes is too small for a Parquet file", name, scan.ErrNotParquet, size)
	}
	f := &File{src: src, closer: closer, name: name, size: size, opts: opts, mc: mc}
	f.key = fmt.Sprintf("pqscan.File#%d:%d", fileSeq.Add(1), size)
	if mc.FromStore() {
		f.tail = mc.Pieces()
	}
	if err := f.readFooter(ctx); err != nil {
		return nil, fmt.Errorf("pqscan: %s: %w", name, err)
	}
	if mc != nil && !mc.FromStore() {
		mc.Keep(f.size, f.src, f.tail)
	}
	return f, nil
}

// readFooter runs a session to its Metadata step, keeping the bytes it fetched (after those
// of f.tail, which it is given first).
func (f *File) readFooter(ctx context.Context) error {
	sess, err := f.opts.Engine.Start(ctx, f.engineOptions(ScanOptions{}))
	if err != nil {
		return err
	}
	defer sess.Close()
	for _, p := range f.tail {
		if err := sess.Push(p.Off, p.Bytes); err != nil {
			return err
		}
	}
	d := &drive.Driver{Sess: sess, Src: f.src, Sized: true, OnFetch: func(off int64, b []byte) {
		f.tail = append(f.tail, piece{Off: off, Bytes: bytes.Clone(b)})
	}}
	f.info, f.schema, err = metadata(ctx, d, f.opts.Allocator)
	return err
}

// engineOptions completes a scan's options with the File's settings and the host fields.
func (f *File) engineOptions(o ScanOptions) scan.Options {
	if o.MemoryCap == 0 {
		o.MemoryCap = f.opts.MemoryCap
	}
	if o.TailSize == 0 {
		o.TailSize = f.opts.TailSize
	}
	o.FileSize, o.FileKey, o.Metadata = f.size, f.key, true
	return o
}

// openHTTP opens the file at url, from its stored tail when Options.MetadataCache has one:
// no request is made then, and the HTTP source is pinned to the stored size and validator,
// so that the first response of a replaced file is ErrFileChanged (and the scan reads the
// file again, Reader.restart). A stored tail that does not open is dropped and the file read.
func openHTTP(ctx context.Context, url string, opts Options) (*File, error) {
	link := tailcache.New(opts.MetadataCache, url)
	if mc, t := link.Stored(); mc != nil {
		ho := opts.HTTP
		ho.FileSize, ho.ETag, ho.LastModified = t.Size, t.ETag, t.LastModified
		ho.RangeKnown = true // the stored tail was read by range: the first round goes out whole
		f, err := openWith(ctx, httpclient.NewHTTP(url, ho), nil, url, opts, mc)
		if err == nil || ctx.Err() != nil {
			return f, err
		}
		link.Drop()
	}
	return openWith(ctx, httpclient.NewHTTP(url, opts.HTTP), nil, url, opts, link)
}

// reload reads the footer of a File whose stored metadata (stale) is mc again, unless
// another scan of the File did so already, and stores the new entry.
func (f *File) reload(ctx context.Context, stale *tailcache.Link) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mc != stale {
		return nil
	}
	stale.Drop()
	nf := &File{name: f.name, opts: f.opts, mc: stale.Fresh()}
	nf.src = httpclient.NewHTTP(stale.URL(), f.opts.HTTP)
	size, err := nf.src.Size(ctx)
	if err != nil {
		return err
	}
	nf.size = size
	nf.key = fmt.Sprintf("pqscan.File#%d:%d", fileSeq.Add(1), size)
	if err := nf.readFooter(ctx); err != nil {
		return err
	}
	nf.mc.Keep(nf.size, nf.src, nf.tail)
	f.src, f.size, f.key, f.schema, f.info, f.tail, f.mc = nf.src, nf.size, nf.key, nf.schema, nf.info, nf.tail, nf.mc
	return nil
}

// Size returns the file size in bytes.
func (f *File) Size() int64 { return f.size }

// Schema returns the Arrow schema of a scan of every column.
func (f *File) Schema() *arrow.Schema { return f.schema }

// Metadata returns the decoded footer (rows, row groups, writer, key/value metadata). Callers
// must not modify it.
func (f *File) Metadata() *FileInfo { return f.info }

// Source returns the Source the file is read from (its Stats count the requests made).
func (f *File) Source() Source { return f.src }

// Close releases the file (the local file handle when Open was given a path).
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}
