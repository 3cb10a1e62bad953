package geosample

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/pqscan/pqscan/internal/decode/thrift"
)

// Native turns a file written by Write without `geo` metadata into its native-GEOMETRY
// variant: the geometry column gets the Parquet GEOMETRY logical type (OGC:CRS84, the default
// CRS) and each of its chunks the geospatial statistics of its rows (their bounding box and
// WKB types), with the chunk's binary min/max dropped (GEOMETRY has no sort order). The pages
// are untouched; only the footer is re-encoded. arrow-go v18.8.0 writes neither the type nor
// the statistics, and a footer rewrite keeps the generator on the one writer. rows are the
// rows Write was given, in order.
//
// A chunk's box is the plain min/max of its rows' bounds, so a chunk with rows on both sides
// of the antimeridian spans the whole x range: valid, and conservative.
func Native(data []byte, rows []Row) ([]byte, error) {
	rd, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("geosample: %w", err)
	}
	var stats [][]byte
	lo := 0
	for i := 0; i < rd.NumRowGroups(); i++ {
		n := int(rd.MetaData().RowGroup(i).NumRows())
		if lo+n > len(rows) {
			return nil, errors.New("geosample: the file holds more rows than given")
		}
		stats = append(stats, geoStats(rows[lo:lo+n]))
		lo += n
	}
	n := len(data)
	if n < 12 || string(data[n-4:]) != "PAR1" {
		return nil, errors.New("geosample: not a Parquet file")
	}
	flen := int(binary.LittleEndian.Uint32(data[n-8:]))
	if flen > n-12 {
		return nil, errors.New("geosample: bad footer length")
	}
	footer := data[n-8-flen : n-8]
	rw := &rewriter{r: thrift.NewReader(footer), in: footer, stats: stats}
	if err := rw.fileMeta(); err != nil {
		return nil, fmt.Errorf("geosample: footer: %w", err)
	}
	if rw.chunk != len(stats) {
		return nil, fmt.Errorf("geosample: %d geometry chunks for %d row groups", rw.chunk, len(stats))
	}
	out := append(slices.Clip(data[:n-8-flen]), rw.e.b...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(rw.e.b)))
	return append(out, "PAR1"...), nil
}

