package encoding

import "github.com/pqscan/pqscan/internal/errf"

// BOOLEAN values: PLAIN (parquet-format Encodings.md, "Plain": "Bit Packed, LSB first") and
// RLE (bit width 1 hybrid with a 4-byte length prefix, which data pages v1 and v2 both carry
// for boolean values), decoded straight into an Arrow bitmap.

// PlainBool decodes n PLAIN booleans from src into bitmap at bits [bitOffset, bitOffset+n).
// bitmap must hold at least ceil(bitOffset/8) bytes (the bits already written); it is
// returned with exactly ceil((bitOffset+n)/8) bytes, bits past the last value zero. The second
// result is the number of bytes used, ceil(n/8).
func PlainBool(bitmap []byte, bitOffset int, src []byte, n int) ([]byte, int, error) {
	if n < 0 {
		return bitmap, 0, errf.Errorf("%w: n=%d", ErrArgument, n)
	}
	nb := (n + 7) >> 3
	if nb > len(src) {
		return bitmap, 0, errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, len(src)*8)
	}
	bm, err := growBitmap(bitmap, bitOffset, n)
	if err != nil {
		return bitmap, 0, err
	}
	writeBits(bm, bitOffset, src, n)
	return bm, nb, nil
}

// RLEBool decodes n RLE-encoded booleans (4-byte length prefix, then the hybrid with bit
// width 1) from src into bitmap at bits [bitOffset, bitOffset+n), with PlainBool's bitmap
// contract. The second result is the bytes used: 4 plus the prefixed length. On error bitmap
// is returned at its original length, though bytes of it at or past bitOffset/8 may have
// been overwritten.
func RLEBool(bitmap []byte, bitOffset int, src []byte, n int) ([]byte, int, error) {
	if n < 0 {
		return bitmap, 0, errf.Errorf("%w: n=%d", ErrArgument, n)
	}
	body, used, err := LengthPrefixed(src)
	if err != nil {
		return bitmap, 0, errf.Errorf("RLE booleans: %w", err)
	}
	orig := len(bitmap)
	bm, err := growBitmap(bitmap, bitOffset, n)
	if err != nil {
		return bitmap, 0, err
	}
	got, pos := 0, 0
	for got < n {
		if pos >= len(body) {
			return bm[:orig], 0, errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, got)
		}
		h, p, err := uvarint(body, pos)
		if err != nil {
			return bm[:orig], 0, errf.Errorf("RLE booleans run header: %w", err)
		}
		pos = p
		if h&1 == 0 {
			if pos >= len(body) {
				return bm[:orig], 0, errf.Errorf("%w: RLE run value at offset %d", ErrTruncated, pos)
			}
			v := body[pos]
			if v > 1 {
				return bm[:orig], 0, errf.Errorf("%w: %d with bit width 1 at offset %d", ErrRunValue, v, pos)
			}
			pos++
			c := int(min(h>>1, uint64(n-got)))
			fillBits(bm, bitOffset+got, c, v == 1)
			got += c
			continue
		}
		avail := len(body) - pos
		groups := h >> 1
		nbytes := avail
		if groups < uint64(avail) {
			nbytes = int(groups)
		}
		c := min(nbytes*8, n-got)
		writeBits(bm[:(bitOffset+got+c+7)>>3], bitOffset+got, body[pos:], c)
		got += c
		pos += nbytes
	}
	return bm, used, nil
}
