package tablescan

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/schema"
	"github.com/pqscan/pqscan/internal/decode"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/prune"
	"github.com/pqscan/pqscan/internal/prune/exactnum"
	"github.com/pqscan/pqscan/internal/variant"
)

// widens says whether every value of from is exactly a value of to, with a cast this package
// performs (widen):
//   - a wider signed integer, from a signed or a narrower unsigned one;
//   - a timestamp in a finer unit with the same kind of zone (a coarser one would truncate:
//     refused, because the predicate, evaluated on the file's values, would then disagree
//     with the table's values);
//   - a decimal whose scale and integer digits are both at least the file's (the unscaled
//     value is multiplied by 10^(scale difference));
//   - the other widenings of package schema (Delta's typeWidening): float to double, a
//     signed integer of at most 32 bits to double, a signed integer to a decimal with room
//     for all its values, a date to a timestamp without zone (midnight).
//
// The predicate is evaluated by each file's scan on the file's own values, statistics,
// dictionaries and bloom filters, and each of these casts is exact and order-preserving, so
// a comparison gives the same answer on the file's value as on the table's once its literal
// is bound as the table binds it: literals compared with a float or an integer widened to
// double are rounded to the double (and the float) first, and a timestamp literal compared
// with a date widened to a zone-less timestamp is read as a wall-clock time (filewhere.go).
func widens(from, to arrowipc.DataType) bool {
	switch {
	case from.Dictionary || to.Dictionary:
		return false
	case from.ID == arrowipc.Int && to.ID == arrowipc.Int && to.Signed:
		return to.BitWidth > from.BitWidth || (from.Signed && to.BitWidth == from.BitWidth)
	case from.ID == arrowipc.Timestamp && to.ID == arrowipc.Timestamp:
		return (from.TZ == "") == (to.TZ == "") && unitTicks(to.Unit) >= unitTicks(from.Unit)
	case from.ID == arrowipc.Decimal && to.ID == arrowipc.Decimal:
		return to.Scale >= from.Scale && to.Precision-to.Scale >= from.Precision-from.Scale && to.BitWidth >= from.BitWidth
	}
	f, ok1 := leafType(from)
	t, ok2 := leafType(to)
	return ok1 && ok2 && schema.Widens(f, t)
}

// leafType is package schema's type of an Arrow leaf type of the decoder's output (ok is
// false for unsigned integers and the types schema does not widen).
func leafType(t arrowipc.DataType) (schema.Type, bool) {
	switch {
	case t.ID == arrowipc.Int && t.Signed:
		switch t.BitWidth {
		case 8:
			return schema.Type{Kind: schema.Int8}, true
		case 16:
			return schema.Type{Kind: schema.Int16}, true
		case 32:
			return schema.Type{Kind: schema.Int32}, true
		case 64:
			return schema.Type{Kind: schema.Int64}, true
		}
	case t.ID == arrowipc.Float && t.BitWidth == 32:
		return schema.Type{Kind: schema.Float32}, true
	case t.ID == arrowipc.Float && t.BitWidth == 64:
		return schema.Type{Kind: schema.Float64}, true
	case t.ID == arrowipc.Date32:
		return schema.Type{Kind: schema.Date}, true
	case t.ID == arrowipc.Timestamp:
		u := [...]prune.Unit{prune.Second, prune.Milli, prune.Micro, prune.Nano}[min(int(t.Unit), 3)]
		return schema.Type{Kind: schema.Timestamp, Unit: u, UTC: t.TZ != ""}, true
	case t.ID == arrowipc.Decimal:
		return schema.Type{Kind: schema.Decimal, Precision: int32(t.Precision), Scale: int32(t.Scale)}, true
	}
	return schema.Type{}, false
}

// fitNested is fitType for two struct, list or map types: their children fit one another.
// Struct fields match by name (else equal but for case, when one such field exists); a table
// field the file's struct lacks reads as nulls (refused when the table says it is never
// null), a file field the table lacks is dropped. Map entries match by position.
func fitNested(from, to arrowipc.DataType, zonelessUTC bool) (cast, ok bool) {
	switch from.ID {
	case arrowipc.List:
		if from.Elem == nil || to.Elem == nil {
			return false, false
		}
		return fitType(from.Elem.Type, to.Elem.Type, zonelessUTC)
	case arrowipc.Map:
		if from.Elem == nil || to.Elem == nil || len(from.Elem.Type.Fields) != 2 || len(to.Elem.Type.Fields) != 2 {
			return false, false
		}
		for k := range 2 {
			c, ok := fitType(from.Elem.Type.Fields[k].Type, to.Elem.Type.Fields[k].Type, zonelessUTC)
			if !ok {
				return false, false
			}
			cast = cast || c
		}
		return cast, true
	}
	cast = len(from.Fields) != len(to.Fields)
	for i, tf := range to.Fields {
		j := fieldIndex(from.Fields, tf.Name)
		if j < 0 {
			if !tf.Nullable {
				return false, false
			}
			cast = true
			continue
		}
		c, ok := fitType(from.Fields[j].Type, tf.Type, zonelessUTC)
		if !ok {
			return false, false
		}
		cast = cast || c || j != i
	}
	return cast, true
}

