package prune

import (
	"math"

	"github.com/pqscan/pqscan/internal/errf"
)

// Vector is one column's values for a batch of rows, laid out like Arrow buffers so that the
// engine can fill it without per-value conversion and Filter can run typed loops instead of
// an interface call per value.
//
// Element i is at index i of exactly one storage, chosen by Kind:
//
//	Bool                        Bools (LSB-first bitmap)
//	Int, Date, Timestamp, Time  I64 or I32 (units as in the ColumnType)
//	Uint                        U64 or U32
//	Float                       F64 or F32 (F32 widens exactly)
//	Bytes                       Offsets (Len+1 entries, Arrow layout) + Data, or Width > 0 with
//	                            element i at Data[i*Width:(i+1)*Width] (FIXED_LEN_BYTE_ARRAY)
//	Decimal                     I64 or I32 (unscaled), or bytes as for Bytes holding
//	                            big-endian two's complement unscaled integers (any length)
//
// Valid is an LSB-first validity bitmap (bit i set = element i is not null); nil means all
// valid. Element 0 is bit 0: the engine slices Arrow arrays with an offset before filling.
// The evaluators only read a Vector; they never retain it.
type Vector struct {
	Kind  Kind
	Len   int
	Valid []byte

	Bools []byte
	I32   []int32
	I64   []int64
	U32   []uint32
	U64   []uint64
	F32   []float32
	F64   []float64

	Offsets []int32
	Data    []byte
	Width   int
}

// storage names the buffer a Vector's elements live in, resolved once per evaluation.
type storage uint8

const (
	stBools storage = iota + 1
	stI32
	stI64
	stU32
	stU64
	stF32
	stF64
	stVar   // Offsets + Data
	stFixed // Width + Data
)

// check validates v for n rows of a column of type t and returns its storage. Offsets are
// verified to be non-decreasing and inside Data so that later slicing cannot panic.
func (v *Vector) check(t ColumnType, n int) (storage, error) {
	if v == nil {
		return 0, errf.Errorf("missing")
	}
	if v.Kind != t.Kind {
		return 0, errf.Errorf("kind %s, column is %s", v.Kind, t.Kind)
	}
	if n < 0 || v.Len < n {
		return 0, errf.Errorf("Len %d < %d rows", v.Len, n)
	}
	bm := (n + 7) / 8
	if v.Valid != nil && len(v.Valid) < bm {
		return 0, errf.Errorf("validity bitmap has %d bytes, need %d", len(v.Valid), bm)
	}
	if n == 0 {
		return emptyStorage[t.Kind], nil // nothing is read; any nil buffer will do
	}
	var st storage
	switch t.Kind {
	case Bool:
		if len(v.Bools) >= bm {
			st = stBools
		}
	case Int, Date, Timestamp, Time:
		st = pickInts(v, n)
	case Uint:
		switch {
		case len(v.U64) >= n && v.U64 != nil:
			st = stU64
		case len(v.U32) >= n && v.U32 != nil:
			st = stU32
		}
	case Float:
		switch {
		case len(v.F64) >= n && v.F64 != nil:
			st = stF64
		case len(v.F32) >= n && v.F32 != nil:
			st = stF32
		}
	case Bytes, Decimal:
		if t.Kind == Decimal {
			st = pickInts(v, n)
		}
		if st == 0 {
			s, err := v.checkBytes(n)
			if err != nil {
				return 0, err
			}
			st = s
		}
	}
	if st == 0 {
		return 0, errf.Errorf("no %s storage with %d elements", t.Kind, n)
	}
	return st, nil
}

var emptyStorage = [...]storage{Bool: stBools, Int: stI64, Uint: stU64, Float: stF64, Bytes: stVar,
	Decimal: stI64, Date: stI64, Timestamp: stI64, Time: stI64}

func pickInts(v *Vector, n int) storage {
	switch {
	case len(v.I64) >= n && v.I64 != nil:
		return stI64
	case len(v.I32) >= n && v.I32 != nil:
		return stI32
	}
	return 0
}

func (v *Vector) checkBytes(n int) (storage, error) {
	if v.Width > 0 {
		if v.Width > math.MaxInt/max(n, 1) || len(v.Data) < n*v.Width {
			return 0, errf.Errorf("Data has %d bytes, need %d×%d", len(v.Data), n, v.Width)
		}
		return stFixed, nil
	}
	if v.Offsets == nil {
		return 0, nil
	}
	if len(v.Offsets) < n+1 {
		return 0, errf.Errorf("Offsets has %d entries, need %d", len(v.Offsets), n+1)
	}
	if v.Offsets[0] < 0 {
		return 0, errf.Errorf("negative offset")
	}
	for i := 1; i <= n; i++ {
		if v.Offsets[i] < v.Offsets[i-1] {
			return 0, errf.Errorf("offsets decrease at %d", i)
		}
	}
	if int(v.Offsets[n]) > len(v.Data) {
		return 0, errf.Errorf("offset %d beyond Data (%d bytes)", v.Offsets[n], len(v.Data))
	}
	return stVar, nil
}

// valid reports whether element i is non-null.
func (v *Vector) valid(i int) bool { return v.Valid == nil || v.Valid[i>>3]>>(i&7)&1 != 0 }

// bytesAt returns element i of a stVar or stFixed vector.
func (v *Vector) bytesAt(st storage, i int) []byte {
	if st == stFixed {
		return v.Data[i*v.Width : (i+1)*v.Width]
	}
	return v.Data[v.Offsets[i]:v.Offsets[i+1]]
}

// value returns element i as a Value of kind k (the slow, general path used by IN and LIKE).
func (v *Vector) value(k Kind, st storage, i int) Value {
	switch st {
	case stBools:
		return Value{Kind: k, I: int64(v.Bools[i>>3] >> (i & 7) & 1)}
	case stI32:
		return Value{Kind: k, I: int64(v.I32[i])}
	case stI64:
		return Value{Kind: k, I: v.I64[i]}
	case stU32:
		return Value{Kind: k, U: uint64(v.U32[i])}
	case stU64:
		return Value{Kind: k, U: v.U64[i]}
	case stF32:
		return Value{Kind: k, F: float64(v.F32[i])}
	case stF64:
		return Value{Kind: k, F: v.F64[i]}
	}
	b := v.bytesAt(st, i)
	if b == nil {
		b = []byte{} // a Decimal with B == nil would read I
	}
	return Value{Kind: k, B: b}
}

// Each calls f with every element as a Value of t's kind (ok false: null): the top-k heap of
// package scan orders rows with Compare on the same values the row filter sees. Byte values
// alias v's buffers; a caller that keeps one must copy it.
func (v *Vector) Each(t ColumnType, f func(i int, val Value, ok bool)) error {
	st, err := v.check(t, v.Len)
	if err != nil {
		return err
	}
	for i := 0; i < v.Len; i++ {
		if !v.valid(i) {
			f(i, Value{}, false)
			continue
		}
		f(i, v.value(t.Kind, st, i), true)
	}
	return nil
}
