package pqstats

import (
	"encoding/binary"
	"math"

	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/geo"
	"github.com/pqscan/pqscan/internal/prune"
)

// Order is what the file says about a column's sort order (FileMetaData.column_orders).
type Order struct {
	// FileHasOrders: the file has column_orders (writers since parquet-format 2.4).
	FileHasOrders bool
	// TypeDefined: the column's order is TYPE_ORDER. Meaningless without FileHasOrders.
	TypeDefined bool
	// IEEE754: the column's order is IEEE_754_TOTAL_ORDER (FLOAT, DOUBLE and FLOAT16 only;
	// parquet-format ColumnOrder): min/max are the least and greatest non-NaN values in the
	// IEEE 754 totalOrder (-0 before +0), or NaNs when every non-null value is NaN, and
	// nan_count is mandatory.
	IEEE754 bool
}

// OrderOf reads leaf's entry of a file's column_orders.
func OrderOf(orders []format.ColumnOrder, leaf int) Order {
	if len(orders) == 0 {
		return Order{}
	}
	if leaf < 0 || leaf >= len(orders) {
		return Order{FileHasOrders: true}
	}
	return Order{FileHasOrders: true, TypeDefined: orders[leaf].TypeDefinedOrder, IEEE754: orders[leaf].IEEE754TotalOrder}
}

// typeDefined reports whether min_value/max_value use the type-defined sort order. Without
// column_orders (older writers) they still do: that is what distinguishes them from the
// deprecated fields.
func (o Order) typeDefined() bool { return !o.FileHasOrders || o.TypeDefined }

// Column is what the rules need to know about one leaf column of one file.
type Column struct {
	Type   prune.ColumnType     // the domain its values are compared in
	Writer format.WriterVersion // the file's parsed created_by
	Order  Order
	// Nullable says the leaf can hold nulls (its maximum definition level is above 0). A
	// column index's claim that a page holds only nulls is believed only then (Page).
	Nullable bool
	// Unordered says the leaf's annotation is one the reader does not apply (an unknown
	// logical type, or one on a physical type it does not define), so its values are read as
	// the physical type while the writer ordered min/max by the annotation: bounds are not
	// used, counts are (decode.Column.AnnotationIgnored).
	Unordered bool
}

// Chunk converts a column chunk's Statistics (ColumnMetaData.statistics) to the evaluator's
// form. Bounds are used only when their sort order is known to match the column's; see the
// package doc for the rules.
func Chunk(cm *format.ColumnMetaData, c Column) prune.ColStats {
	t := c.Type
	unknown := prune.ColStats{NullCount: -1, NumValues: cm.NumValues, NaNCount: -1, Geo: geoBox(cm)}
	cs := unknown
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
	if c.Unordered {
		return cs
	}
	if c.Order.IEEE754 {
		return totalOrder(cs, st.MinValue, st.MaxValue, c)
	}
	min, max := st.MinValue, st.MaxValue
	minExact, maxExact := st.IsMinValueExact, st.IsMaxValueExact
	if !c.Order.typeDefined() {
		min, max = nil, nil
	}
	deprecated := false
	if min == nil && max == nil && st.MinValue == nil && st.MaxValue == nil && DeprecatedOK(t) {
		min, max = st.Min, st.Max
		minExact, maxExact = nil, nil
		deprecated = true
	}
	if t.Physical == prune.Int96 {
		return cs // INT96 has no defined sort order
	}
	// Known writer bugs (format.WriterBugs, keyed on created_by) may forbid the bounds, or
	// the whole statistics.
	sc := statsColumn(c, deprecated)
	if bad, _ := c.Writer.StatsCorrupt(sc); bad {
		return unknown
	}
	if ok, _ := c.Writer.StatsUsable(sc); !ok {
		return cs
	}
	if v, ok := Value(min, t); ok {
		cs.HasMin, cs.Min = true, v
		cs.MinExact = exact(minExact, t)
	}
	if v, ok := Value(max, t); ok {
		cs.HasMax, cs.Max = true, v
		cs.MaxExact = exact(maxExact, t)
		cs.HasMax, cs.Max = byteBound(cs.Max, maxExact != nil, t)
	}
	return cs
}

