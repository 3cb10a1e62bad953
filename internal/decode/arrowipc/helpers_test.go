package arrowipc

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/require"
)

// Model builders: they produce Arrays from Go values the way a decoder would, independently of
// arrow-go, so that the expected side (arrow-go builders) is a separate implementation.

// bitmap packs valid into an LSB-first bitmap and counts the nulls; nil valid means all valid.
func bitmap(valid []bool) ([]byte, int) {
	if valid == nil {
		return nil, 0
	}
	b := make([]byte, (len(valid)+7)/8)
	nulls := 0
	for i, v := range valid {
		if v {
			b[i/8] |= 1 << (i % 8)
		} else {
			nulls++
		}
	}
	return b, nulls
}

// fixed builds a fixed-width Array from little-endian values.
func fixed[T any](vals []T, valid []bool) *Array {
	v, nulls := bitmap(valid)
	data, err := binary.Append(nil, binary.LittleEndian, vals)
	if err != nil {
		panic(err)
	}
	return &Array{Len: len(vals), NullCount: nulls, Validity: v, Data: data}
}

func bools(vals []bool, valid []bool) *Array {
	a := &Array{Len: len(vals)}
	a.Data, _ = bitmap(vals)
	if a.Data == nil {
		a.Data = []byte{}
	}
	a.Validity, a.NullCount = bitmap(valid)
	return a
}

func strs(vals []string, valid []bool) *Array {
	a := &Array{Len: len(vals), Offsets: []int32{0}, Data: []byte{}}
	for _, s := range vals {
		a.Data = append(a.Data, s...)
		a.Offsets = append(a.Offsets, int32(len(a.Data)))
	}
	a.Validity, a.NullCount = bitmap(valid)
	return a
}

func list(offsets []int32, valid []bool, child *Array) *Array {
	a := &Array{Len: len(offsets) - 1, Offsets: offsets, Children: []*Array{child}}
	a.Validity, a.NullCount = bitmap(valid)
	return a
}

func strct(n int, valid []bool, children ...*Array) *Array {
	a := &Array{Len: n, Children: children}
	a.Validity, a.NullCount = bitmap(valid)
	return a
}

func dict(indices []int32, valid []bool, values *Array) *Array {
	a := fixed(indices, valid)
	a.Dict = values
	return a
}

// Type shorthands.
var (
	tInt32  = DataType{ID: Int, BitWidth: 32, Signed: true}
	tInt64  = DataType{ID: Int, BitWidth: 64, Signed: true}
	tUtf8   = DataType{ID: Utf8}
	tBool   = DataType{ID: Bool}
	tDouble = DataType{ID: Float, BitWidth: 64}
)

func fld(name string, t DataType, nullable bool) Field {
	return Field{Name: name, Type: t, Nullable: nullable}
}

func listOf(elem Field) DataType { return DataType{ID: List, Elem: &elem} }

func structOf(fields ...Field) DataType { return DataType{ID: Struct, Fields: fields} }

func mapOf(key, value Field, sorted bool) DataType {
	e := fld("entries", structOf(key, value), false)
	return DataType{ID: Map, Elem: &e, KeysSorted: sorted}
}

// readStream reads a stream written by WriteStream with arrow-go and returns its schema and
// its single record batch (nil when the stream has none). The caller releases the record.
func readStream(t testing.TB, mem memory.Allocator, stream []byte) (*arrow.Schema, arrow.RecordBatch) {
	t.Helper()
	r, err := ipc.NewReader(bytes.NewReader(stream), ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer r.Release()
	var rec arrow.RecordBatch
	for r.Next() {
		require.True(t, rec == nil, "more than one record batch")
		rec = r.RecordBatch()
		rec.Retain()
	}
	require.NoError(t, r.Err())
	return r.Schema(), rec
}

// wantRecord assembles the expected record; it takes ownership of cols.
func wantRecord(fields []arrow.Field, meta *arrow.Metadata, cols []arrow.Array, nrows int) arrow.RecordBatch {
	sc := arrow.NewSchema(fields, meta)
	rec := array.NewRecordBatch(sc, cols, int64(nrows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}
