package format

import (
	"encoding/binary"
	"math"
)

// w builds compact-protocol bytes for hand-made test inputs.
type w []byte

func (b w) varint(u uint64) w { return binary.AppendUvarint(b, u) }
func (b w) i(v int64) w       { return b.varint(uint64(v<<1) ^ uint64(v>>63)) }

// f writes a field header with a small id delta.
func (b w) f(delta, typ byte) w { return append(b, delta<<4|typ) }

// Field helpers: delta, then value.
func (b w) i32(delta byte, v int32) w  { return b.f(delta, 5).i(int64(v)) }
func (b w) i64(delta byte, v int64) w  { return b.f(delta, 6).i(v) }
func (b w) bin(delta byte, s string) w { return b.f(delta, 8).varint(uint64(len(s))).raw(s) }
func (b w) boolean(delta byte, v bool) w {
	if v {
		return b.f(delta, 1)
	}
	return b.f(delta, 2)
}
func (b w) dbl(delta byte, v float64) w {
	return binary.LittleEndian.AppendUint64(b.f(delta, 7), math.Float64bits(v))
}
func (b w) st(delta byte) w { return b.f(delta, 12) }
func (b w) stop() w         { return append(b, 0) }
func (b w) raw(s string) w  { return append(b, s...) }
func (b w) list(delta, elem byte, n int) w {
	b = b.f(delta, 9)
	if n < 15 {
		return append(b, byte(n)<<4|elem)
	}
	return append(b, 0xf0|elem).varint(uint64(n))
}
