package tablescan

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/pqscan/pqscan/internal/dataset/hive"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/scan"
)

// The table schema is the host's (a Delta log's), else the first file's columns or, with
// Options.UnionSchema, the union of every file's (resolve.go), then the partition columns;
// every file's batches are mapped onto it by name or by position: a column the file lacks
// reads as nulls, a narrower type is widened (widen.go), and anything else is an error naming
// the file and the column. Partition values are constant columns.

// partitionField is the Arrow field of a partition column.
func partitionField(c hive.Column) arrowipc.Field {
	f := arrowipc.Field{Name: c.Name, Nullable: true}
	switch c.Type.Kind {
	case prune.Int:
		f.Type = arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}
	case prune.Date:
		f.Type = arrowipc.DataType{ID: arrowipc.Date32}
	case prune.Timestamp:
		f.Type = arrowipc.DataType{ID: arrowipc.Timestamp, Unit: arrowipc.Microsecond}
		if c.Type.UTC {
			f.Type.TZ = "UTC"
		}
	default:
		f.Type = arrowipc.DataType{ID: arrowipc.Utf8}
	}
	return f
}

// column is where one output column of a file's batches comes from.
type column struct {
	src   int // index in the file scan's output; -1: missing (nulls) or a partition column
	part  int // partition column index, or -1
	field arrowipc.Field
	cast  bool // widen the source's values to field's type
	from  arrowipc.DataType
	fill  *hive.Value // the value of a missing column the file fills (File.Fill)
}

// fileShape maps one file's scan output onto the projected table columns.
type fileShape struct {
	out  arrowipc.Schema
	cols []column
	vals []hive.Value // the file's partition values
	// scanCols are the file columns the file's scan must return, in its output order.
	scanCols []string
	// at maps scanCols to the scan's output columns by name (a row index column,
	// scan.Options.RowIndex, comes first in the scan's output whatever the order asked).
	at []int
}

// newFileShape plans the mapping for one file. table is the projected table schema (file
// columns, then partition columns), pos the index of each of its columns in the whole table
// schema (for Options.ByPosition), fileFields the file's full top-level schema (with column
// mapping its view, and own the file's own fields, which its scan is given; else own is nil).
// o gives the host's rules: with Options.ZonelessUTC a zone-less file timestamp reads as a
// UTC table timestamp of the same unit; with Options.PartitionColumns (a Delta log) a file
// column named like a partition column is ignored, the log's value wins (a Hive path value
// and a file column of the same name are ambiguous, an error). fill are the values of
// columns the file lacks (File.Fill).
func newFileShape(table []arrowipc.Field, pos []int, nPart int, parts *hive.Partitions, file int, fileFields, own []arrowipc.Field, path string, fill map[string]hive.Value, o *Options) (*fileShape, error) {
	fs := &fileShape{out: arrowipc.Schema{Fields: table}}
	if parts != nil && file < len(parts.Values) {
		fs.vals = parts.Values[file]
	}
	for i, tf := range table {
		c := column{src: -1, part: -1, field: tf}
		if i >= len(table)-nPart {
			c.part = parts.Column(tf.Name)
			if len(o.PartitionColumns) == 0 && slices.ContainsFunc(fileFields, func(f arrowipc.Field) bool { return f.Name == tf.Name }) {
				return nil, errf.Errorf("%w: %s: column %q is also a partition key", ErrSchema, path, tf.Name)
			}
			fs.cols = append(fs.cols, c)
			continue
		}
		j, err := sourceColumn(fileFields, pos[i], tf.Name, o)
		if err != nil {
			return nil, errf.Errorf("%s: %w", path, err)
		}
		if j >= 0 {
			ff := fileFields[j]
			cast, ok := fitType(ff.Type, tf.Type, o.ZonelessUTC)
			if !ok {
				return nil, errf.Errorf("%w: %s: column %q is %s in the file, %s in the table", ErrSchema, path, tf.Name, typeName(ff.Type), typeName(tf.Type))
			}
			c.cast, c.from = cast, ff.Type
			c.src = len(fs.scanCols)
			if own != nil {
				ff = own[j]
			}
			fs.scanCols = append(fs.scanCols, ff.Name)
		} else if v, ok := fill[tf.Name]; ok {
			c.fill = &v
		} else if !tf.Nullable {
			// The host's schema (a Delta log) says the column is never null.
			return nil, errf.Errorf("%w: %s: the required column %q is missing", ErrSchema, path, tf.Name)
		}
		fs.cols = append(fs.cols, c)
	}
	return fs, nil
}