// fieldIndex is the index of the struct field named name (else the one field equal but for
// case), or -1.
func fieldIndex(fs []arrowipc.Field, name string) int {
	found, folded := -1, 0
	for i, f := range fs {
		if f.Name == name {
			return i
		}
		if strings.EqualFold(f.Name, name) {
			found, folded = i, folded+1
		}
	}
	if folded != 1 {
		return -1 // absent, or ambiguous
	}
	return found
}

// unitTicks is the number of ticks of unit u in a second.
func unitTicks(u arrowipc.TimeUnit) int64 {
	return [...]int64{1, 1e3, 1e6, 1e9}[min(int(u), 3)]
}

func typeName(t arrowipc.DataType) string {
	switch t.ID {
	case arrowipc.Int:
		if t.Signed {
			return errf.Sprintf("int%d", t.BitWidth)
		}
		return errf.Sprintf("uint%d", t.BitWidth)
	case arrowipc.Float:
		return errf.Sprintf("float%d", t.BitWidth)
	case arrowipc.Utf8:
		return "utf8"
	case arrowipc.Binary:
		return "binary"
	case arrowipc.Timestamp:
		u := [...]string{"s", "ms", "us", "ns"}[min(int(t.Unit), 3)]
		if t.TZ != "" {
			return errf.Sprintf("timestamp[%s, tz=%s]", u, t.TZ)
		}
		return errf.Sprintf("timestamp[%s]", u)
	case arrowipc.Decimal:
		return errf.Sprintf("decimal%d(%d, %d)", t.BitWidth, t.Precision, t.Scale)
	}
	return errf.Sprintf("type %d", int(t.ID))
}

