package encoding

import (
	"encoding/binary"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
)

// BYTE_STREAM_SPLIT (parquet-format Encodings.md, "Byte Stream Split (BYTE_STREAM_SPLIT =
// 9)"): for values of K bytes, K streams, stream k holding byte k of every value. The stride is
// the number of values in the page, which is len(src)/K.

// ByteStreamSplit appends n values of width bytes (FLOAT 4, DOUBLE 8, INT32 4, INT64 8,
// FIXED_LEN_BYTE_ARRAY its type length, FLOAT16 2) from src to dst as little-endian bytes,
// Arrow's layout. src is the whole values section: its length must be a multiple of width
// (ErrSize), the streams are len(src)/width bytes long, and n may not exceed that. It uses
// all of src, so it returns no byte count.
func ByteStreamSplit(dst []byte, src []byte, n, width int) ([]byte, error) {
	if n < 0 || width <= 0 {
		return dst, errf.Errorf("%w: n=%d width=%d", ErrArgument, n, width)
	}
	if len(src)%width != 0 {
		return dst, errf.Errorf("%w: %d bytes with value width %d", ErrSize, len(src), width)
	}
	stride := len(src) / width
	if n > stride {
		return dst, errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, stride)
	}
	base := len(dst)
	dst = slices.Grow(dst, n*width)[:base+n*width]
	out := dst[base:]
	switch width {
	case 4:
		s0, s1, s2, s3 := src[:n], src[stride:stride+n], src[2*stride:2*stride+n], src[3*stride:3*stride+n]
		for i := range s0 {
			v := uint32(s0[i]) | uint32(s1[i])<<8 | uint32(s2[i])<<16 | uint32(s3[i])<<24
			binary.LittleEndian.PutUint32(out[4*i:], v)
		}
	case 8:
		s0, s1, s2, s3 := src[:n], src[stride:stride+n], src[2*stride:2*stride+n], src[3*stride:3*stride+n]
		s4, s5, s6, s7 := src[4*stride:4*stride+n], src[5*stride:5*stride+n], src[6*stride:6*stride+n], src[7*stride:7*stride+n]
		for i := range s0 {
			v := uint64(s0[i]) | uint64(s1[i])<<8 | uint64(s2[i])<<16 | uint64(s3[i])<<24 |
				uint64(s4[i])<<32 | uint64(s5[i])<<40 | uint64(s6[i])<<48 | uint64(s7[i])<<56
			binary.LittleEndian.PutUint64(out[8*i:], v)
		}
	case 2:
		s0, s1 := src[:n], src[stride:stride+n]
		for i := range s0 {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(s0[i])|uint16(s1[i])<<8)
		}
	default:
		for k := 0; k < width; k++ {
			s := src[k*stride : k*stride+n]
			for i, b := range s {
				out[i*width+k] = b
			}
		}
	}
	return dst, nil
}