// byteBound is a byte-array max as an upper bound: kept when the writer says what it is
// (is_max_value_exact set: the max, or a bound it rounded up after cutting it), else its
// prefix successor, because a writer may cut a max to a prefix without rounding it up
// (hyparquet cuts string statistics at 16 bytes: a max "the storage over" for a value
// "the storage over lazy …"), and then only the successor bounds the values that start with
// it. A max that is a bound already loses at most the strings that start with it.
func byteBound(v prune.Value, declared bool, t prune.ColumnType) (bool, prune.Value) {
	if t.Kind != prune.Bytes || declared {
		return true, v
	}
	s, ok := prune.PrefixSuccessor(v.B)
	if !ok {
		return false, prune.Value{}
	}
	return true, prune.BytesValue(s)
}

// Page converts entry p of a column index to the evaluator's form. Column index bounds may
// be truncated for byte arrays (and byte-array decimals), so they are never exact there. A
// null page has no bounds; it holds only nulls where the column is nullable and the index's
// null count for it is positive. The caller checks that p is in range for every list of ci.
func Page(ci *format.ColumnIndex, p int, c Column) prune.ColStats {
	t := c.Type
	cs := prune.ColStats{NullCount: -1, NumValues: -1, NaNCount: -1}
	if ci.NullCounts != nil {
		cs.NullCount = ci.NullCounts[p]
	}
	if ci.NullPages[p] {
		// Believed only where nulls are possible and the page's null count confirms it:
		// writers that collect no statistics (parquet-mr with statistics disabled) mark every
		// page of a required column a null page, without null counts. Otherwise the page has
		// no bounds, as the flag says, and nothing is known about its nulls.
		if c.Nullable && cs.NullCount > 0 {
			cs.NumValues = cs.NullCount
		}
		return cs
	}
	if c.Unordered {
		return cs
	}
	if c.Order.IEEE754 {
		if ci.NanCounts != nil && p < len(ci.NanCounts) {
			cs.NaNCount = ci.NanCounts[p]
		}
		return totalOrder(cs, ci.MinValues[p], ci.MaxValues[p], c)
	}
	if !c.Order.typeDefined() || t.Physical == prune.Int96 {
		return cs
	}
	if ok, _ := c.Writer.StatsUsable(statsColumn(c, false)); !ok {
		return cs
	}
	ex := t.Kind != prune.Bytes && t.Kind != prune.Decimal
	if v, ok := Value(ci.MinValues[p], t); ok {
		cs.HasMin, cs.Min, cs.MinExact = true, v, ex
	}
	if v, ok := Value(ci.MaxValues[p], t); ok {
		cs.HasMax, cs.Max, cs.MaxExact = true, v, ex
		cs.HasMax, cs.Max = byteBound(cs.Max, false, t) // a column index says nothing of it
	}
	return cs
}

// totalOrder reads min/max written under IEEE_754_TOTAL_ORDER into cs (which holds the null
// and NaN counts). Ordered by totalOrder, the least and greatest non-NaN values also bound
// every non-NaN value numerically (the evaluator's order, where -0 = +0), and they are actual
// values, so exact. NaN bounds mean every non-null value is NaN (both, or one beside a missing
// one); one NaN bound beside a number contradicts the order and bounds nothing. Any other type
// with this order is a writer error: no bounds. Known writer bugs apply as under TYPE_ORDER.
func totalOrder(cs prune.ColStats, minB, maxB []byte, c Column) prune.ColStats {
	t := c.Type
	if t.Kind != prune.Float {
		return cs
	}
	sc := statsColumn(c, false)
	if bad, _ := c.Writer.StatsCorrupt(sc); bad {
		return prune.ColStats{NullCount: -1, NumValues: cs.NumValues, NaNCount: -1}
	}
	if ok, _ := c.Writer.StatsUsable(sc); !ok {
		return cs
	}
	lo, okLo := Value(minB, t)
	hi, okHi := Value(maxB, t)
	nanLo, nanHi := okLo && math.IsNaN(lo.F), okHi && math.IsNaN(hi.F)
	switch {
	case nanLo || nanHi:
		if nanLo == nanHi || minB == nil || maxB == nil {
			cs.OnlyNaN = true
		}
	default:
		if okLo {
			cs.HasMin, cs.Min, cs.MinExact = true, lo, true
		}
		if okHi {
			cs.HasMax, cs.Max, cs.MaxExact = true, hi, true
		}
	}
	return cs
}

