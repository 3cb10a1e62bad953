package encoding

import (
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
)

// DELTA_BINARY_PACKED (parquet-format Encodings.md, "Delta Encoding (DELTA_BINARY_PACKED =
// 5)"): a header <block size> <miniblocks per block> <total value count> <first value (zigzag)>
// and then blocks of <min delta (zigzag)> <one bit-width byte per miniblock> <miniblocks>.
// Each miniblock holds block size / miniblocks deltas, bit-packed as (delta - min delta); the
// last miniblock is padded to full size, miniblocks not needed in the last block have a width
// byte but no body.

// maxDeltaBlockSize bounds the block size a header may declare. Writers use 128 (parquet-mr,
// Arrow) or a few hundred; the bound only keeps the input-size check below meaningful.
const maxDeltaBlockSize = 1 << 20

// DeltaInt64 appends n DELTA_BINARY_PACKED INT64 values from src to dst and returns the bytes
// the whole encoded stream used (header, every block, the last miniblock's padding), which is
// where the data of DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY continues. Bit widths up to 64
// are accepted and the arithmetic wraps, as the spec requires.
//
// The header's total count must be at least n (ErrTooFewValues otherwise); if it is larger,
// n values are returned and the rest of the stream is walked (not decoded) to find its end.
// n is also checked against what len(src) can encode (each block of block-size values costs at
// least 1+miniblocks bytes) before dst grows; zero-width miniblocks still expand, so the caller
// bounds n as well.
func DeltaInt64(dst []int64, src []byte, n int) ([]int64, int, error) {
	return deltaDecode(dst, src, n)
}

// DeltaInt32 is DeltaInt64 for INT32 columns. Values are computed with the same wrapping
// arithmetic and truncated to 32 bits, which gives exactly the int32 wrapping results writers
// produce (addition commutes with truncation), so bit widths above 32 are tolerated.
func DeltaInt32(dst []int32, src []byte, n int) ([]int32, int, error) {
	return deltaDecode(dst, src, n)
}

// deltaHeader is the decoded stream header.
type deltaHeader struct {
	blockSize, miniblocks, perMini int
	total                          uint64
	first                          int64
}

// readDeltaHeader decodes and validates the header and returns the position after it.
func readDeltaHeader(src []byte) (deltaHeader, int, error) {
	var h deltaHeader
	bs, pos, err := uvarint(src, 0)
	if err != nil {
		return h, 0, errf.Errorf("delta block size: %w", err)
	}
	mb, pos, err := uvarint(src, pos)
	if err != nil {
		return h, 0, errf.Errorf("delta miniblock count: %w", err)
	}
	h.total, pos, err = uvarint(src, pos)
	if err != nil {
		return h, 0, errf.Errorf("delta value count: %w", err)
	}
	h.first, pos, err = zigzag(src, pos)
	if err != nil {
		return h, 0, errf.Errorf("delta first value: %w", err)
	}
	if bs == 0 || bs%128 != 0 || bs > maxDeltaBlockSize {
		return h, 0, errf.Errorf("%w: block size %d (a positive multiple of 128, at most %d)", ErrDeltaHeader, bs, maxDeltaBlockSize)
	}
	if mb == 0 || bs%mb != 0 || (bs/mb)%32 != 0 {
		return h, 0, errf.Errorf("%w: %d miniblocks in a block of %d (miniblock size must be a multiple of 32)", ErrDeltaHeader, mb, bs)
	}
	h.blockSize, h.miniblocks, h.perMini = int(bs), int(mb), int(bs/mb)
	return h, pos, nil
}

// deltaDecode decodes into int32 or int64; see DeltaInt64.
func deltaDecode[T int32 | int64](dst []T, src []byte, n int) ([]T, int, error) {
	if n < 0 {
		return dst, 0, errf.Errorf("%w: n=%d", ErrArgument, n)
	}
	h, pos, err := readDeltaHeader(src)
	if err != nil {
		return dst, 0, err
	}
	if uint64(n) > h.total {
		return dst, 0, errf.Errorf("%w: expected %d values, got %d (delta header)", ErrTooFewValues, n, h.total)
	}
	if n > 1 {
		blocks := (len(src) - pos) / (1 + h.miniblocks)
		if uint64(n-1) > uint64(blocks)*uint64(h.blockSize) {
			return dst, 0, errf.Errorf("%w: %d delta values cannot fit in %d bytes", ErrTruncated, n, len(src))
		}
	}
	base := len(dst)
	dst = slices.Grow(dst, n)[:base+n]
	out := dst[base:]
	got := 0
	if n > 0 {
		out[0] = T(h.first)
		got = 1
	}
	last := uint64(h.first)
	remaining := uint64(0)
	if h.total > 0 {
		remaining = h.total - 1
	}
	var buf [72]byte
	for remaining > 0 {
		minDelta, p, err := zigzag(src, pos)
		if err != nil {
			return dst[:base], 0, errf.Errorf("delta min delta: %w", err)
		}
		pos = p
		if h.miniblocks > len(src)-pos {
			return dst[:base], 0, errf.Errorf("%w: delta bit widths at offset %d", ErrTruncated, pos)
		}
		widths := src[pos : pos+h.miniblocks]
		pos += h.miniblocks
		md := uint64(minDelta)
		for _, w := range widths {
			if remaining == 0 {
				break
			}
			if w > 64 {
				return dst[:base], 0, errf.Errorf("%w: delta miniblock bit width %d at offset %d", ErrBitWidth, w, pos)
			}
			bw := int(w)
			nbytes := h.perMini / 8 * bw
			if nbytes > len(src)-pos {
				return dst[:base], 0, errf.Errorf("%w: delta miniblock of %d bytes at offset %d", ErrTruncated, nbytes, pos)
			}
			cnt := h.perMini
			if uint64(cnt) > remaining {
				cnt = int(remaining)
			}
			remaining -= uint64(cnt)
			if got < n {
				take := min(cnt, n-got)
				vals := out[got : got+take]
				if bw == 0 {
					for i := range vals {
						last += md
						vals[i] = T(last)
					}
				} else {
					ubw := uint(bw)
					i, off := 0, pos
					// Whole groups with the kernel's 8-byte over-read inside src.
					for ; i+8 <= take && off+bw+8 <= len(src); i, off = i+8, off+bw {
						last = deltaGroup8(vals[i:i+8], src[off:], ubw, md, last)
					}
					// The rest (near the end of src, or a final partial group): the miniblock
					// body is all present (checked above), so a zero-padded copy is exact.
					for ; i < take; i, off = i+8, off+bw {
						var g [8]uint64
						unpack8x64(&g, padded(&buf, src[:pos+nbytes], off), ubw)
						for j := range vals[i:min(i+8, take)] {
							last += md + g[j]
							vals[i+j] = T(last)
						}
					}
				}
				got += take
			}
			pos += nbytes
		}
	}
	return dst, pos, nil
}