// geoStats is the compact encoding of a GeospatialStatistics struct's fields (bbox, types)
// for rows, without the struct's STOP.
func geoStats(rows []Row) []byte {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	var types []int32
	for _, r := range rows {
		lo[0], lo[1] = min(lo[0], r.Min[0]), min(lo[1], r.Min[1])
		hi[0], hi[1] = max(hi[0], r.Max[0]), max(hi[1], r.Max[1])
		if t := int32(binary.LittleEndian.Uint32(r.WKB[1:])); !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	var e enc
	e.begin()
	e.field(1, thrift.Struct) // BoundingBox: xmin, xmax, ymin, ymax
	e.begin()
	for i, v := range []float64{lo[0], hi[0], lo[1], hi[1]} {
		e.field(int16(i+1), thrift.Double)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
	}
	e.end()
	e.field(2, thrift.List)
	e.b = append(e.b, byte(len(types))<<4|byte(thrift.I32))
	for _, t := range types {
		e.b = binary.AppendUvarint(e.b, uint64(t)<<1)
	}
	return e.b // the caller ends the struct
}

// enc writes the compact protocol; last holds the previous field id of each open struct.
type enc struct {
	b    []byte
	last []int16
}

func (e *enc) begin() { e.last = append(e.last, 0) }

func (e *enc) end() {
	e.b = append(e.b, 0)
	e.last = e.last[:len(e.last)-1]
}

func (e *enc) field(id int16, t thrift.Type) {
	prev := &e.last[len(e.last)-1]
	if d := id - *prev; d > 0 && d <= 15 {
		e.b = append(e.b, byte(d)<<4|byte(t))
	} else {
		e.b = append(e.b, byte(t))
		e.b = binary.AppendUvarint(e.b, uint64(int64(id)<<1^int64(id)>>63))
	}
	*prev = id
}

// rewriter copies a FileMetaData, changing the geometry column's schema element and chunks.
type rewriter struct {
	r     *thrift.Reader
	in    []byte
	e     enc
	stats [][]byte
	chunk int // geometry chunks written
}

// copyField copies one field's value verbatim.
func (w *rewriter) copyField(id int16, t thrift.Type) error {
	start := w.r.Offset()
	if err := w.r.Skip(t); err != nil {
		return err
	}
	w.e.field(id, t)
	w.e.b = append(w.e.b, w.in[start:w.r.Offset()]...)
	return nil
}

// structOf copies a struct, letting fn take over some fields (fn returns true when it wrote
// the field), then calls tail before the STOP.
func (w *rewriter) structOf(fn func(id int16, t thrift.Type) (bool, error), tail func()) error {
	w.e.begin()
	err := w.r.ReadStruct(func(id int16, t thrift.Type) error {
		if done, err := fn(id, t); done || err != nil {
			return err
		}
		return w.copyField(id, t)
	})
	if err != nil {
		return err
	}
	tail()
	w.e.end()
	return nil
}

// structList writes field id, a list of structs each copied by each.
func (w *rewriter) structList(id int16, each func() error) error {
	start := w.r.Offset()
	elem, n, err := w.r.ListHeader()
	if err != nil {
		return err
	}
	if elem != thrift.Struct && n > 0 {
		return fmt.Errorf("field %d: a list of %v", id, elem)
	}
	w.e.field(id, thrift.List)
	w.e.b = append(w.e.b, w.in[start:w.r.Offset()]...)
	for range n {
		if err := each(); err != nil {
			return err
		}
	}
	return nil
}

func (w *rewriter) fileMeta() error {
	return w.structOf(func(id int16, t thrift.Type) (bool, error) {
		switch {
		case id == 2 && t == thrift.List: // schema
			return true, w.structList(2, w.schemaElement)
		case id == 4 && t == thrift.List: // row_groups
			return true, w.structList(4, func() error {
				return w.structOf(func(id int16, t thrift.Type) (bool, error) {
					if id != 1 || t != thrift.List { // columns
						return false, nil
					}
					return true, w.structList(1, w.columnChunk)
				}, func() {})
			})
		}
		return false, nil
	}, func() {})
}

// schemaElement adds the GEOMETRY logical type to the element named geometry.
func (w *rewriter) schemaElement() error {
	var name string
	return w.structOf(func(id int16, t thrift.Type) (bool, error) {
		if id == 4 && t == thrift.Binary {
			start := w.r.Offset()
			s, err := w.r.String()
			w.e.field(4, thrift.Binary)
			w.e.b = append(w.e.b, w.in[start:w.r.Offset()]...)
			name = s
			return true, err
		}
		return false, nil
	}, func() {
		if name == "geometry" {
			w.e.field(10, thrift.Struct) // logicalType
			w.e.begin()
			w.e.field(17, thrift.Struct) // GEOMETRY, no crs: OGC:CRS84
			w.e.begin()
			w.e.end()
			w.e.end()
		}
	})
}

// columnChunk gives the geometry chunk its geospatial statistics.
func (w *rewriter) columnChunk() error {
	return w.structOf(func(id int16, t thrift.Type) (bool, error) {
		if id != 3 || t != thrift.Struct { // meta_data
			return false, nil
		}
		w.e.field(3, thrift.Struct)
		var geom bool
		return true, w.structOf(func(id int16, t thrift.Type) (bool, error) {
			switch {
			case id == 3 && t == thrift.List: // path_in_schema
				start := w.r.Offset()
				err := w.r.Skip(t)
				path := w.in[start:w.r.Offset()]
				geom = bytes.Equal(path, []byte{0x18, 8, 'g', 'e', 'o', 'm', 'e', 't', 'r', 'y'})
				w.e.field(3, t)
				w.e.b = append(w.e.b, path...)
				return true, err
			case id == 12 && geom: // statistics: none for GEOMETRY
				return true, w.r.Skip(t)
			}
			return false, nil
		}, func() {
			if geom && w.chunk < len(w.stats) {
				w.e.field(17, thrift.Struct) // geospatial_statistics
				w.e.b = append(w.e.b, w.stats[w.chunk]...)
				w.e.b = append(w.e.b, 0)
				w.chunk++
			}
		})
	}, func() {})
}
