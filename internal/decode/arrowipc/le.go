package arrowipc

import (
	"encoding/binary"
	"unsafe"
)

// nativeLittleEndian is true on every target pqscan ships for (wasm, amd64, arm64). There the
// in-memory []int32 already is the Arrow wire form and can be reinterpreted without a copy.
var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// zeroOffset is the offsets buffer of a zero-length variable-size array whose producer left
// Offsets empty: Arrow wants one entry.
var zeroOffset = []byte{0, 0, 0, 0}

// int32Bytes returns v as little-endian bytes: a view of v's memory on little-endian targets
// (no per-value work), a converted copy elsewhere. The caller must not modify the result.
func int32Bytes(v []int32) []byte {
	if len(v) == 0 {
		return nil
	}
	if nativeLittleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
	}
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}
