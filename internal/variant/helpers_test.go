package variant

import (
	"encoding/binary"
	"math"
)

// Builders of Variant bytes for tests, written from VariantEncoding.md independently of the
// encoder in shred.go.

// md builds metadata with the given offset size (1 to 4) and sorted flag.
func md(osz int, sorted bool, keys ...string) []byte {
	h := byte(1) | byte(osz-1)<<6
	if sorted {
		h |= 1 << 4
	}
	b := []byte{h}
	b = putLE(b, len(keys), osz)
	off := 0
	b = putLE(b, 0, osz)
	for _, k := range keys {
		off += len(k)
		b = putLE(b, off, osz)
	}
	for _, k := range keys {
		b = append(b, k...)
	}
	return b
}

func mdKeys(keys ...string) []byte { return md(1, false, keys...) }

func p(t int, payload ...byte) []byte { return append([]byte{byte(t << 2)}, payload...) }

func vNull() []byte { return p(primNull) }
func vBool(b bool) []byte {
	if b {
		return p(primTrue)
	}
	return p(primFalse)
}
func vI8(v int8) []byte   { return p(primInt8, byte(v)) }
func vI16(v int16) []byte { return p(primInt16, binary.LittleEndian.AppendUint16(nil, uint16(v))...) }
func vI32(v int32) []byte { return p(primInt32, binary.LittleEndian.AppendUint32(nil, uint32(v))...) }
func vI64(v int64) []byte { return p(primInt64, binary.LittleEndian.AppendUint64(nil, uint64(v))...) }
func vF64(v float64) []byte {
	return p(primDouble, binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))...)
}
func vF32(v float32) []byte {
	return p(primFloat, binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))...)
}
func vDec4(scale byte, v int32) []byte {
	return p(primDecimal4, append([]byte{scale}, binary.LittleEndian.AppendUint32(nil, uint32(v))...)...)
}
func vDec8(scale byte, v int64) []byte {
	return p(primDecimal8, append([]byte{scale}, binary.LittleEndian.AppendUint64(nil, uint64(v))...)...)
}
func vDec16(scale byte, lo, hi uint64) []byte {
	b := []byte{scale}
	b = binary.LittleEndian.AppendUint64(b, lo)
	b = binary.LittleEndian.AppendUint64(b, hi)
	return p(primDecimal16, b...)
}
func vDate(d int32) []byte { return p(primDate, binary.LittleEndian.AppendUint32(nil, uint32(d))...) }
func v8(t int, v int64) []byte {
	return p(t, binary.LittleEndian.AppendUint64(nil, uint64(v))...)
}
func vStr(s string) []byte {
	return p(primString, append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)...)
}
func vBin(s string) []byte {
	return p(primBinary, append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)...)
}
func vShort(s string) []byte { return append([]byte{byte(len(s))<<2 | basicShortString}, s...) }

// concat lays vals out one after the other, with their n+1 offsets.
func concat(vals [][]byte) (data []byte, offs []int) {
	for _, v := range vals {
		offs = append(offs, len(data))
		data = append(data, v...)
	}
	return data, append(offs, len(data))
}

// vObj builds an object with the given field ids and values in that order, with the sizes
// given (0 picks the smallest).
func vObj(idSize, offSize int, large bool, ids []int, vals ...[]byte) []byte {
	data, offs := concat(vals)
	if idSize == 0 {
		idSize = 1
		for _, id := range ids {
			idSize = max(idSize, sizeFor(id))
		}
	}
	if offSize == 0 {
		offSize = sizeFor(len(data))
	}
	h := byte(basicObject) | byte(offSize-1)<<2 | byte(idSize-1)<<4
	b := []byte{h}
	if large || len(ids) > 255 {
		b[0] |= 1 << 6
		b = putLE(b, len(ids), 4)
	} else {
		b = append(b, byte(len(ids)))
	}
	for _, id := range ids {
		b = putLE(b, id, idSize)
	}
	for _, o := range offs {
		b = putLE(b, o, offSize)
	}
	return append(b, data...)
}

func obj(ids []int, vals ...[]byte) []byte { return vObj(0, 0, false, ids, vals...) }

func vArr(offSize int, large bool, vals ...[]byte) []byte {
	data, offs := concat(vals)
	if offSize == 0 {
		offSize = sizeFor(len(data))
	}
	b := []byte{byte(basicArray) | byte(offSize-1)<<2}
	if large || len(vals) > 255 {
		b[0] |= 1 << 4
		b = putLE(b, len(vals), 4)
	} else {
		b = append(b, byte(len(vals)))
	}
	for _, o := range offs {
		b = putLE(b, o, offSize)
	}
	return append(b, data...)
}

func arr(vals ...[]byte) []byte { return vArr(0, false, vals...) }