// shape is the scan.Shaper of the file.
func (fs *fileShape) shape(n int, schema *arrowipc.Schema, in []*arrowipc.Array) ([]*arrowipc.Array, error) {
	if fs.at == nil {
		fs.at = make([]int, len(fs.scanCols))
		// Without the scan's schema, or when it lists scanCols in order (also with duplicate
		// names), its columns are scanCols in order; else each is found by name.
		inOrder := schema == nil || slices.Equal(fs.scanCols, fieldNames(schema.Fields))
		for j, name := range fs.scanCols {
			fs.at[j] = j
			if !inOrder {
				fs.at[j] = slices.IndexFunc(schema.Fields, func(f arrowipc.Field) bool { return f.Name == name })
			}
			if fs.at[j] < 0 || fs.at[j] >= len(in) {
				return nil, errf.Errorf("%w: the file's scan did not return column %q", scan.ErrInternal, name)
			}
		}
	}
	out := make([]*arrowipc.Array, len(fs.cols))
	for i, c := range fs.cols {
		var err error
		switch {
		case c.part >= 0:
			out[i] = constant(c.field.Type, fs.vals[c.part], n)
		case c.fill != nil:
			out[i] = constant(c.field.Type, *c.fill, n)
		case c.src < 0:
			out[i], err = nulls(c.field.Type, n)
		case c.cast:
			out[i], err = widen(in[fs.at[c.src]], c.from, c.field.Type, n)
		default:
			out[i] = in[fs.at[c.src]]
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sameType reports whether values of a and b are represented alike: the types are equal but
// for dictionary encoding at the top and, in nested fields, nullability, metadata and the
// names of list elements and map entries (writers call them element, item, array,
// key_value, entries; only struct field names carry meaning).
func sameType(a, b arrowipc.DataType) bool {
	a.Dictionary, b.Dictionary = false, false
	return sameNested(a, b)
}

// sameNested is sameType below the top: dictionary encoding counts there.
func sameNested(a, b arrowipc.DataType) bool {
	if a.ID != b.ID || a.BitWidth != b.BitWidth || a.Signed != b.Signed || a.ByteWidth != b.ByteWidth ||
		a.Precision != b.Precision || a.Scale != b.Scale || a.Unit != b.Unit || a.TZ != b.TZ ||
		a.KeysSorted != b.KeysSorted || a.Dictionary != b.Dictionary {
		return false
	}
	if (a.Elem == nil) != (b.Elem == nil) || a.Elem != nil && !sameNested(a.Elem.Type, b.Elem.Type) {
		return false
	}
	if (a.Fields == nil) != (b.Fields == nil) || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name || !sameNested(a.Fields[i].Type, b.Fields[i].Type) {
			return false
		}
	}
	return true
}

// constant is n copies of v (a partition value) as an array of type t: the Hive types
// (partitionField) and every primitive a Delta partition column may have.
func constant(t arrowipc.DataType, v hive.Value, n int) *arrowipc.Array {
	if v.Null {
		a, _ := nulls(t, n)
		return a
	}
	a := &arrowipc.Array{Len: n}
	var one []byte // the little-endian value of a fixed-width type
	switch t.ID {
	case arrowipc.Utf8, arrowipc.Binary:
		a.Offsets = make([]int32, n+1)
		a.Data = make([]byte, 0, n*len(v.V.B))
		for i := 0; i < n; i++ {
			a.Data = append(a.Data, v.V.B...)
			a.Offsets[i+1] = int32(len(a.Data))
		}
		return a
	case arrowipc.Bool:
		a.Data = make([]byte, (n+7)/8)
		if v.V.I&1 == 1 {
			for i := 0; i < n; i++ {
				a.Data[i/8] |= 1 << (i % 8)
			}
		}
		return a
	case arrowipc.Date32:
		one = binary.LittleEndian.AppendUint32(nil, uint32(int32(v.V.I)))
	case arrowipc.Float:
		if t.BitWidth == 32 {
			one = binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(v.V.F)))
		} else {
			one = binary.LittleEndian.AppendUint64(nil, math.Float64bits(v.V.F))
		}
	case arrowipc.Int:
		one = binary.LittleEndian.AppendUint64(nil, uint64(v.V.I))[:max(t.BitWidth/8, 1)]
	case arrowipc.Decimal:
		one = decimalLE(v, t.BitWidth/8)
	default: // int64, timestamp
		one = binary.LittleEndian.AppendUint64(nil, uint64(v.V.I))
	}
	a.Data = make([]byte, 0, n*len(one))
	for i := 0; i < n; i++ {
		a.Data = append(a.Data, one...)
	}
	return a
}

