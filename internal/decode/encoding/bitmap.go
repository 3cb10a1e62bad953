package encoding

import "github.com/pqscan/pqscan/internal/errf"

// Arrow-style bitmaps (LSB first: value i is bit i%8 of byte i/8), the output form of BOOLEAN
// columns. Parquet's bit-packed booleans use the same bit order, so PLAIN booleans and the
// bit-packed runs of RLE booleans are bit copies, and RLE runs are bit fills.

// growBitmap checks that bitmap holds the bits before bitOffset and returns it resized to
// exactly ceil((bitOffset+n)/8) bytes with every bit from bitOffset on cleared, so that the
// decoders may OR into it and leave the bits past the last value zero.
func growBitmap(bitmap []byte, bitOffset, n int) ([]byte, error) {
	if bitOffset < 0 || n < 0 || len(bitmap) < (bitOffset+7)>>3 {
		return bitmap, errf.Errorf("%w: bitOffset=%d n=%d len(bitmap)=%d", ErrArgument, bitOffset, n, len(bitmap))
	}
	need := (bitOffset + n + 7) >> 3
	if need > len(bitmap) {
		bitmap = append(bitmap, make([]byte, need-len(bitmap))...)
	}
	bm := bitmap[:need]
	if s := bitOffset & 7; s != 0 {
		bm[bitOffset>>3] &= byte(1)<<s - 1
	}
	clear(bm[(bitOffset+7)>>3:])
	return bm, nil
}

// writeBits copies n bits from the start of src (LSB first) to bm at bit off, clearing the
// bits of the last byte past off+n. bm has exactly ceil((off+n)/8) bytes and src at least
// ceil(n/8).
func writeBits(bm []byte, off int, src []byte, n int) {
	if n == 0 {
		return
	}
	nb := (n + 7) >> 3
	i := off >> 3
	if s := uint(off & 7); s == 0 {
		copy(bm[i:], src[:nb])
	} else {
		bm[i] &= byte(1)<<s - 1
		last := len(bm) - 1
		for k, b := range src[:nb] {
			bm[i+k] |= b << s
			if i+k < last {
				bm[i+k+1] = b >> (8 - s)
			}
		}
	}
	if end := off + n; end&7 != 0 {
		bm[(end-1)>>3] &= byte(1)<<(end&7) - 1
	}
}

// fillBits sets (v) or clears bits [off, off+n) of bm.
func fillBits(bm []byte, off, n int, v bool) {
	if n == 0 {
		return
	}
	end := off + n
	first, last := off>>3, (end-1)>>3
	headMask := ^(byte(1)<<(off&7) - 1) // bits >= off in the first byte
	tailMask := byte(0xFF)
	if end&7 != 0 {
		tailMask = byte(1)<<(end&7) - 1 // bits < end in the last byte
	}
	if first == last {
		m := headMask & tailMask
		if v {
			bm[first] |= m
		} else {
			bm[first] &^= m
		}
		return
	}
	fill := byte(0)
	if v {
		fill = 0xFF
		bm[first] |= headMask
		bm[last] |= tailMask
	} else {
		bm[first] &^= headMask
		bm[last] &^= tailMask
	}
	mid := bm[first+1 : last]
	for i := range mid {
		mid[i] = fill
	}
}
