package scan

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/prune"
)

// predicate is the bound WHERE expression and the leaf column behind each path it uses.
type predicate struct {
	bound *prune.Bound
	paths []string
	leaf  map[string]*decode.Column
	types map[string]prune.ColumnType
}

// bindWhere parses and binds Options.Where against the file's schema.
func (s *Scanner) bindWhere() error {
	if strings.TrimSpace(s.opts.Where) == "" {
		return nil
	}
	e, err := prune.Parse(s.opts.Where)
	if err != nil {
		return err
	}
	p := &predicate{leaf: map[string]*decode.Column{}, types: map[string]prune.ColumnType{}}
	var lookupErr error
	lookup := func(path string) (prune.ColumnType, bool) {
		c, ok := s.schema.Find(path)
		if !ok || c.Kind != decode.KindLeaf {
			return prune.ColumnType{}, false
		}
		if c.Node.RepLevel > 0 {
			lookupErr = fmt.Errorf("%w: WHERE on %q, a column inside a list, is not supported", ErrOptions, path)
			return prune.ColumnType{}, false
		}
		t, ok := pruneType(c)
		if !ok {
			lookupErr = fmt.Errorf("%w: WHERE on %q: its type %v cannot be filtered", ErrOptions, path, c.Field.Type.ID)
			return prune.ColumnType{}, false
		}
		p.leaf[path], p.types[path] = c, t
		return t, true
	}
	b, err := prune.Bind(e, lookup)
	if lookupErr != nil {
		return lookupErr
	}
	if err != nil {
		return err
	}
	p.bound, p.paths = b, b.Columns()
	s.pred = p
	return nil
}

// pruneType maps a leaf column to the domain its values are compared in.
func pruneType(c *decode.Column) (prune.ColumnType, bool) {
	e := c.Node.Elem
	t := prune.ColumnType{}
	switch *e.Type {
	case format.Boolean:
		t.Physical = prune.Boolean
	case format.Int32:
		t.Physical = prune.Int32
	case format.Int64:
		t.Physical = prune.Int64
	case format.Int96:
		t.Physical = prune.Int96
	case format.Float:
		t.Physical = prune.PhysFloat
	case format.Double:
		t.Physical = prune.Double
	case format.ByteArray:
		t.Physical = prune.ByteArray
	case format.FixedLenByteArray:
		t.Physical = prune.FixedLenByteArray
		t.TypeLength = *e.TypeLength
	}
	dt := c.Field.Type
	switch dt.ID {
	case arrowipc.Bool:
		t.Kind = prune.Bool
	case arrowipc.Int:
		t.Kind = prune.Int
		if !dt.Signed {
			t.Kind = prune.Uint
		}
	case arrowipc.Float:
		if dt.BitWidth == 16 {
			return t, false
		}
		t.Kind = prune.Float
	case arrowipc.Utf8, arrowipc.Binary, arrowipc.FixedSizeBinary:
		t.Kind = prune.Bytes
	case arrowipc.Decimal:
		t.Kind, t.Scale, t.Precision = prune.Decimal, int32(dt.Scale), int32(dt.Precision)
	case arrowipc.Date32:
		t.Kind = prune.Date
	case arrowipc.Timestamp, arrowipc.Time:
		t.Kind = prune.Timestamp
		if dt.ID == arrowipc.Time {
			t.Kind = prune.Time
		}
		t.Unit = [...]prune.Unit{prune.Second, prune.Milli, prune.Micro, prune.Nano}[dt.Unit]
		t.UTC = dt.TZ != ""
	default:
		return t, false
	}
	return t, true
}

