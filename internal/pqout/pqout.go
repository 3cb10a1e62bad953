// Package pqout writes a scan's record batches as a Parquet file (pqscan cat --format
// parquet): arrow-go's pqarrow writer with zstd, statistics and the page index on and the
// Arrow schema stored, so the extract of a remote file is itself a file pqscan (or any
// reader) can skip through.
//
// It streams: each batch goes into the current row group, and a row group is written out
// when it reaches RowGroupRows rows or RowGroupBytes compressed bytes of completed pages
// (checked after each batch; the page being filled is not counted, at most the 1 MiB data page
// size per column more), so memory holds one row group, never the whole result. The Parquet footer is written by Close; until then the
// output is not a Parquet file, which is why the CLI writes to a temporary name and renames
// it on success.
//
// GeoArrow WKB columns (from GeoParquet or GEOMETRY sources) get GeoParquet `geo` metadata,
// so the extract of a map file is still a GeoParquet file.
package pqout

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ErrType: the schema has an Arrow type the Parquet writer cannot store.
var ErrType = errors.New("pqout: type not writable as Parquet")

// Defaults for Options.
const (
	// DefaultRowGroupRows matches pqscan optimize's default: row groups large enough for
	// statistics to skip whole groups, small enough to keep a page index per group useful.
	DefaultRowGroupRows = 1 << 20
	// DefaultRowGroupBytes bounds the memory of the buffered row group (its compressed pages
	// are held until the group is complete).
	DefaultRowGroupBytes = 128 << 20
)

// Options shape the output file; zero values mean the defaults.
type Options struct {
	RowGroupRows  int64
	RowGroupBytes int64
	// CreatedBy is the footer's created_by ("pqscan cat" when empty).
	CreatedBy string
}

// Writer writes record batches of one schema as a Parquet file. It is not safe for
// concurrent use.
type Writer struct {
	fw       *pqarrow.FileWriter
	maxBytes int64
	newGroup bool // the current row group is full: start another before the next rows
}

// New starts a Parquet file on w for batches of schema. It does not close w (pqarrow closes
// a writer that is an io.Closer; New hides that from it).
func New(w io.Writer, schema *arrow.Schema, opts Options) (*Writer, error) {
	if opts.RowGroupRows <= 0 {
		opts.RowGroupRows = DefaultRowGroupRows
	}
	if opts.RowGroupBytes <= 0 {
		opts.RowGroupBytes = DefaultRowGroupBytes
	}
	if opts.CreatedBy == "" {
		opts.CreatedBy = "pqscan cat"
	}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithStats(true),
		parquet.WithPageIndexEnabled(true),
		parquet.WithMaxRowGroupLength(opts.RowGroupRows),
		parquet.WithCreatedBy(opts.CreatedBy),
	)
	fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, props,
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrType, err)
	}
	if g := geoMetadata(schema); g != "" {
		if err := fw.AppendKeyValueMetadata("geo", g); err != nil {
			return nil, fmt.Errorf("pqout: %w", err)
		}
	}
	return &Writer{fw: fw, maxBytes: opts.RowGroupBytes}, nil
}

// Write adds rec's rows. It does not keep rec.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if w.newGroup {
		if err := w.fw.NewBufferedRowGroupChecked(); err != nil {
			return fmt.Errorf("pqout: %w", err)
		}
		w.newGroup = false
	}
	if err := w.fw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("pqout: %w", err)
	}
	w.newGroup = w.fw.RowGroupTotalCompressedBytes() >= w.maxBytes
	return nil
}

// Close writes the last row group and the footer. It does not close the underlying writer.
func (w *Writer) Close() error {
	if err := w.fw.Close(); err != nil {
		return fmt.Errorf("pqout: %w", err)
	}
	return nil
}