// decimalLE is an unscaled decimal value (prune's form: I, or B as big-endian two's
// complement) as w little-endian two's-complement bytes.
func decimalLE(v hive.Value, w int) []byte {
	out := make([]byte, w)
	if v.V.B == nil {
		binary.LittleEndian.PutUint64(out, uint64(v.V.I))
		if v.V.I < 0 {
			for i := 8; i < w; i++ {
				out[i] = 0xff
			}
		}
		return out
	}
	b := v.V.B
	if len(b) > 0 && b[0]&0x80 != 0 {
		for i := range out {
			out[i] = 0xff
		}
	}
	for i := 0; i < len(b) && i < w; i++ {
		out[i] = b[len(b)-1-i]
	}
	return out
}

// nulls is n nulls of type t: a column a file lacks (added to the table after the file was
// written), nested types included. A struct's children and a list's offsets are present but
// hold nothing (Arrow ignores them under a null); a non-nullable child gets zero values, not
// nulls, so the array stays valid.
func nulls(t arrowipc.DataType, n int) (*arrowipc.Array, error) {
	return absent(t, n, true)
}

// absent is n values of type t, all null when null is set, else zero values (empty strings
// and lists, structs of zero values) without validity.
func absent(t arrowipc.DataType, n int, null bool) (*arrowipc.Array, error) {
	if t.Dictionary {
		return nil, errf.Errorf("%w: a missing dictionary-encoded column", ErrUnsupported)
	}
	a := &arrowipc.Array{Len: n}
	if null {
		a.NullCount, a.Validity = n, make([]byte, (n+7)/8)
	}
	switch t.ID {
	case arrowipc.Bool:
		a.Data = make([]byte, (n+7)/8)
	case arrowipc.Int, arrowipc.Float, arrowipc.Decimal, arrowipc.Time:
		a.Data = make([]byte, n*t.BitWidth/8)
	case arrowipc.Date32:
		a.Data = make([]byte, 4*n)
	case arrowipc.Timestamp:
		a.Data = make([]byte, 8*n)
	case arrowipc.IntervalMonthDayNano:
		a.Data = make([]byte, 16*n)
	case arrowipc.FixedSizeBinary:
		a.Data = make([]byte, n*t.ByteWidth)
	case arrowipc.Utf8, arrowipc.Binary:
		a.Offsets = make([]int32, n+1)
	case arrowipc.Null:
		a.NullCount, a.Validity = n, nil
	case arrowipc.List, arrowipc.Map:
		if t.Elem == nil {
			return nil, errf.Errorf("%w: a list or map type without elements", ErrProtocol)
		}
		a.Offsets = make([]int32, n+1)
		el, err := absent(t.Elem.Type, 0, false)
		if err != nil {
			return nil, err
		}
		a.Children = []*arrowipc.Array{el}
	case arrowipc.Struct:
		for _, f := range t.Fields {
			ch, err := absent(f.Type, n, false)
			if err != nil {
				return nil, err
			}
			a.Children = append(a.Children, ch)
		}
	default:
		return nil, errf.Errorf("%w: a missing column of type %s", ErrUnsupported, typeName(t))
	}
	return a, nil
}