// chunkStats converts a column chunk's Statistics to the evaluator's form. Bounds are used
// only when their sort order is known to match the column's (parquet-format "Sort order"):
// min_value/max_value with a type-defined column order; the deprecated min/max only for
// signed integers and floats, whose order every writer got right.
func (s *Scanner) chunkStats(cm *format.ColumnMetaData, leaf *decode.Column, t prune.ColumnType) prune.ColStats {
	cs := prune.ColStats{NullCount: -1, NumValues: cm.NumValues, NaNCount: -1}
	st := cm.Statistics
	if st == nil {
		return cs
	}
	if st.NullCount != nil {
		cs.NullCount = *st.NullCount
	}
	if st.NanCount != nil {
		cs.NaNCount = *st.NanCount
	}
	min, max := st.MinValue, st.MaxValue
	minExact, maxExact := st.IsMinValueExact, st.IsMaxValueExact
	if !s.typeDefinedOrder(leaf) {
		min, max = nil, nil
	}
	deprecated := false
	if min == nil && max == nil && st.MinValue == nil && st.MaxValue == nil && deprecatedStatsOK(t) {
		min, max = st.Min, st.Max
		minExact, maxExact = nil, nil
		deprecated = true
	}
	if t.Physical == prune.Int96 {
		return cs // INT96 has no defined sort order
	}
	// Known writer bugs (format.WriterBugs, keyed on created_by) may forbid the bounds, or
	// the whole statistics.
	sc := s.statsColumn(leaf, t, deprecated)
	if bad, _ := s.writer.StatsCorrupt(sc); bad {
		return prune.ColStats{NullCount: -1, NumValues: cm.NumValues, NaNCount: -1}
	}
	if ok, _ := s.writer.StatsUsable(sc); !ok {
		return cs
	}
	if v, ok := statValue(min, t); ok && min != nil {
		cs.HasMin, cs.Min = true, v
		cs.MinExact = exact(minExact, t)
	}
	if v, ok := statValue(max, t); ok && max != nil {
		cs.HasMax, cs.Max = true, v
		cs.MaxExact = exact(maxExact, t)
	}
	return cs
}

// statsColumn describes a leaf's statistics for the writer-bug table.
func (s *Scanner) statsColumn(leaf *decode.Column, t prune.ColumnType, deprecated bool) format.StatsColumn {
	return format.StatsColumn{
		Physical:     *leaf.Node.Elem.Type,
		SignedOrder:  signedOrder(t),
		Decimal:      t.Kind == prune.Decimal,
		Deprecated:   deprecated,
		ColumnOrders: len(s.meta.ColumnOrders) > 0,
	}
}

// signedOrder reports whether the column's type-defined sort order is SIGNED and old writers,
// which compared everything as signed, got it right: signed integers, floats, dates, times,
// timestamps and integer-backed decimals. Byte-array decimals are excluded: a signed byte-wise
// comparison orders big-endian two's complement wrongly past the first byte.
func signedOrder(t prune.ColumnType) bool {
	switch t.Kind {
	case prune.Int, prune.Date, prune.Timestamp, prune.Time, prune.Float:
		return t.Physical != prune.Int96
	case prune.Decimal:
		return t.Physical == prune.Int32 || t.Physical == prune.Int64
	}
	return false
}

// exact: an absent is_*_value_exact means exact for fixed-width types (never truncated) and
// unknown, hence inexact, for byte arrays.
func exact(flag *bool, t prune.ColumnType) bool {
	if flag != nil {
		return *flag
	}
	return t.Kind != prune.Bytes
}

func deprecatedStatsOK(t prune.ColumnType) bool {
	switch t.Kind {
	case prune.Int, prune.Date, prune.Timestamp, prune.Time, prune.Float:
		return t.Physical != prune.Int96
	}
	return false
}

// typeDefinedOrder reports whether the column's statistics use the type-defined sort order.
// Without column_orders (older writers), min_value/max_value still follow the type's order:
// that is what distinguishes them from the deprecated fields.
func (s *Scanner) typeDefinedOrder(leaf *decode.Column) bool {
	co := s.meta.ColumnOrders
	if len(co) == 0 {
		return true
	}
	i := leaf.Node.Leaf
	return i < len(co) && co[i].TypeDefinedOrder
}

