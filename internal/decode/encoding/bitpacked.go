package encoding

import "github.com/pqscan/pqscan/internal/errf"

// BitPackedLevels appends n levels of the deprecated BIT_PACKED encoding (parquet-format
// Encodings.md, "Bit-packed (Deprecated) (BIT_PACKED = 4)") decoded from src to dst, and returns
// the extended slice and the bytes used: ceil(n*bitWidth/8). Values are packed from the most
// significant bit of each byte to the least, with no run headers and, in a v1 data page, no
// length prefix (parquet-java's ByteBitPackingValuesReader with the big-endian packer). Old
// parquet-mr versions wrote levels this way.
//
// bitWidth must be 0..15 (levels are int16); 0 means n zeros and reads nothing. Fewer than
// ceil(n*bitWidth/8) bytes is an error wrapping ErrTruncated; on error dst is returned at its
// original length. For widths above 0, n is checked against len(src); for width 0 the caller
// must bound n (by the page's value count), as for Hybrid.
func BitPackedLevels(dst []int16, src []byte, bitWidth, n int) ([]int16, int, error) {
	if bitWidth < 0 || bitWidth > 15 {
		return dst, 0, errf.Errorf("%w: %d for BIT_PACKED levels", ErrBitWidth, bitWidth)
	}
	if n < 0 {
		return dst, 0, errf.Errorf("%w: negative count %d", ErrArgument, n)
	}
	if bitWidth == 0 {
		for i := 0; i < n; i++ {
			dst = append(dst, 0)
		}
		return dst, 0, nil
	}
	if n > len(src)*8 {
		return dst, 0, errf.Errorf("%w: %d BIT_PACKED levels of %d bits need more than %d bytes", ErrTruncated, n, bitWidth, len(src))
	}
	need := (n*bitWidth + 7) / 8
	if need > len(src) {
		return dst, 0, errf.Errorf("%w: %d BIT_PACKED levels of %d bits need %d bytes, %d remain", ErrTruncated, n, bitWidth, need, len(src))
	}
	pos := 0 // bit position from the most significant bit of src[0]
	for i := 0; i < n; i++ {
		var v int16
		for k := 0; k < bitWidth; k++ {
			bit := src[pos>>3] >> (7 - pos&7) & 1
			v = v<<1 | int16(bit)
			pos++
		}
		dst = append(dst, v)
	}
	return dst, need, nil
}
