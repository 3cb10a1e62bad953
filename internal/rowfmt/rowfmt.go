package rowfmt

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// ErrFormat: the format name is not one of Formats.
var ErrFormat = errors.New("rowfmt: unknown format")

// Formats lists the format names New accepts.
var Formats = []string{"jsonl", "csv", "table", "arrow", "geojson", "geojsonl"}

// Writer renders record batches of one schema. It is not safe for concurrent use.
type Writer interface {
	// Write renders every row of rec, whose schema must be the writer's. It does not keep rec.
	Write(rec arrow.RecordBatch) error
	// Close flushes buffered output (the table's last block, the IPC end-of-stream marker). It
	// does not close the underlying io.Writer.
	Close() error
}

// Options tune the text formats.
type Options struct {
	// MaxCellWidth truncates table cells to that many characters ("…" marks the cut); 0 means 40.
	MaxCellWidth int
	// BlockRows is the number of rows the table buffers to compute column widths; later blocks
	// reuse the first block's widths. 0 means 1000.
	BlockRows int
}

// New returns a Writer of the named format writing to w.
func New(format string, w io.Writer, schema *arrow.Schema, opts Options) (Writer, error) {
	if opts.MaxCellWidth <= 0 {
		opts.MaxCellWidth = 40
	}
	if opts.BlockRows <= 0 {
		opts.BlockRows = 1000
	}
	switch format {
	case "jsonl":
		return &jsonlWriter{w: bufio.NewWriter(w), schema: schema}, nil
	case "csv":
		return &csvWriter{w: csv.NewWriter(w), schema: schema}, nil
	case "table":
		return &tableWriter{w: bufio.NewWriter(w), schema: schema, opts: opts}, nil
	case "arrow":
		return &arrowWriter{w: ipc.NewWriter(w, ipc.WithSchema(schema))}, nil
	case "geojson", "geojsonl":
		return newGeoJSON(bufio.NewWriter(w), schema, format == "geojsonl")
	}
	return nil, fmt.Errorf("%w %q (want one of %s)", ErrFormat, format, strings.Join(Formats, ", "))
}

// Text is the rendering of a value for the flat formats: "" with null=true for null, the
// content of a JSON string without quotes (strings, timestamps, decimals, base64, UUIDs), and
// the JSON text for everything else (numbers, booleans, lists, structs, maps).
func Text(f arrow.Field, arr arrow.Array, i int) (s string, null bool) {
	if arr.IsNull(i) {
		return "", true
	}
	if s, ok := stringValue(arr, i); ok && extName(f) == "" {
		return s, false
	}
	b := AppendJSON(nil, f, arr, i)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s, false
		}
	}
	return string(b), string(b) == "null"
}

type jsonlWriter struct {
	w      *bufio.Writer
	schema *arrow.Schema
	buf    []byte
	keys   [][]byte
}

func (j *jsonlWriter) Write(rec arrow.RecordBatch) error {
	if j.keys == nil {
		for _, f := range j.schema.Fields() {
			j.keys = append(j.keys, append(appendString(nil, f.Name), ':'))
		}
	}
	fields := j.schema.Fields()
	if int(rec.NumCols()) != len(fields) {
		return fmt.Errorf("rowfmt: record has %d columns, the schema %d", rec.NumCols(), len(fields))
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		b := append(j.buf[:0], '{')
		for c, f := range fields {
			if c > 0 {
				b = append(b, ',')
			}
			b = append(b, j.keys[c]...)
			b = AppendJSON(b, f, rec.Column(c), r)
		}
		b = append(b, '}', '\n')
		j.buf = b
		if _, err := j.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonlWriter) Close() error { return j.w.Flush() }

type csvWriter struct {
	w      *csv.Writer
	schema *arrow.Schema
	header bool
	row    []string
}

func (c *csvWriter) writeHeader() error {
	if c.header {
		return nil
	}
	c.header = true
	names := make([]string, 0, c.schema.NumFields())
	for _, f := range c.schema.Fields() {
		names = append(names, f.Name)
	}
	return c.w.Write(names)
}

func (c *csvWriter) Write(rec arrow.RecordBatch) error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	fields := c.schema.Fields()
	if int(rec.NumCols()) != len(fields) {
		return fmt.Errorf("rowfmt: record has %d columns, the schema %d", rec.NumCols(), len(fields))
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		c.row = c.row[:0]
		for k, f := range fields {
			s, _ := Text(f, rec.Column(k), r)
			c.row = append(c.row, s)
		}
		if err := c.w.Write(c.row); err != nil {
			return err
		}
	}
	return c.w.Error()
}

func (c *csvWriter) Close() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}

type arrowWriter struct{ w *ipc.Writer }

func (a *arrowWriter) Write(rec arrow.RecordBatch) error { return a.w.Write(rec) }
func (a *arrowWriter) Close() error                      { return a.w.Close() }