// statValue decodes a PLAIN-encoded statistics value in the column's domain.
func statValue(b []byte, t prune.ColumnType) (prune.Value, bool) {
	if b == nil {
		return prune.Value{}, false
	}
	switch t.Physical {
	case prune.Boolean:
		if len(b) < 1 {
			return prune.Value{}, false
		}
		return prune.BoolValue(b[0] != 0), true
	case prune.Int32, prune.Int64:
		var v int64
		switch {
		case t.Physical == prune.Int32 && len(b) == 4:
			v = int64(int32(binary.LittleEndian.Uint32(b)))
		case t.Physical == prune.Int64 && len(b) == 8:
			v = int64(binary.LittleEndian.Uint64(b))
		default:
			return prune.Value{}, false
		}
		switch t.Kind {
		case prune.Uint:
			if t.Physical == prune.Int32 {
				return prune.UintValue(uint64(uint32(v))), true
			}
			return prune.UintValue(uint64(v)), true
		case prune.Decimal:
			return prune.DecimalInt64(v), true
		}
		return prune.Value{Kind: t.Kind, I: v}, true
	case prune.PhysFloat:
		if len(b) != 4 {
			return prune.Value{}, false
		}
		return prune.FloatValue(float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))), true
	case prune.Double:
		if len(b) != 8 {
			return prune.Value{}, false
		}
		return prune.FloatValue(math.Float64frombits(binary.LittleEndian.Uint64(b))), true
	case prune.ByteArray, prune.FixedLenByteArray:
		if t.Kind == prune.Decimal {
			if len(b) == 0 {
				return prune.Value{}, false
			}
			return prune.DecimalBytes(b), true
		}
		return prune.BytesValue(b), true
	}
	return prune.Value{}, false
}

// vector exposes an assembled flat Arrow array to the row evaluator without copying, except
// for decimals, which the evaluator takes big-endian.
func vector(a *arrowipc.Array, t prune.ColumnType, dt arrowipc.DataType) *prune.Vector {
	v := &prune.Vector{Kind: t.Kind, Len: a.Len, Valid: a.Validity}
	n := a.Len
	switch dt.ID {
	case arrowipc.Bool:
		v.Bools = a.Data
	case arrowipc.Int, arrowipc.Date32, arrowipc.Time, arrowipc.Timestamp:
		bw := dt.BitWidth
		if dt.ID == arrowipc.Date32 {
			bw = 32
		} else if dt.ID == arrowipc.Timestamp {
			bw = 64
		}
		switch bw {
		case 8, 16:
			// Widen narrow integers.
			if dt.Signed {
				v.I64 = make([]int64, n)
				for i := 0; i < n; i++ {
					if bw == 8 {
						v.I64[i] = int64(int8(a.Data[i]))
					} else {
						v.I64[i] = int64(int16(binary.LittleEndian.Uint16(a.Data[2*i:])))
					}
				}
			} else {
				v.U64 = make([]uint64, n)
				for i := 0; i < n; i++ {
					if bw == 8 {
						v.U64[i] = uint64(a.Data[i])
					} else {
						v.U64[i] = uint64(binary.LittleEndian.Uint16(a.Data[2*i:]))
					}
				}
			}
		case 32:
			if t.Kind == prune.Uint {
				v.U32 = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
			} else {
				v.I32 = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
			}
		default:
			if t.Kind == prune.Uint {
				v.U64 = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
			} else {
				v.I64 = unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
			}
		}
	case arrowipc.Float:
		if dt.BitWidth == 32 {
			v.F32 = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
		} else {
			v.F64 = unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(a.Data))), n)
		}
	case arrowipc.Utf8, arrowipc.Binary:
		v.Offsets, v.Data = a.Offsets, a.Data
	case arrowipc.FixedSizeBinary:
		v.Width, v.Data = dt.ByteWidth, a.Data
	case arrowipc.Decimal:
		w := dt.BitWidth / 8
		be := make([]byte, n*w)
		for i := 0; i < n; i++ {
			for k := 0; k < w; k++ {
				be[i*w+k] = a.Data[i*w+w-1-k]
			}
		}
		v.Width, v.Data = w, be
	}
	return v
}
