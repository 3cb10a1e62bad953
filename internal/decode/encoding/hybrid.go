package encoding

import (
	"encoding/binary"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
)

// The RLE / bit-packed hybrid (parquet-format Encodings.md, "Run Length Encoding / Bit-Packing
// Hybrid (RLE = 3)"): a sequence of runs, each starting with a ULEB128 header. An even header
// h is an RLE run of h>>1 copies of one value stored in ceil(bitWidth/8) little-endian bytes; an
// odd header is h>>1 groups of 8 bit-packed values. It carries repetition and definition levels,
// dictionary indices and RLE booleans.

// Hybrid appends n values of the hybrid encoding with the given bit width (0..32) decoded from
// src (no length prefix: the v2 level sections and the dictionary indices after their width
// byte) to dst, and returns the extended slice and the number of bytes of src the runs used.
//
// A run that goes past n values is cut at n (its bytes still count as consumed). A final
// bit-packed run whose bytes are cut short is accepted for the values it does hold, as
// parquet-mr and Arrow C++ do. Fewer than n values is an error wrapping ErrTooFewValues. Bit
// width 0 means n zeros and reads nothing. RLE run values wider than bitWidth are rejected.
//
// Because RLE runs expand (two bytes can stand for 2^31 values), n cannot be checked against
// len(src): dst grows by n up front, so the caller must bound n (by the page's value count).
// On error dst is returned at its original length.
func Hybrid(dst []int32, src []byte, bitWidth, n int) ([]int32, int, error) {
	if bitWidth < 0 || bitWidth > 32 {
		return dst, 0, errf.Errorf("%w: %d for hybrid values (max 32)", ErrBitWidth, bitWidth)
	}
	return hybrid(dst, src, bitWidth, n)
}

// HybridLevels is Hybrid for repetition and definition levels. Levels are int16 in parquet
// (max level < 2^15), so bit widths above 15 are rejected.
func HybridLevels(dst []int16, src []byte, bitWidth, n int) ([]int16, int, error) {
	if bitWidth < 0 || bitWidth > 15 {
		return dst, 0, errf.Errorf("%w: %d for levels (max 15)", ErrBitWidth, bitWidth)
	}
	return hybrid(dst, src, bitWidth, n)
}

// LengthPrefixed splits a section that starts with a 4-byte little-endian length (v1 data
// page levels, RLE booleans) and returns the section body and the bytes used including the
// prefix. The length is checked against len(src).
func LengthPrefixed(src []byte) ([]byte, int, error) {
	if len(src) < 4 {
		return nil, 0, errf.Errorf("%w: %d bytes for a 4-byte length prefix", ErrTruncated, len(src))
	}
	l := binary.LittleEndian.Uint32(src)
	if uint64(l) > uint64(len(src)-4) {
		return nil, 0, errf.Errorf("%w: length prefix %d with %d bytes left", ErrTruncated, l, len(src)-4)
	}
	return src[4 : 4+int(l)], 4 + int(l), nil
}

// DictIndices appends n dictionary indices of an RLE_DICTIONARY / PLAIN_DICTIONARY data page
// body to dst: one byte of bit width (0..32; 0 means every index is 0) followed by the hybrid
// encoding. Every index is checked to be < dictLen, so callers can index the dictionary
// without bounds checks of their own. The bytes after the runs (if any) are ignored.
func DictIndices(dst []int32, src []byte, n, dictLen int) ([]int32, error) {
	bw, err := dictBitWidth(src, n, dictLen)
	if err != nil || n == 0 {
		return dst, err
	}
	base := len(dst)
	dst, _, err = hybrid(dst, src[1:], bw, n)
	if err != nil {
		return dst, err
	}
	if indicesFit(bw, dictLen) {
		return dst, nil
	}
	if i, ok := checkIndices(dst[base:], uint32(min(dictLen, 1<<32-1))); !ok {
		return dst[:base], errf.Errorf("%w: index %d at value %d, dictionary has %d entries",
			ErrDictIndex, uint32(dst[base+i]), i, dictLen)
	}
	return dst, nil
}

