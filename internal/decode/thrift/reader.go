package thrift

import (
	"encoding/binary"
	"math"

	"github.com/pqscan/pqscan/internal/errf"
)

// MaxDepth is how deeply structs, lists, sets and maps may nest, counted from the outermost
// struct a Reader decodes. parquet.thrift nests at most about 6 levels; the limit exists so that
// hostile input cannot recurse without bound.
const MaxDepth = 64

// Reader decodes compact-protocol values from a byte slice, tracking the current offset.
//
// A Reader is not safe for concurrent use. Slices returned by BinaryRef alias the input; all
// other results are copies.
type Reader struct {
	buf   []byte
	off   int
	depth int
}

// NewReader returns a Reader positioned at the start of b.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// Offset returns how many bytes have been consumed.
func (r *Reader) Offset() int { return r.off }

// Seek moves the reader to off, an offset Offset returned earlier: a fast path that meets an
// encoding it does not handle goes back and reads the same bytes with the general reader.
// An offset outside the input is ignored.
func (r *Reader) Seek(off int) {
	if off >= 0 && off <= len(r.buf) {
		r.off = off
	}
}

// Rest returns the unread input (aliasing it), for a fast path that decodes a common
// encoding straight from the bytes and then Seeks past them.
func (r *Reader) Rest() []byte { return r.buf[r.off:] }

// Remaining returns how many bytes are left.
func (r *Reader) Remaining() int { return len(r.buf) - r.off }

func (r *Reader) errAt(sentinel error, off int) error {
	return errf.Errorf("%w at offset %d", sentinel, off)
}

func (r *Reader) truncated() error { return r.errAt(ErrTruncated, r.off) }

// Byte reads one raw byte.
func (r *Reader) Byte() (byte, error) {
	if r.off >= len(r.buf) {
		return 0, r.truncated()
	}
	b := r.buf[r.off]
	r.off++
	return b, nil
}

// Uvarint reads an unsigned LEB128 varint of at most 10 bytes.
func (r *Reader) Uvarint() (uint64, error) {
	start := r.off
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if r.off >= len(r.buf) {
			return 0, r.truncated()
		}
		b := r.buf[r.off]
		r.off++
		if shift == 63 && b > 1 {
			return 0, r.errAt(ErrVarint, start)
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
		if shift >= 63 {
			return 0, r.errAt(ErrVarint, start)
		}
	}
}

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// I8 reads a single signed byte (compact protocol writes i8 raw, not as a varint).
func (r *Reader) I8() (int8, error) {
	b, err := r.Byte()
	return int8(b), err
}

// I16 reads a zigzag varint and checks that it fits in 16 bits.
func (r *Reader) I16() (int16, error) {
	start := r.off
	v, err := r.I64()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt16 || v > math.MaxInt16 {
		return 0, r.errAt(ErrVarint, start)
	}
	return int16(v), nil
}

// I32 reads a zigzag varint and checks that it fits in 32 bits.
func (r *Reader) I32() (int32, error) {
	start := r.off
	v, err := r.I64()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, r.errAt(ErrVarint, start)
	}
	return int32(v), nil
}

// I64 reads a zigzag varint.
func (r *Reader) I64() (int64, error) {
	u, err := r.Uvarint()
	return unzigzag(u), err
}

// Double reads an 8-byte little-endian IEEE 754 double.
func (r *Reader) Double() (float64, error) {
	if r.Remaining() < 8 {
		return 0, r.truncated()
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.buf[r.off:]))
	r.off += 8
	return v, nil
}

// BoolElem reads a bool stored as one byte, as in list and map elements. Writers use 1 for
// true and 2 (some 0) for false; anything but 1 is false.
func (r *Reader) BoolElem() (bool, error) {
	b, err := r.Byte()
	return b == byte(BoolTrue), err
}

// BinaryRef reads a length-prefixed byte string and returns a sub-slice of the input (no copy).
// The length is checked against the remaining input before slicing.
func (r *Reader) BinaryRef() ([]byte, error) {
	start := r.off
	u, err := r.Uvarint()
	if err != nil {
		return nil, err
	}
	if u > uint64(r.Remaining()) {
		return nil, r.errAt(ErrSize, start)
	}
	b := r.buf[r.off : r.off+int(u) : r.off+int(u)]
	r.off += int(u)
	return b, nil
}

// Binary reads a length-prefixed byte string and returns a copy that does not alias the input.
// A zero-length value is returned as a non-nil empty slice, so that callers can tell "present
// but empty" from "absent" (nil).
func (r *Reader) Binary() ([]byte, error) {
	b, err := r.BinaryRef()
	if err != nil {
		return nil, err
	}
	return append(make([]byte, 0, len(b)), b...), nil
}

// String reads a length-prefixed string (a copy).
func (r *Reader) String() (string, error) {
	b, err := r.BinaryRef()
	return string(b), err
}
