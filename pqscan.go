// Package pqscan reads Parquet files, local or remote over HTTP range requests, as arrow-go
// record batches.
//
// The scan itself is done by a sans-IO engine (package scan) that says which byte ranges it
// needs and returns Arrow IPC; this package fetches the ranges from a Source and decodes the
// IPC with arrow-go. The engine is linked natively (Native) or, through package wazerohost,
// run as the same WebAssembly module browsers use; see Engine.
//
//	f, err := pqscan.Open(ctx, "https://example.com/data.parquet", pqscan.Options{})
//	r, err := f.Scan(ctx, pqscan.ScanOptions{Columns: []string{"id", "name"}, Limit: 10})
//	for {
//		rec, err := r.Next()
//		if err == io.EOF { break }
//		...
//	}
//
// Non-goals: writing Parquet, encrypted Parquet (an error), caching across scans.
package pqscan

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/scan"
)

// Source gives a scan the bytes of one file (an HTTP URL, a local file, any io.ReaderAt).
type Source = httpclient.Source

// ErrSource: Open was given something that is neither a path, a URL nor a Source.
var ErrSource = errors.New("pqscan: source must be a path, an http(s) URL or a Source")

// Options configure Open.
type Options struct {
	// Engine runs the scans; nil means Native{}.
	Engine Engine
	// HTTP configures the client used for http(s) URLs.
	HTTP httpclient.Options
	// MemoryCap bounds the bytes the engine allocates for one page, dictionary or batch
	// (scan.Options.MemoryCap); 0 means the engine's default (256 MiB).
	MemoryCap int64
	// TailSize is the size of the first tail read (scan.Options.TailSize); 0 means 64 KiB.
	TailSize int64
	// Allocator allocates the arrow-go buffers of returned batches; nil means the Go allocator.
	Allocator memory.Allocator
}

// File is an open Parquet file whose footer has been read. Its methods are safe for
// concurrent use; each Reader is used by one goroutine.
type File struct {
	src    Source
	closer io.Closer
	size   int64
	opts   Options
	schema *arrow.Schema
	meta   *format.FileMetaData
	// tail holds the bytes fetched while reading the footer; every scan starts with them so
	// that it does not fetch the footer again.
	tail []piece
}

type piece struct {
	off int64
	b   []byte
}

// Open opens a Parquet file and reads its footer. src is a local path, an http:// or https://
// URL (fetched with range requests) or a Source.
func Open(ctx context.Context, src any, opts Options) (*File, error) {
	switch s := src.(type) {
	case string:
		if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
			return open(ctx, httpclient.NewHTTP(s, opts.HTTP), nil, s, opts)
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
	f := &File{src: src, closer: closer, size: size, opts: opts}
	if err := f.readFooter(ctx); err != nil {
		return nil, fmt.Errorf("pqscan: %s: %w", name, err)
	}
	return f, nil
}

// readFooter runs a scan until the engine has decoded the footer, keeping the bytes it asked
// for; the Arrow schema comes from the engine (so that it is exactly what scans return) and the
// Thrift metadata is decoded here from the same bytes.
func (f *File) readFooter(ctx context.Context) error {
	sess, err := f.opts.Engine.Start(ctx, f.scanOptions())
	if err != nil {
		return err
	}
	defer sess.Close()
	var ipcSchema []byte
	var last []httprange.Range
	for ipcSchema == nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := sess.Next()
		if b, err := sess.Schema(); err == nil {
			ipcSchema = b
			break
		}
		switch st.Kind {
		case scan.NeedRanges:
			if err := checkProgress(&last, st.Ranges); err != nil {
				return err
			}
			err := f.src.Fetch(ctx, st.Ranges, func(off int64, b []byte) error {
				f.tail = append(f.tail, piece{off, bytes.Clone(b)})
				return sess.Push(off, b)
			})
			if err != nil {
				return err
			}
		case scan.Error:
			return st.Err
		default:
			return fmt.Errorf("%w: %v before the schema", scan.ErrInternal, st.Kind)
		}
	}
	rdr, err := ipc.NewReader(bytes.NewReader(ipcSchema), ipc.WithAllocator(f.opts.Allocator))
	if err != nil {
		return fmt.Errorf("%w: engine schema: %v", scan.ErrInternal, err)
	}
	f.schema = rdr.Schema()
	rdr.Release()
	return f.decodeMetadata()
}

// decodeMetadata decodes FileMetaData from the kept tail bytes.
func (f *File) decodeMetadata() error {
	end, ok := f.bytesAt(httprange.Range{Off: f.size - 8, Len: 8})
	if !ok {
		return fmt.Errorf("%w: footer bytes were not fetched", scan.ErrInternal)
	}
	n := int64(binary.LittleEndian.Uint32(end))
	footer, ok := f.bytesAt(httprange.Range{Off: f.size - 8 - n, Len: n})
	if !ok {
		return fmt.Errorf("%w: footer bytes were not fetched", scan.ErrInternal)
	}
	meta, err := format.DecodeFileMetaData(footer)
	if err != nil {
		return err
	}
	f.meta = meta
	return nil
}

// bytesAt assembles r from the kept pieces; ok is false when some byte is missing.
func (f *File) bytesAt(r httprange.Range) ([]byte, bool) {
	if r.Off < 0 || r.Len < 0 || r.End() > f.size {
		return nil, false
	}
	out := make([]byte, r.Len)
	covered := make([]bool, r.Len)
	for _, p := range f.tail {
		lo, hi := max(r.Off, p.off), min(r.End(), p.off+int64(len(p.b)))
		for o := lo; o < hi; o++ {
			out[o-r.Off] = p.b[o-p.off]
			covered[o-r.Off] = true
		}
	}
	for _, c := range covered {
		if !c {
			return nil, false
		}
	}
	return out, true
}

func (f *File) scanOptions() scan.Options {
	return scan.Options{FileSize: f.size, MemoryCap: f.opts.MemoryCap, TailSize: f.opts.TailSize}
}

// Size returns the file size in bytes.
func (f *File) Size() int64 { return f.size }

// Schema returns the Arrow schema of a scan of every column.
func (f *File) Schema() *arrow.Schema { return f.schema }

// Metadata returns the decoded Parquet footer. Callers must not modify it.
func (f *File) Metadata() *format.FileMetaData { return f.meta }

// Source returns the Source the file is read from (its Stats count the requests made).
func (f *File) Source() Source { return f.src }

// Close releases the file (the local file handle when Open was given a path).
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// checkProgress fails when the engine asks again for exactly the ranges it was just given:
// pushing them changed nothing, so looping would never end.
func checkProgress(last *[]httprange.Range, rs []httprange.Range) error {
	if slices.Equal(*last, rs) {
		return fmt.Errorf("%w: the engine asked again for the ranges just pushed %v", scan.ErrInternal, rs)
	}
	*last = slices.Clone(rs)
	return nil
}
