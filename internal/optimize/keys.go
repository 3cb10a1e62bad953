package optimize

import (
	"bytes"
	"cmp"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pqscan/pqscan/internal/geo"
)

// keyCol compares the values of one sort key column of one batch, nulls last. Two keyCols of
// the same key compare across batches (the k-way merge compares the heads of two runs).
type keyCol interface {
	cmp(i int, other keyCol, j int) int
}

type ordCol[T cmp.Ordered] struct {
	v   []T
	arr arrow.Array
}

func (c *ordCol[T]) cmp(i int, other keyCol, j int) int {
	o := other.(*ordCol[T])
	if n := nullCmp(c.arr, i, o.arr, j); n != 2 {
		return n
	}
	return cmp.Compare(c.v[i], o.v[j])
}

// bytesCol holds binary and fixed-size binary columns (byte-wise unsigned order, as
// Parquet's BYTE_ARRAY order).
type bytesCol struct {
	val func(int) []byte
	arr arrow.Array
}

func (c *bytesCol) cmp(i int, other keyCol, j int) int {
	o := other.(*bytesCol)
	if n := nullCmp(c.arr, i, o.arr, j); n != 2 {
		return n
	}
	return bytes.Compare(c.val(i), o.val(j))
}

// strCol holds string columns (Go string order is byte-wise, as Parquet's BYTE_ARRAY order).
type strCol struct {
	val func(int) string
	arr arrow.Array
}

func (c *strCol) cmp(i int, other keyCol, j int) int {
	o := other.(*strCol)
	if n := nullCmp(c.arr, i, o.arr, j); n != 2 {
		return n
	}
	return cmp.Compare(c.val(i), o.val(j))
}

type boolCol struct{ arr *array.Boolean }

func (c *boolCol) cmp(i int, other keyCol, j int) int {
	o := other.(*boolCol)
	if n := nullCmp(c.arr, i, o.arr, j); n != 2 {
		return n
	}
	a, b := c.arr.Value(i), o.arr.Value(j)
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// nullCmp orders nulls last; it returns 2 when both values are valid.
func nullCmp(a arrow.Array, i int, b arrow.Array, j int) int {
	an, bn := a.IsNull(i), b.IsNull(j)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return 2
}

func ord[T cmp.Ordered](v []T, arr arrow.Array) keyCol { return &ordCol[T]{v, arr} }

// newKeyCol wraps arr for comparisons; a type without a natural order is ErrSortKey.
func newKeyCol(arr arrow.Array) (keyCol, error) {
	switch a := arr.(type) {
	case *array.Int8:
		return ord(a.Int8Values(), arr), nil
	case *array.Int16:
		return ord(a.Int16Values(), arr), nil
	case *array.Int32:
		return ord(a.Int32Values(), arr), nil
	case *array.Int64:
		return ord(a.Int64Values(), arr), nil
	case *array.Uint8:
		return ord(a.Uint8Values(), arr), nil
	case *array.Uint16:
		return ord(a.Uint16Values(), arr), nil
	case *array.Uint32:
		return ord(a.Uint32Values(), arr), nil
	case *array.Uint64:
		return ord(a.Uint64Values(), arr), nil
	case *array.Float32:
		return ord(a.Float32Values(), arr), nil
	case *array.Float64:
		return ord(a.Float64Values(), arr), nil
	case *array.Date32:
		return ord(a.Date32Values(), arr), nil
	case *array.Date64:
		return ord(a.Date64Values(), arr), nil
	case *array.Time32:
		return ord(a.Time32Values(), arr), nil
	case *array.Time64:
		return ord(a.Time64Values(), arr), nil
	case *array.Timestamp:
		return ord(a.TimestampValues(), arr), nil
	case *array.Duration:
		return ord(a.DurationValues(), arr), nil
	case *array.String:
		return &strCol{a.Value, arr}, nil
	case *array.LargeString:
		return &strCol{a.Value, arr}, nil
	case *array.StringView:
		return &strCol{a.Value, arr}, nil
	case *array.Binary:
		return &bytesCol{a.Value, arr}, nil
	case *array.LargeBinary:
		return &bytesCol{a.Value, arr}, nil
	case *array.BinaryView:
		return &bytesCol{a.Value, arr}, nil
	case *array.FixedSizeBinary:
		return &bytesCol{a.Value, arr}, nil
	case *array.Boolean:
		return &boolCol{a}, nil
	}
	return nil, fmt.Errorf("%w: cannot sort by %s", ErrSortKey, arr.DataType())
}

// keys are the sort key columns of one batch.
type keys []keyCol

func newKeys(rec arrow.RecordBatch, idx []int) (keys, error) {
	k := make(keys, len(idx))
	for n, c := range idx {
		var err error
		if c < 0 { // hilbert(column -c-1)
			if k[n], err = newHilbertCol(rec.Column(-c - 1)); err != nil {
				return nil, fmt.Errorf("%w (hilbert(%s))", err, rec.ColumnName(-c-1))
			}
			continue
		}
		if k[n], err = newKeyCol(rec.Column(c)); err != nil {
			return nil, fmt.Errorf("%w (column %q)", err, rec.ColumnName(c))
		}
	}
	return k, nil
}

func (k keys) cmp(i int, o keys, j int) int {
	for n, c := range k {
		if r := c.cmp(i, o[n], j); r != 0 {
			return r
		}
	}
	return 0
}

// emptyArray is a zero-length array of t, to check that t can be a sort key.
func emptyArray(t arrow.DataType) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, t)
	defer b.Release()
	return b.NewArray()
}

// hilbertCol orders WKB geometries by the Hilbert curve position of their bounding-box
// centres (geo.Hilbert), so that near geometries share row groups and pages; nulls and empty
// geometries last.
type hilbertCol struct {
	k   []uint64
	arr arrow.Array
}

func newHilbertCol(arr arrow.Array) (keyCol, error) {
	a, ok := arr.(*array.Binary)
	if !ok {
		return nil, fmt.Errorf("%w: hilbert() takes a WKB (binary) column, not %s", ErrSortKey, arr.DataType())
	}
	c := &hilbertCol{k: make([]uint64, a.Len()), arr: arr}
	var s geo.Shape
	for i := range c.k {
		c.k[i] = math.MaxUint64
		if a.IsNull(i) {
			continue
		}
		if err := s.Parse(a.Value(i)); err != nil {
			return nil, fmt.Errorf("%w: row %d: %v", ErrSortKey, i, err)
		}
		if b, ok := s.Bounds(); ok {
			c.k[i] = geo.Hilbert((b.XMin+b.XMax)/2, (b.YMin+b.YMax)/2)
		}
	}
	return c, nil
}

func (c *hilbertCol) cmp(i int, other keyCol, j int) int {
	o := other.(*hilbertCol)
	if n := nullCmp(c.arr, i, o.arr, j); n != 2 {
		return n
	}
	return cmp.Compare(c.k[i], o.k[j])
}
