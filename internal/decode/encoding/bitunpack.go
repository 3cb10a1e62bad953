package encoding

import (
	"encoding/binary"
	"unsafe"
)

// Bit unpacking for the bit-packed runs of the RLE/bit-packed hybrid and for
// DELTA_BINARY_PACKED miniblocks (parquet-format Encodings.md, "Bit-packed" with the values
// packed from the least significant bit of each byte). Both pack values in groups of 8, and a
// group of 8 values of width w is exactly w bytes, so every kernel here decodes one group.
//
// Speed: each group is decoded with unaligned 64-bit little-endian loads (one i64.load in
// wasm) and shifts, with the loop over the 8 values unrolled, instead of a bit-at-a-time reader.
// The fast kernels read up to 8 bytes past the group; callers use them only while
// len(src) >= off+width+8 and fall back to a zero-padded stack copy for the last groups.

// padded copies the group at src[off:] (possibly short) into a zeroed buffer big enough for
// the fast kernels, so the tail of a page is decoded by the same code as the body.
func padded(buf *[72]byte, src []byte, off int) []byte {
	*buf = [72]byte{}
	if off < len(src) {
		copy(buf[:], src[off:])
	}
	return buf[:]
}

// unpack8x32 decodes 8 values of bw bits (1 <= bw <= 32) from src (len(src) >= bw+8) into dst.
func unpack8x32[T int16 | int32](dst []T, src []byte, bw uint) {
	unpackGroups(dst[:8], src[:bw+8], 0, bw)
}

// unpackGroups decodes whole groups of 8 values of bw bits (1 <= bw <= 32) from src[off:]
// into dst while a group's fast over-read stays inside src (off+bw+8 <= len(src)), and returns
// the values decoded and the offset reached. The width is switched on once per call, not per
// group, and the groups are decoded inside the loop: Go's wasm code pays for every call and
// every loop back-edge (in wazero the call per group of 8 was the largest cost of a `value`
// scan after the dictionary gather).
func unpackGroups[T int16 | int32](dst []T, src []byte, off int, bw uint) (int, int) {
	mask := uint64(1)<<bw - 1
	n := int(bw)
	i := 0
	if len(src) == 0 {
		return 0, off
	}
	// The loop conditions keep every 8-byte load inside src (off+n+8 <= len(src), and each
	// load starts at most n bytes past off), which Go's compiler cannot prove from the
	// width-dependent offsets: ld loads through unsafe.Add without the bounds checks of each
	// src[x:] and its Uint64. BenchmarkDictIndices (10 bits) in node, fastest of 5, two
	// rounds: fits 87–132 → 69–83 µs, checked 146–160 → 98–147 µs. The load
	// may be unaligned: wasm's i64.load and amd64's MOVQ take any address, and checkptr
	// accepts unaligned pointers to pointer-free types. (Through unsafe.Slice it was 2–3×
	// slower in V8: that call checks its arguments at run time.)
	sp := unsafe.Pointer(unsafe.SliceData(src))
	ld := func(at int) uint64 {
		return *(*uint64)(unsafe.Add(sp, at))
	}
	switch {
	case bw <= 8: // 8 values in one 64-bit word
		for ; i+8 <= len(dst) && off+n+8 <= len(src); i, off = i+8, off+n {
			d := dst[i : i+8 : i+8]
			w := ld(off)
			d[0] = T(w & mask)
			d[1] = T(w >> bw & mask)
			d[2] = T(w >> (2 * bw) & mask)
			d[3] = T(w >> (3 * bw) & mask)
			d[4] = T(w >> (4 * bw) & mask)
			d[5] = T(w >> (5 * bw) & mask)
			d[6] = T(w >> (6 * bw) & mask)
			d[7] = T(w >> (7 * bw) & mask)
		}
	case bw <= 16: // 4 values per word: 4*bw <= 64, and the second word starts at bit 0 or 4
		h, sh := int(bw>>1), (bw&1)*4
		for ; i+8 <= len(dst) && off+n+8 <= len(src); i, off = i+8, off+n {
			d := dst[i : i+8 : i+8]
			w := ld(off)
			d[0] = T(w & mask)
			d[1] = T(w >> bw & mask)
			d[2] = T(w >> (2 * bw) & mask)
			d[3] = T(w >> (3 * bw) & mask)
			w = ld(off+h) >> sh
			d[4] = T(w & mask)
			d[5] = T(w >> bw & mask)
			d[6] = T(w >> (2 * bw) & mask)
			d[7] = T(w >> (3 * bw) & mask)
		}
	default: // one load per value: shift <= 7, so 32+7 bits fit in the word
		for ; i+8 <= len(dst) && off+n+8 <= len(src); i, off = i+8, off+n {
			d := dst[i : i+8 : i+8]
			d[0] = T(ld(off) & mask)
			b := bw
			d[1] = T(ld(off+int(b>>3)) >> (b & 7) & mask)
			b += bw
			d[2] = T(ld(off+int(b>>3)) >> (b & 7) & mask)
			b += bw
			d[3] = T(ld(off+int(b>>3)) >> (b & 7) & mask)
			b += bw
			d[4] = T(ld(off+int(b>>3)) >> (b & 7) & mask)
			b += bw
			d[5] = T(ld(off+int(b>>3)) >> (b & 7) & mask)
			b += bw
			d[6] = T(ld(off+int(b>>3)) >> (b & 7) & mask)
			b += bw
			d[7] = T(ld(off+int(b>>3)) >> (b & 7) & mask)
		}
	}
	return i, off
}