// widen converts a's n values from type from to type to (fitType says they fit and need a
// cast).
func widen(a *arrowipc.Array, from, to arrowipc.DataType, n int) (*arrowipc.Array, error) {
	if a.Len != n {
		return nil, errf.Errorf("%w: a column of %d rows in a batch of %d", ErrProtocol, a.Len, n)
	}
	if sameType(to, variant.ArrowType) && variant.IsGroup(from) {
		v, err := variant.Canonical(from, a)
		if err != nil {
			return nil, errf.Errorf("%w: %w", decode.ErrValue, err)
		}
		return v, nil
	}
	switch from.ID {
	case arrowipc.Struct, arrowipc.List, arrowipc.Map:
		return widenNested(a, from, to, n)
	}
	w, ow := byteWidth(from), byteWidth(to)
	if w <= 0 || ow <= 0 || len(a.Data) < n*w {
		return nil, errf.Errorf("%w: a %d-row column with %d data bytes", ErrProtocol, n, len(a.Data))
	}
	switch {
	case from.ID == arrowipc.Decimal:
		return widenDecimal(a, from, to, n)
	case to.ID == arrowipc.Decimal:
		// An integer: as a 64-bit integer, then a decimal of scale 0.
		long := arrowipc.DataType{ID: arrowipc.Int, BitWidth: 64, Signed: true}
		ints, err := widen(a, from, long, n)
		if err != nil {
			return nil, err
		}
		return widenDecimal(ints, arrowipc.DataType{ID: arrowipc.Decimal, BitWidth: 64, Precision: 19}, to, n)
	}
	out := &arrowipc.Array{Len: n, NullCount: a.NullCount, Validity: a.Validity, Data: make([]byte, ow*n)}
	mul := int64(1)
	switch {
	case from.ID == arrowipc.Timestamp:
		mul = unitTicks(to.Unit) / unitTicks(from.Unit)
	case from.ID == arrowipc.Date32:
		mul = 86400 * unitTicks(to.Unit)
	}
	for i := 0; i < n; i++ {
		b := a.Data[i*w : (i+1)*w]
		var x int64
		switch {
		case from.ID == arrowipc.Float: // float32 → float64
			v := math.Float64bits(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
			binary.LittleEndian.PutUint64(out.Data[8*i:], v)
			continue
		case w == 1 && from.Signed:
			x = int64(int8(b[0]))
		case w == 2 && from.Signed:
			x = int64(int16(binary.LittleEndian.Uint16(b)))
		case w == 4 && (from.Signed || from.ID == arrowipc.Date32):
			x = int64(int32(binary.LittleEndian.Uint32(b)))
		case w == 8:
			x = int64(binary.LittleEndian.Uint64(b))
		case w == 1:
			x = int64(b[0])
		case w == 2:
			x = int64(binary.LittleEndian.Uint16(b))
		case w == 4:
			x = int64(binary.LittleEndian.Uint32(b))
		default:
			return nil, errf.Errorf("%w: no cast from %s to %s", ErrSchema, typeName(from), typeName(to))
		}
		var v uint64
		switch to.ID {
		case arrowipc.Float:
			v = math.Float64bits(float64(x)) // at most 32 bits: exact
		case arrowipc.Timestamp:
			if x > math.MaxInt64/mul || x < math.MinInt64/mul {
				if a.Validity != nil && a.Validity[i/8]&(1<<(i%8)) == 0 {
					continue // a null slot's bytes mean nothing
				}
				return nil, errf.Errorf("%w: the value %d (%s) is out of the table's range (%s)", ErrSchema, x, typeName(from), typeName(to))
			}
			v = uint64(x * mul)
		default:
			v = uint64(x)
		}
		var le [8]byte
		binary.LittleEndian.PutUint64(le[:], v)
		copy(out.Data[ow*i:ow*(i+1)], le[:ow]) // little-endian: the low ow bytes
	}
	return out, nil
}

// byteWidth is the width of a fixed-width type's values (0 for others).
func byteWidth(t arrowipc.DataType) int {
	switch t.ID {
	case arrowipc.Int, arrowipc.Float, arrowipc.Decimal:
		return t.BitWidth / 8
	case arrowipc.Date32:
		return 4
	case arrowipc.Timestamp:
		return 8
	}
	return 0
}

// widenNested casts a struct, list or map array child by child (fitNested): the parent's
// validity and offsets stay, a child that needs no cast is the file's own array.
func widenNested(a *arrowipc.Array, from, to arrowipc.DataType, n int) (*arrowipc.Array, error) {
	out := *a
	child := func(c *arrowipc.Array, f, t arrowipc.DataType) (*arrowipc.Array, error) {
		cast, ok := fitType(f, t, true)
		switch {
		case !ok:
			return nil, errf.Errorf("%w: no cast from %s to %s", ErrSchema, typeName(f), typeName(t))
		case !cast:
			return c, nil
		}
		return widen(c, f, t, c.Len)
	}
	switch from.ID {
	case arrowipc.List:
		if len(a.Children) != 1 {
			return nil, errf.Errorf("%w: a list array with %d children", ErrProtocol, len(a.Children))
		}
		c, err := child(a.Children[0], from.Elem.Type, to.Elem.Type)
		if err != nil {
			return nil, err
		}
		out.Children = []*arrowipc.Array{c}
		return &out, nil
	case arrowipc.Map:
		if len(a.Children) != 1 || len(a.Children[0].Children) != 2 {
			return nil, errf.Errorf("%w: a map array without key and value", ErrProtocol)
		}
		entries := *a.Children[0]
		entries.Children = make([]*arrowipc.Array, 2)
		for k := range 2 {
			c, err := child(a.Children[0].Children[k], from.Elem.Type.Fields[k].Type, to.Elem.Type.Fields[k].Type)
			if err != nil {
				return nil, err
			}
			entries.Children[k] = c
		}
		out.Children = []*arrowipc.Array{&entries}
		return &out, nil
	}
	if len(a.Children) != len(from.Fields) {
		return nil, errf.Errorf("%w: a struct array with %d children for %d fields", ErrProtocol, len(a.Children), len(from.Fields))
	}
	out.Children = make([]*arrowipc.Array, len(to.Fields))
	for i, tf := range to.Fields {
		var err error
		if j := fieldIndex(from.Fields, tf.Name); j >= 0 {
			out.Children[i], err = child(a.Children[j], from.Fields[j].Type, tf.Type)
		} else {
			out.Children[i], err = nulls(tf.Type, n)
		}
		if err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// widenDecimal rescales little-endian two's-complement decimals to the table's scale and
// width. The same scale and width is the same bytes (only the declared precision differs).
func widenDecimal(a *arrowipc.Array, from, to arrowipc.DataType, n int) (*arrowipc.Array, error) {
	w, ow := from.BitWidth/8, to.BitWidth/8
	if from.Scale == to.Scale && w == ow {
		return a, nil
	}
	out := &arrowipc.Array{Len: n, NullCount: a.NullCount, Validity: a.Validity, Data: make([]byte, ow*n)}
	f := exactnum.Pow10(int(to.Scale - from.Scale))
	mod := exactnum.Shl1(uint(8 * ow))
	be := make([]byte, w)
	for i := 0; i < n; i++ {
		src := a.Data[i*w : (i+1)*w]
		for k := range be {
			be[k] = src[w-1-k]
		}
		x := exactnum.FromTwos(be).Mul(f)
		if x.BitLen() >= 8*ow {
			// A value beyond its declared precision (a corrupt file): no exact table value.
			return nil, errf.Errorf("%w: a decimal value does not fit %s", ErrSchema, typeName(to))
		}
		if x.Sign() < 0 {
			x = x.Add(mod) // two's complement in ow bytes (precision bounds the magnitude)
		}
		dst := out.Data[i*ow : (i+1)*ow]
		x.FillBytes(dst)
		for l, r := 0, ow-1; l < r; l, r = l+1, r-1 {
			dst[l], dst[r] = dst[r], dst[l]
		}
	}
	return out, nil
}
