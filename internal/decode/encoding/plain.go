package encoding

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
)

// PLAIN encoding (parquet-format Encodings.md, "Plain (PLAIN = 0)") of the fixed-width and
// BYTE_ARRAY physical types. BOOLEAN is in boolean.go.

// PlainFixed appends n PLAIN values of width bytes each from src to dst, as raw little-endian
// bytes: exactly Arrow's buffer layout for INT32 (4), INT64 (8), FLOAT (4), DOUBLE (8),
// INT96 (12) and FIXED_LEN_BYTE_ARRAY (its type length). It returns the bytes used, n*width.
// n*width must fit in src; the check comes before any allocation.
func PlainFixed(dst []byte, src []byte, n, width int) ([]byte, int, error) {
	if n < 0 || width <= 0 {
		return dst, 0, errf.Errorf("%w: n=%d width=%d", ErrArgument, n, width)
	}
	if n > len(src)/width {
		return dst, 0, errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, len(src)/width)
	}
	k := n * width
	return append(dst, src[:k]...), k, nil
}

// PlainByteArray appends n PLAIN BYTE_ARRAY values (each a 4-byte little-endian length and
// the bytes) from src to Arrow-style offsets and data, and returns them with the bytes used.
//
// The offsets continue from the last existing one, which must equal len(data); when offsets
// is empty, int32(len(data)) is appended first, so a fresh call yields n+1 offsets. Each
// length is checked against the bytes left before anything is copied, offsets grow by n and
// data by exactly the values' total size. Data beyond int32 offsets is ErrTooLarge. On error
// both slices are returned at their original lengths.
func PlainByteArray(offsets []int32, data []byte, src []byte, n int) ([]int32, []byte, int, error) {
	origOff := len(offsets)
	offsets, last, err := startOffsets(offsets, data, n)
	if err != nil {
		return offsets, data, 0, err
	}
	if n > len(src)/4 { // every value takes at least its 4-byte length
		return offsets[:origOff], data, 0, errf.Errorf("%w: expected %d values, got at most %d", ErrTooFewValues, n, len(src)/4)
	}
	base := len(offsets)
	offsets = slices.Grow(offsets, n)[:base+n]
	out := offsets[base:]
	// Pass 1: validate every length and write the offsets.
	pos, off := 0, int64(last)
	for i := range out {
		if len(src)-pos < 4 {
			return offsets[:origOff], data, 0, errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, i)
		}
		l := binary.LittleEndian.Uint32(src[pos:])
		pos += 4
		if uint64(l) > uint64(len(src)-pos) {
			return offsets[:origOff], data, 0, errf.Errorf("%w: value %d has length %d at offset %d with %d bytes left",
				ErrLength, i, l, pos-4, len(src)-pos)
		}
		pos += int(l)
		off += int64(l)
		if off > math.MaxInt32 {
			return offsets[:origOff], data, 0, errf.Errorf("%w: byte array data exceeds int32 offsets at value %d", ErrTooLarge, i)
		}
		out[i] = int32(off)
	}
	// Pass 2: copy the bytes into data grown once to its final size.
	d0 := len(data)
	data = slices.Grow(data, int(off)-int(last))[:d0+int(off)-int(last)]
	dout := data[d0:]
	prev, sp := last, 4
	for _, o := range out {
		l := int(o - prev)
		copy(dout[:l], src[sp:sp+l])
		dout = dout[l:]
		sp += l + 4
		prev = o
	}
	return offsets, data, pos, nil
}

// startOffsets prepares an offsets slice for appending n values: it appends the first offset
// when offsets is empty, checks that the last offset equals len(data), and returns it.
func startOffsets(offsets []int32, data []byte, n int) ([]int32, int32, error) {
	if n < 0 {
		return offsets, 0, errf.Errorf("%w: n=%d", ErrArgument, n)
	}
	if len(offsets) == 0 {
		if len(data) > math.MaxInt32 {
			return offsets, 0, errf.Errorf("%w: len(data)=%d exceeds int32 offsets", ErrTooLarge, len(data))
		}
		return append(offsets, int32(len(data))), int32(len(data)), nil
	}
	last := offsets[len(offsets)-1]
	if int(last) != len(data) {
		return offsets, 0, errf.Errorf("%w: last offset %d but len(data)=%d", ErrArgument, last, len(data))
	}
	return offsets, last, nil
}
