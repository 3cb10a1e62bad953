package prune

import (
	"bytes"
	"cmp"
	"math"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
)

// Kind is the logical value domain a column is compared in. Every Parquet leaf type the
// engine supports maps to exactly one Kind; the mapping decides the sort order that
// statistics must have been written in (signed, unsigned, byte-wise).
type Kind uint8

const (
	KindInvalid Kind = iota
	Bool             // false < true; Value.I holds 0 or 1
	Int              // signed 64-bit (INT32/INT64 physical, INT(8..64, signed))
	Uint             // unsigned 64-bit (INT(8..64, unsigned)); Value.U
	Float            // float64; FLOAT columns widen exactly; Value.F; IEEE NaN semantics
	Bytes            // strings and binary, unsigned byte-wise lexicographic order; Value.B
	Decimal          // unscaled integer at the column's scale; Value.B or Value.I, see Value
	Date             // days since 1970-01-01 (int32 range); Value.I
	Timestamp        // instants or wall times in ColumnType.Unit since the epoch; Value.I
	Time             // time of day in ColumnType.Unit; Value.I
)

var kindNames = [...]string{"INVALID", "BOOL", "INT", "UINT", "FLOAT", "BYTES", "DECIMAL", "DATE", "TIMESTAMP", "TIME"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return errf.Sprintf("Kind(%d)", uint8(k))
}

// Unit is the resolution of a Timestamp or Time column. The zero value is invalid so that a
// forgotten unit is an error at Bind rather than a silent misinterpretation.
type Unit uint8

const (
	UnitInvalid Unit = iota
	Second
	Milli
	Micro
	Nano
)

// PerSecond returns how many units make one second (0 for an invalid unit).
func (u Unit) PerSecond() int64 { return u.perSecond() }

// perSecond returns how many units make one second (0 for an invalid unit).
func (u Unit) perSecond() int64 {
	switch u {
	case Second:
		return 1
	case Milli:
		return 1e3
	case Micro:
		return 1e6
	case Nano:
		return 1e9
	}
	return 0
}