// indicesFit reports whether every index of bw bits is below dictLen, so that checking the
// decoded indices one by one would find nothing: bit-packed values have at most bw bits and
// hybrid rejects RLE values wider than bw. Arrow's writers (C++, arrow-go) size a page's width
// by the dictionary as it stood when the page was written, and it keeps growing, so this holds
// for the pages written before the last doubling: on the events file's `value` column
// (dictionaries of 35,757–38,426 doubles) about 60% of the pages have 14- or 15-bit indices;
// their check was 5–6% of a V8 profile of a `value` scan.
func indicesFit(bw, dictLen int) bool {
	return bw < 32 && 1<<bw <= dictLen
}

// dictBitWidth checks the arguments of a dictionary-indices decoder and reads the bit width
// byte at the start of src (nothing is read when n is 0).
func dictBitWidth(src []byte, n, dictLen int) (int, error) {
	if n < 0 || dictLen < 0 {
		return 0, errf.Errorf("%w: n=%d dictLen=%d", ErrArgument, n, dictLen)
	}
	if n == 0 {
		return 0, nil
	}
	if len(src) == 0 {
		return 0, errf.Errorf("%w: missing dictionary index bit width", ErrTruncated)
	}
	bw := int(src[0])
	if bw > 32 {
		return 0, errf.Errorf("%w: %d for dictionary indices (max 32)", ErrBitWidth, bw)
	}
	return bw, nil
}

// checkIndices reports whether every index is below limit, else the position of the first
// that is not. Eight indices per iteration, their maximum compared once: Go's wasm code pays
// for every loop back-edge and branch (a value scan spent 4–7% of its V8 profile here); a
// failing block is searched value by value.
func checkIndices(idx []int32, limit uint32) (int, bool) {
	i := 0
	for ; i+8 <= len(idx); i += 8 {
		q := idx[i : i+8 : i+8]
		m := max(uint32(q[0]), uint32(q[1]), uint32(q[2]), uint32(q[3]),
			uint32(q[4]), uint32(q[5]), uint32(q[6]), uint32(q[7]))
		if m >= limit {
			break
		}
	}
	for ; i < len(idx); i++ {
		if uint32(idx[i]) >= limit {
			return i, false
		}
	}
	return 0, true
}

// hybrid is the shared decoder behind Hybrid, HybridLevels and DictIndices; bitWidth is
// already validated for T.
func hybrid[T int16 | int32](dst []T, src []byte, bitWidth, n int) ([]T, int, error) {
	if n < 0 {
		return dst, 0, errf.Errorf("%w: n=%d", ErrArgument, n)
	}
	base := len(dst)
	dst = slices.Grow(dst, n)[:base+n]
	out := dst[base:]
	if bitWidth == 0 {
		clear(out)
		return dst, 0, nil
	}
	valueBytes := (bitWidth + 7) / 8
	maxValue := uint64(1)<<bitWidth - 1
	got, pos := 0, 0
	for got < n {
		if pos >= len(src) {
			return dst[:base], 0, errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, got)
		}
		h, p, err := uvarint(src, pos)
		if err != nil {
			return dst[:base], 0, errf.Errorf("hybrid run header: %w", err)
		}
		pos = p
		if h&1 == 0 { // RLE run
			if valueBytes > len(src)-pos {
				return dst[:base], 0, errf.Errorf("%w: RLE run value at offset %d", ErrTruncated, pos)
			}
			var v uint64
			for k := valueBytes - 1; k >= 0; k-- {
				v = v<<8 | uint64(src[pos+k])
			}
			if v > maxValue {
				return dst[:base], 0, errf.Errorf("%w: %d with bit width %d at offset %d", ErrRunValue, v, bitWidth, pos)
			}
			pos += valueBytes
			c := h >> 1
			if c > uint64(n-got) {
				c = uint64(n - got)
			}
			run := out[got : got+int(c)]
			tv := T(v)
			for i := range run {
				run[i] = tv
			}
			got += int(c)
			continue
		}
		// Bit-packed run of h>>1 groups of 8 values, bitWidth bytes per group.
		avail := len(src) - pos
		groups := h >> 1
		var nbytes, values int
		if groups > uint64(avail/bitWidth) { // also guards groups*bitWidth against overflow
			nbytes, values = avail, avail*8/bitWidth
		} else {
			nbytes, values = int(groups)*bitWidth, int(groups)*8
		}
		take := min(values, n-got)
		unpackRun(out[got:got+take], src, pos, pos+nbytes, bitWidth)
		got += take
		pos += nbytes
	}
	return dst, pos, nil
}
