package tablescan

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// widens says whether every value of from is exactly a value of to, with a cast this package
// performs (widen):
//   - a wider signed integer, from a signed or a narrower unsigned one;
//   - float to double;
//   - a timestamp in a finer unit with the same kind of zone (a coarser one would truncate:
//     refused, because the predicate, evaluated on the file's values, would then disagree
//     with the table's values);
//   - a decimal whose scale and integer digits are both at least the file's (the unscaled
//     value is multiplied by 10^(scale difference)).
//
// The predicate is evaluated by each file's scan on the file's own values, statistics,
// dictionaries and bloom filters, and each of these casts is exact and order-preserving, so
// a comparison gives the same answer on the file's value as on the table's; the one
// exception, a float literal compared with a float column widened to double, is rewritten
// per file (filewhere.go).
func widens(from, to arrowipc.DataType) bool {
	switch {
	case from.Dictionary || to.Dictionary:
		return false
	case from.ID == arrowipc.Int && to.ID == arrowipc.Int && to.Signed:
		return to.BitWidth > from.BitWidth || (from.Signed && to.BitWidth == from.BitWidth)
	case from.ID == arrowipc.Float && to.ID == arrowipc.Float:
		return from.BitWidth == 32 && to.BitWidth == 64
	case from.ID == arrowipc.Timestamp && to.ID == arrowipc.Timestamp:
		return (from.TZ == "") == (to.TZ == "") && unitTicks(to.Unit) >= unitTicks(from.Unit)
	case from.ID == arrowipc.Decimal && to.ID == arrowipc.Decimal:
		return to.Scale >= from.Scale && to.Precision-to.Scale >= from.Precision-from.Scale && to.BitWidth >= from.BitWidth
	}
	return false
}

// unitTicks is the number of ticks of unit u in a second.
func unitTicks(u arrowipc.TimeUnit) int64 {
	return [...]int64{1, 1e3, 1e6, 1e9}[min(int(u), 3)]
}

func typeName(t arrowipc.DataType) string {
	switch t.ID {
	case arrowipc.Int:
		if t.Signed {
			return fmt.Sprintf("int%d", t.BitWidth)
		}
		return fmt.Sprintf("uint%d", t.BitWidth)
	case arrowipc.Float:
		return fmt.Sprintf("float%d", t.BitWidth)
	case arrowipc.Utf8:
		return "utf8"
	case arrowipc.Binary:
		return "binary"
	case arrowipc.Timestamp:
		u := [...]string{"s", "ms", "us", "ns"}[min(int(t.Unit), 3)]
		if t.TZ != "" {
			return fmt.Sprintf("timestamp[%s, tz=%s]", u, t.TZ)
		}
		return fmt.Sprintf("timestamp[%s]", u)
	case arrowipc.Decimal:
		return fmt.Sprintf("decimal%d(%d, %d)", t.BitWidth, t.Precision, t.Scale)
	}
	return fmt.Sprintf("type %d", t.ID)
}

// widen converts a's n values from type from to type to (see widens).
func widen(a *arrowipc.Array, from, to arrowipc.DataType, n int) (*arrowipc.Array, error) {
	if a.Len != n {
		return nil, fmt.Errorf("%w: a column of %d rows in a batch of %d", ErrProtocol, a.Len, n)
	}
	w, ow := from.BitWidth/8, to.BitWidth/8
	if from.ID == arrowipc.Timestamp {
		w, ow = 8, 8
	}
	if w <= 0 || len(a.Data) < n*w {
		return nil, fmt.Errorf("%w: a %d-row column with %d data bytes", ErrProtocol, n, len(a.Data))
	}
	if from.ID == arrowipc.Decimal {
		return widenDecimal(a, from, to, n)
	}
	out := &arrowipc.Array{Len: n, NullCount: a.NullCount, Validity: a.Validity, Data: make([]byte, ow*n)}
	mul := int64(1)
	if from.ID == arrowipc.Timestamp {
		mul = unitTicks(to.Unit) / unitTicks(from.Unit)
	}
	for i := 0; i < n; i++ {
		b := a.Data[i*w : (i+1)*w]
		var v uint64
		switch {
		case from.ID == arrowipc.Float: // float32 → float64
			v = math.Float64bits(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
		case from.ID == arrowipc.Timestamp:
			x := int64(binary.LittleEndian.Uint64(b))
			if x > math.MaxInt64/mul || x < math.MinInt64/mul {
				if a.Validity != nil && a.Validity[i/8]&(1<<(i%8)) == 0 {
					continue // a null slot's bytes mean nothing
				}
				return nil, fmt.Errorf("%w: the timestamp %d (%s) is out of the table's range (%s)", ErrSchema, x, typeName(from), typeName(to))
			}
			v = uint64(x * mul)
		case w == 1 && from.Signed:
			v = uint64(int64(int8(b[0])))
		case w == 2 && from.Signed:
			v = uint64(int64(int16(binary.LittleEndian.Uint16(b))))
		case w == 4 && from.Signed:
			v = uint64(int64(int32(binary.LittleEndian.Uint32(b))))
		case w == 8:
			v = binary.LittleEndian.Uint64(b)
		case w == 1:
			v = uint64(b[0])
		case w == 2:
			v = uint64(binary.LittleEndian.Uint16(b))
		case w == 4:
			v = uint64(binary.LittleEndian.Uint32(b))
		default:
			return nil, fmt.Errorf("%w: no cast from %s to %s", ErrSchema, typeName(from), typeName(to))
		}
		var le [8]byte
		binary.LittleEndian.PutUint64(le[:], v)
		copy(out.Data[ow*i:ow*(i+1)], le[:ow]) // little-endian: the low ow bytes
	}
	return out, nil
}

// widenDecimal rescales little-endian two's-complement decimals to the table's scale and
// width. The same scale and width is the same bytes (only the declared precision differs).
func widenDecimal(a *arrowipc.Array, from, to arrowipc.DataType, n int) (*arrowipc.Array, error) {
	w, ow := from.BitWidth/8, to.BitWidth/8
	if from.Scale == to.Scale && w == ow {
		return a, nil
	}
	out := &arrowipc.Array{Len: n, NullCount: a.NullCount, Validity: a.Validity, Data: make([]byte, ow*n)}
	f := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(to.Scale-from.Scale)), nil)
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*ow))
	be := make([]byte, w)
	var x big.Int
	for i := 0; i < n; i++ {
		src := a.Data[i*w : (i+1)*w]
		for k := range be {
			be[k] = src[w-1-k]
		}
		x.SetBytes(be)
		if be[0]&0x80 != 0 {
			x.Sub(&x, new(big.Int).Lsh(big.NewInt(1), uint(8*w)))
		}
		x.Mul(&x, f)
		if x.BitLen() >= 8*ow {
			// A value beyond its declared precision (a corrupt file): no exact table value.
			return nil, fmt.Errorf("%w: a decimal value does not fit %s", ErrSchema, typeName(to))
		}
		if x.Sign() < 0 {
			x.Add(&x, mod) // two's complement in ow bytes (precision bounds the magnitude)
		}
		dst := out.Data[i*ow : (i+1)*ow]
		x.FillBytes(dst)
		for l, r := 0, ow-1; l < r; l, r = l+1, r-1 {
			dst[l], dst[r] = dst[r], dst[l]
		}
	}
	return out, nil
}