func (u Unit) String() string {
	if u > Nano {
		return "?"
	}
	return [...]string{"?", "s", "ms", "us", "ns"}[u]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Physical is the Parquet physical type of a column. It bounds the range of stored values
// (used to fold out-of-range literals exactly) and fixes the PLAIN encoding hashed by Bloom
// filters. The zero value means "unknown": ranges fall back to the Kind's full range and
// Bloom filters are not consulted.
type Physical uint8

const (
	PhysUnknown Physical = iota
	Boolean
	Int32
	Int64
	Int96
	PhysFloat // FLOAT (32-bit)
	Double
	ByteArray
	FixedLenByteArray
)

var physNames = [...]string{"?", "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"}

func (p Physical) String() string {
	if int(p) < len(physNames) {
		return physNames[p]
	}
	return errf.Sprintf("Physical(%d)", uint8(p))
}

// ColumnType describes a leaf column as the engine reads it from the Parquet schema.
// Kind selects the comparison domain; the other fields refine it:
//   - Unit, UTC: Timestamp and Time. UTC=false means the column stores local wall time.
//   - Scale, Precision: Decimal.
//   - Physical, TypeLength: the storage type (TypeLength for FIXED_LEN_BYTE_ARRAY).
type ColumnType struct {
	Kind       Kind
	Unit       Unit
	UTC        bool
	Scale      int32
	Precision  int32
	Physical   Physical
	TypeLength int32
}

// String renders the type for error messages, e.g. "INT32", "DECIMAL(9,2)", "TIMESTAMP(ms, UTC)".
func (t ColumnType) String() string {
	switch t.Kind {
	case Bool:
		return "BOOLEAN"
	case Int:
		if t.Physical == Int32 {
			return "INT32"
		}
		return "INT64"
	case Uint:
		if t.Physical == Int32 {
			return "UINT32"
		}
		return "UINT64"
	case Float:
		if t.Physical == PhysFloat {
			return "FLOAT"
		}
		return "DOUBLE"
	case Bytes:
		if t.Physical == FixedLenByteArray {
			return errf.Sprintf("FIXED_LEN_BYTE_ARRAY(%d)", t.TypeLength)
		}
		return "BYTE_ARRAY"
	case Decimal:
		return errf.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case Date:
		return "DATE"
	case Timestamp:
		if t.UTC {
			return errf.Sprintf("TIMESTAMP(%s, UTC)", t.Unit)
		}
		return errf.Sprintf("TIMESTAMP(%s)", t.Unit)
	case Time:
		return errf.Sprintf("TIME(%s)", t.Unit)
	}
	return t.Kind.String()
}

// Value is one non-null value of a column, interpreted in that column's ColumnType.
// Which field is used depends on Kind:
//
//	Bool                       I (0 or 1)
//	Int, Date, Timestamp, Time I
//	Uint                       U
//	Float                      F
//	Bytes                      B (not copied; the caller keeps it alive and unmodified)
//	Decimal                    B as big-endian two's complement unscaled integer when B != nil,
//	                           otherwise I (the natural form for INT32/INT64 decimals)
//
// The zero Value (KindInvalid) compares with nothing, which every evaluator treats as unknown.
type Value struct {
	Kind Kind
	I    int64
	U    uint64
	F    float64
	B    []byte
}

// Constructors, for the engine's convenience and for readable tests.
func BoolValue(b bool) Value            { return Value{Kind: Bool, I: int64(boolInt(b))} }
func IntValue(v int64) Value            { return Value{Kind: Int, I: v} }
func UintValue(v uint64) Value          { return Value{Kind: Uint, U: v} }
func FloatValue(v float64) Value        { return Value{Kind: Float, F: v} }
func BytesValue(b []byte) Value         { return Value{Kind: Bytes, B: b} }
func StringValue(s string) Value        { return Value{Kind: Bytes, B: []byte(s)} }
func DateValue(days int32) Value        { return Value{Kind: Date, I: int64(days)} }
func TimestampValue(v int64) Value      { return Value{Kind: Timestamp, I: v} }
func TimeValue(v int64) Value           { return Value{Kind: Time, I: v} }
func DecimalInt64(unscaled int64) Value { return Value{Kind: Decimal, I: unscaled} }

// DecimalBytes wraps a big-endian two's complement unscaled integer (the FIXED_LEN_BYTE_ARRAY
// and BYTE_ARRAY decimal encoding) without copying it.
func DecimalBytes(twos []byte) Value { return Value{Kind: Decimal, B: twos} }

// DecimalExact returns the unscaled integer u as a Decimal value.
func DecimalExact(u exactnum.Int) Value {
	if u.IsInt64() {
		return Value{Kind: Decimal, I: u.Int64()}
	}
	return Value{Kind: Decimal, B: u.Twos()}
}

// Compare orders a and b. ok is false when the two cannot be ordered: different kinds,
// KindInvalid, or a NaN on either side. Callers treat !ok as "unknown".
func Compare(a, b Value) (c int, ok bool) {
	if a.Kind != b.Kind {
		return 0, false
	}
	switch a.Kind {
	case Bool, Int, Date, Timestamp, Time:
		return cmp.Compare(a.I, b.I), true
	case Uint:
		return cmp.Compare(a.U, b.U), true
	case Float:
		if math.IsNaN(a.F) || math.IsNaN(b.F) {
			return 0, false
		}
		return cmp.Compare(a.F, b.F), true // -0 == +0, as IEEE and Parquet's stats rules want
	case Bytes:
		return bytes.Compare(a.B, b.B), true
	case Decimal:
		if a.B == nil && b.B == nil {
			return cmp.Compare(a.I, b.I), true
		}
		return cmpTwos(decTwos(a), decTwos(b)), true
	}
	return 0, false
}

// decTwos returns v's unscaled integer as big-endian two's complement.
func decTwos(v Value) []byte {
	if v.B != nil {
		return v.B
	}
	var b [8]byte
	for i := 0; i < 8; i++ {
		b[7-i] = byte(v.I >> (8 * i))
	}
	return b[:]
}

// cmpTwos compares two big-endian two's complement integers of any lengths (an empty slice
// is zero) without allocating: both are sign-extended to the longer length, and with equal
// signs unsigned byte order equals numeric order.
func cmpTwos(a, b []byte) int {
	na, nb := len(a) > 0 && a[0]&0x80 != 0, len(b) > 0 && b[0]&0x80 != 0
	if na != nb {
		if na {
			return -1
		}
		return 1
	}
	ext := byte(0)
	if na {
		ext = 0xFF
	}
	n := max(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := ext, ext
		if j := i - (n - len(a)); j >= 0 {
			x = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			y = b[j]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// signExtend returns twos widened (or, if it fits, narrowed) to exactly n bytes; ok is false
// when the value needs more than n bytes.
func signExtend(twos []byte, n int) ([]byte, bool) {
	ext := byte(0)
	if len(twos) > 0 && twos[0]&0x80 != 0 {
		ext = 0xFF
	}
	for len(twos) > n {
		if twos[0] != ext || (len(twos) > 1 && (twos[1]&0x80 != 0) != (ext == 0xFF)) {
			return nil, false
		}
		twos = twos[1:]
	}
	out := make([]byte, n)
	for i := range out[:n-len(twos)] {
		out[i] = ext
	}
	copy(out[n-len(twos):], twos)
	return out, true
}

// PrefixSuccessor returns the smallest byte string greater than every string that starts with
// p: p without its trailing 0xFF bytes, last byte incremented (a new slice). ok is false when
// there is none (p empty or all 0xFF): an upper bound of that prefix is then unbounded. A max
// statistic a writer may have cut to a prefix without rounding it up is an upper bound only
// as its successor.
func PrefixSuccessor(p []byte) ([]byte, bool) {
	b := slices.Clone(p)
	for len(b) > 0 && b[len(b)-1] == 0xFF {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return nil, false
	}
	b[len(b)-1]++
	return b, true
}
