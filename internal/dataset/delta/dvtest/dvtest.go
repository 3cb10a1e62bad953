// Package dvtest writes Delta deletion vectors for tests: the bitmap in its portable
// serialization, the Z85 text of inline vectors and "u" paths, and deletion vector files. Only
// tests import it; the writer is plain (array and bitset containers, no runs) so that it is
// independent of the reader it checks.
package dvtest

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
)

const magic = 1681511377

// Bitmap is the magic and the RoaringBitmapArray of vals (any order, no repeats) as Delta
// stores it: what sizeInBytes counts.
func Bitmap(vals []uint64) []byte {
	vals = slices.Sorted(slices.Values(vals))
	out := binary.LittleEndian.AppendUint32(nil, magic)
	var keys []uint32
	groups := map[uint32][]uint32{}
	for _, v := range vals {
		k := uint32(v >> 32)
		if len(groups[k]) == 0 {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], uint32(v))
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(len(keys)))
	for _, k := range keys {
		out = binary.LittleEndian.AppendUint32(out, k)
		out = bitmap32(out, groups[k])
	}
	return out
}

// bitmap32 appends the portable serialization (no run containers) of sorted vals.
func bitmap32(out []byte, vals []uint32) []byte {
	var hs []uint16
	lows := map[uint16][]uint16{}
	for _, v := range vals {
		h := uint16(v >> 16)
		if len(lows[h]) == 0 {
			hs = append(hs, h)
		}
		lows[h] = append(lows[h], uint16(v))
	}
	out = binary.LittleEndian.AppendUint32(out, 12346)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(hs)))
	for _, h := range hs {
		out = binary.LittleEndian.AppendUint16(out, h)
		out = binary.LittleEndian.AppendUint16(out, uint16(len(lows[h])-1))
	}
	at := uint32(len(out) + 4*len(hs)) // offsets count from the cookie in the spec; unused by readers
	for _, h := range hs {
		out = binary.LittleEndian.AppendUint32(out, at)
		at += uint32(size(len(lows[h])))
	}
	for _, h := range hs {
		ls := lows[h]
		if len(ls) <= 4096 {
			for _, l := range ls {
				out = binary.LittleEndian.AppendUint16(out, l)
			}
			continue
		}
		var words [1024]uint64
		for _, l := range ls {
			words[l/64] |= 1 << (l % 64)
		}
		for _, w := range words {
			out = binary.LittleEndian.AppendUint64(out, w)
		}
	}
	return out
}

func size(card int) int {
	if card <= 4096 {
		return 2 * card
	}
	return 8192
}

// File is a deletion vector file holding the bitmaps, and each one's offset.
func File(bitmaps ...[]byte) ([]byte, []int32) {
	out := []byte{1}
	var offs []int32
	for _, b := range bitmaps {
		offs = append(offs, int32(len(out)))
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
		out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(b))
	}
	return out, offs
}

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

// Z85 encodes b, zero-padded to a multiple of 4 bytes as Delta's writers do.
func Z85(b []byte) string {
	b = append(slices.Clone(b), make([]byte, (4-len(b)%4)%4)...)
	var out []byte
	for i := 0; i < len(b); i += 4 {
		v := binary.BigEndian.Uint32(b[i:])
		var g [5]byte
		for k := 4; k >= 0; k-- {
			g[k] = alphabet[v%85]
			v /= 85
		}
		out = append(out, g[:]...)
	}
	return string(out)
}
