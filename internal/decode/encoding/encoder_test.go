package encoding

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// A small, deliberately naive test-only encoder (bit at a time, no shortcuts), so that the
// round-trip tests compare the fast decoders against independent code.

// bitWriter appends values LSB first, as both the hybrid's bit-packed runs and the delta
// miniblocks lay them out.
type bitWriter struct {
	buf  []byte
	nbit int
}

func (w *bitWriter) put(v uint64, width int) {
	for i := 0; i < width; i++ {
		if w.nbit%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		if v>>i&1 == 1 {
			w.buf[len(w.buf)-1] |= 1 << (w.nbit % 8)
		}
		w.nbit++
	}
}

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }
func appendZigzag(b []byte, v int64) []byte   { return binary.AppendVarint(b, v) }

// encodeHybrid encodes values with the RLE/bit-packed hybrid, choosing runs at random: RLE
// runs for repeats (and sometimes for single values), bit-packed runs otherwise, with the final
// bit-packed group padded with zeros as writers do.
func encodeHybrid(r *rand.Rand, values []uint64, width int) []byte {
	var out []byte
	vb := (width + 7) / 8
	i := 0
	for i < len(values) {
		j := i
		for j < len(values) && values[j] == values[i] {
			j++
		}
		if j-i >= 8 || r.IntN(4) == 0 {
			out = appendUvarint(out, uint64(j-i)<<1)
			for k := 0; k < vb; k++ {
				out = append(out, byte(values[i]>>(8*k)))
			}
			i = j
			continue
		}
		groups := 1 + r.IntN(4)
		end := min(i+groups*8, len(values))
		groups = (end - i + 7) / 8
		out = appendUvarint(out, uint64(groups)<<1|1)
		var w bitWriter
		for k := 0; k < groups*8; k++ {
			var v uint64
			if i+k < end {
				v = values[i+k]
			}
			w.put(v, width)
		}
		out = append(out, w.buf...)
		i = end
	}
	return out
}

// encodeDelta encodes values with DELTA_BINARY_PACKED using the given block size and
// miniblock count, computing deltas with wrapping arithmetic in the width of the type
// (32 for int32 columns), and padding the last miniblock with zero bits.
func encodeDelta(values []int64, blockSize, miniblocks int, is32 bool) []byte {
	var out []byte
	out = appendUvarint(out, uint64(blockSize))
	out = appendUvarint(out, uint64(miniblocks))
	out = appendUvarint(out, uint64(len(values)))
	first := int64(0)
	if len(values) > 0 {
		first = values[0]
	}
	out = appendZigzag(out, first)
	per := blockSize / miniblocks
	deltas := make([]int64, 0, len(values))
	for i := 1; i < len(values); i++ {
		d := values[i] - values[i-1]
		if is32 {
			d = int64(int32(values[i]) - int32(values[i-1]))
		}
		deltas = append(deltas, d)
	}
	for b := 0; b < len(deltas); b += blockSize {
		block := deltas[b:min(b+blockSize, len(deltas))]
		minD := block[0]
		for _, d := range block {
			minD = min(minD, d)
		}
		out = appendZigzag(out, minD)
		widths := make([]int, miniblocks)
		for m := 0; m < miniblocks; m++ {
			for _, d := range block[min(m*per, len(block)):min((m+1)*per, len(block))] {
				u := uint64(d) - uint64(minD)
				if is32 {
					u = uint64(uint32(u))
				}
				widths[m] = max(widths[m], bits.Len64(u))
			}
			out = append(out, byte(widths[m]))
		}
		for m := 0; m < miniblocks && m*per < len(block); m++ {
			var w bitWriter
			for k := 0; k < per; k++ {
				var u uint64
				if m*per+k < len(block) {
					u = uint64(block[m*per+k]) - uint64(minD)
					if is32 {
						u = uint64(uint32(u))
					}
				}
				w.put(u, widths[m])
			}
			out = append(out, w.buf...)
		}
	}
	return out
}

// encodeDeltaLength encodes byte arrays with DELTA_LENGTH_BYTE_ARRAY.
func encodeDeltaLength(values [][]byte) []byte {
	lens := make([]int64, len(values))
	for i, v := range values {
		lens[i] = int64(len(v))
	}
	out := encodeDelta(lens, 128, 4, true)
	for _, v := range values {
		out = append(out, v...)
	}
	return out
}

// encodeDeltaByteArray encodes byte arrays with DELTA_BYTE_ARRAY (incremental encoding).
func encodeDeltaByteArray(values [][]byte) []byte {
	prefixes := make([]int64, len(values))
	suffixes := make([][]byte, len(values))
	var prev []byte
	for i, v := range values {
		p := 0
		for p < len(v) && p < len(prev) && v[p] == prev[p] {
			p++
		}
		prefixes[i] = int64(p)
		suffixes[i] = v[p:]
		prev = v
	}
	return append(encodeDelta(prefixes, 128, 4, true), encodeDeltaLength(suffixes)...)
}

// encodeBSS encodes n values of width bytes (concatenated in src) with BYTE_STREAM_SPLIT.
func encodeBSS(src []byte, width int) []byte {
	n := len(src) / width
	out := make([]byte, len(src))
	for i := 0; i < n; i++ {
		for k := 0; k < width; k++ {
			out[k*n+i] = src[i*width+k]
		}
	}
	return out
}

// encodePlainByteArray encodes byte arrays with PLAIN.
func encodePlainByteArray(values [][]byte) []byte {
	var out []byte
	for _, v := range values {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(v)))
		out = append(out, v...)
	}
	return out
}