// statsColumn describes a column's statistics for the writer-bug table.
func statsColumn(c Column, deprecated bool) format.StatsColumn {
	return format.StatsColumn{
		Physical:     physical(c.Type.Physical),
		SignedOrder:  SignedOrder(c.Type),
		Decimal:      c.Type.Kind == prune.Decimal,
		Deprecated:   deprecated,
		ColumnOrders: c.Order.FileHasOrders,
	}
}

// physicals pairs each Thrift physical type with prune's, for both directions.
var physicals = [...]struct {
	f format.Type
	p prune.Physical
}{
	{format.Boolean, prune.Boolean}, {format.Int32, prune.Int32}, {format.Int64, prune.Int64},
	{format.Int96, prune.Int96}, {format.Float, prune.PhysFloat}, {format.Double, prune.Double},
	{format.ByteArray, prune.ByteArray}, {format.FixedLenByteArray, prune.FixedLenByteArray},
}

// PhysicalOf is prune's name for a Thrift physical type; PhysUnknown for an invalid one.
func PhysicalOf(t format.Type) prune.Physical {
	for _, x := range physicals {
		if x.f == t {
			return x.p
		}
	}
	return prune.PhysUnknown
}

// physical maps prune's physical type back to the Thrift enum it was read from (-1 unknown).
func physical(p prune.Physical) format.Type {
	for _, x := range physicals {
		if x.p == p {
			return x.f
		}
	}
	return format.Type(-1)
}

// SignedOrder reports whether the column's type-defined sort order is SIGNED and old writers,
// which compared everything as signed, got it right: signed integers, floats, dates, times,
// timestamps and integer-backed decimals. Byte-array decimals are excluded: a signed byte-wise
// comparison orders big-endian two's complement wrongly past the first byte.
func SignedOrder(t prune.ColumnType) bool {
	switch t.Kind {
	case prune.Int, prune.Date, prune.Timestamp, prune.Time, prune.Float:
		return t.Physical != prune.Int96 && t.Physical != prune.FixedLenByteArray
	case prune.Decimal:
		return t.Physical == prune.Int32 || t.Physical == prune.Int64
	}
	return false
}

// DeprecatedOK reports whether the deprecated min/max fields may be used for a column of type
// t: only where their signed order is the column's (not unsigned integers, strings, decimals,
// booleans or INT96).
func DeprecatedOK(t prune.ColumnType) bool {
	switch t.Kind {
	case prune.Int, prune.Date, prune.Timestamp, prune.Time, prune.Float:
		return t.Physical != prune.Int96 && t.Physical != prune.FixedLenByteArray // not FLOAT16
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

// Value decodes a PLAIN-encoded statistics value in the column's domain; ok is false for a
// nil or malformed value (a wrong width), which then bounds nothing.
func Value(b []byte, t prune.ColumnType) (prune.Value, bool) {
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
		if t.Kind == prune.Float { // FLOAT16: FIXED_LEN_BYTE_ARRAY(2), little-endian
			if t.Physical != prune.FixedLenByteArray || len(b) != 2 {
				return prune.Value{}, false
			}
			return prune.FloatValue(float64(Float16(binary.LittleEndian.Uint16(b)))), true
		}
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

// Float16 converts an IEEE 754 half-precision value (FLOAT16's storage) to float32 exactly.
func Float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN (payload kept)
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	case frac == 0: // ±0
		return math.Float32frombits(sign)
	}
	// Subnormal: frac × 2^-24.
	v := float32(frac) / (1 << 24)
	if sign != 0 {
		v = -v
	}
	return v
}

// geoBox is a GEOMETRY/GEOGRAPHY chunk's geospatial bounding box (x and y), or nil when it
// is missing or unusable (NaN, ymin > ymax). xmin > xmax is kept: it wraps across the
// antimeridian, as the spec allows.
func geoBox(cm *format.ColumnMetaData) *geo.Rect {
	gs := cm.GeospatialStatistics
	if gs == nil || gs.BBox == nil {
		return nil
	}
	r := &geo.Rect{XMin: gs.BBox.Xmin, YMin: gs.BBox.Ymin, XMax: gs.BBox.Xmax, YMax: gs.BBox.Ymax}
	if !r.Valid() {
		return nil
	}
	return r
}