// unpackRun decodes len(dst) values of bw bits (1..32) packed from src[start:], where the run
// ends at src[end] (end <= len(src)). The run may be shorter than the values need (a truncated
// final run): missing bits read as zero, and the caller has already limited len(dst) to what
// the run holds. Bytes past end are read only as the fast kernel's over-read, never decoded.
func unpackRun[T int16 | int32](dst []T, src []byte, start, end, bw int) {
	ubw := uint(bw)
	i, off := unpackGroups(dst, src, start, ubw)
	if i == len(dst) {
		return
	}
	var buf [72]byte
	run := src[:end]
	for ; i+8 <= len(dst); i, off = i+8, off+bw {
		unpack8x32(dst[i:i+8], padded(&buf, run, off), ubw)
	}
	if i < len(dst) {
		var tmp [8]T
		unpack8x32(tmp[:], padded(&buf, run, off), ubw)
		copy(dst[i:], tmp[:])
	}
}

// unpack8x64 decodes 8 values of bw bits (1 <= bw <= 64) from src (len(src) >= bw+8).
func unpack8x64(dst *[8]uint64, src []byte, bw uint) {
	_ = src[bw+7]
	mask := ^uint64(0) >> (64 - bw)
	if bw <= 56 { // shift <= 7 and bw <= 56: one load per value
		b := uint(0)
		for j := range dst {
			dst[j] = binary.LittleEndian.Uint64(src[b>>3:]) >> (b & 7) & mask
			b += bw
		}
		return
	}
	b := uint(0)
	for j := range dst {
		s := b & 7
		v := binary.LittleEndian.Uint64(src[b>>3:]) >> s
		if s != 0 {
			v |= uint64(src[b>>3+8]) << (64 - s)
		}
		dst[j] = v & mask
		b += bw
	}
}

// deltaGroup8 is unpack8x64 fused with the delta prefix sum: it decodes 8 deltas of bw bits
// (1 <= bw <= 64) from src (len(src) >= bw+8), adds minDelta to each, accumulates them onto
// last with wrapping arithmetic, stores the 8 running values in out and returns the last one.
// Fusing saves a store and reload of every delta; the width cases mirror unpack8x32.
func deltaGroup8[T int32 | int64](out []T, src []byte, bw uint, md, last uint64) uint64 {
	_ = out[7]
	_ = src[bw+7]
	if bw > 56 {
		var g [8]uint64
		unpack8x64(&g, src, bw)
		for j := range g {
			last += md + g[j]
			out[j] = T(last)
		}
		return last
	}
	mask := ^uint64(0) >> (64 - bw)
	if bw <= 8 {
		w := binary.LittleEndian.Uint64(src)
		last += md + w&mask
		out[0] = T(last)
		last += md + w>>bw&mask
		out[1] = T(last)
		last += md + w>>(2*bw)&mask
		out[2] = T(last)
		last += md + w>>(3*bw)&mask
		out[3] = T(last)
		last += md + w>>(4*bw)&mask
		out[4] = T(last)
		last += md + w>>(5*bw)&mask
		out[5] = T(last)
		last += md + w>>(6*bw)&mask
		out[6] = T(last)
		last += md + w>>(7*bw)&mask
		out[7] = T(last)
		return last
	}
	b := uint(0)
	for j := 0; j < 8; j++ {
		last += md + binary.LittleEndian.Uint64(src[b>>3:])>>(b&7)&mask
		out[j] = T(last)
		b += bw
	}
	return last
}
