package encoding

import (
	"math"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
)

// DELTA_LENGTH_BYTE_ARRAY (parquet-format Encodings.md, "Delta-length byte array
// (DELTA_LENGTH_BYTE_ARRAY = 6)"): the lengths as DELTA_BINARY_PACKED, then all the bytes
// concatenated. DELTA_BYTE_ARRAY ("Delta Strings (DELTA_BYTE_ARRAY = 7)"): the prefix lengths
// as DELTA_BINARY_PACKED, then the suffixes as DELTA_LENGTH_BYTE_ARRAY; value i is the first
// prefix[i] bytes of value i-1 followed by suffix i.
//
// Both decode into Arrow offsets + data with PlainByteArray's contract: the offsets continue
// from the last existing one, which must equal len(data) (an empty offsets slice gets
// int32(len(data)) first), and on error both slices come back at their original lengths. The
// lengths are decoded into the spare capacity of offsets and turned into offsets in place, so
// no scratch memory is allocated.

// DeltaLengthByteArray appends n DELTA_LENGTH_BYTE_ARRAY values from src to offsets and data
// and returns them with the bytes used. Lengths must be non-negative and their sum must fit in
// what follows them in src; the data is then appended with one copy.
func DeltaLengthByteArray(offsets []int32, data []byte, src []byte, n int) ([]int32, []byte, int, error) {
	origOff := len(offsets)
	offsets, last, err := startOffsets(offsets, data, n)
	if err != nil {
		return offsets, data, 0, err
	}
	base := len(offsets)
	offsets, k, err := DeltaInt32(offsets, src, n)
	if err != nil {
		return offsets[:origOff], data, 0, errf.Errorf("delta-length byte array lengths: %w", err)
	}
	out := offsets[base:]
	avail := int64(len(src) - k)
	off, total := int64(last), int64(0)
	for i, l := range out {
		if l < 0 {
			return offsets[:origOff], data, 0, errf.Errorf("%w: value %d has length %d", ErrLength, i, l)
		}
		total += int64(l)
		if total > avail {
			return offsets[:origOff], data, 0, errf.Errorf("%w: lengths up to value %d need %d bytes, %d left", ErrLength, i, total, avail)
		}
		off += int64(l)
		if off > math.MaxInt32 {
			return offsets[:origOff], data, 0, errf.Errorf("%w: byte array data exceeds int32 offsets at value %d", ErrTooLarge, i)
		}
		out[i] = int32(off)
	}
	data = append(data, src[k:k+int(total)]...)
	return offsets, data, k + int(total), nil
}

// DeltaByteArray appends n DELTA_BYTE_ARRAY values from src to offsets and data and returns
// them with the bytes used. Prefixes refer only to values of this call (the first prefix must
// be 0), and a prefix longer than the previous value is ErrPrefix.
//
// Shared prefixes make the output larger than the input (n copies of one long value cost a few
// bytes each), so maxData bounds the bytes this call may append to data; it is checked, with
// every prefix and suffix length, before data grows. Exceeding it is ErrTooLarge.
func DeltaByteArray(offsets []int32, data []byte, src []byte, n, maxData int) ([]int32, []byte, int, error) {
	origOff := len(offsets)
	offsets, last, err := startOffsets(offsets, data, n)
	if err != nil {
		return offsets, data, 0, err
	}
	base := len(offsets)
	// offsets[base:base+n] = prefix lengths, offsets[base+n:base+2n] = suffix lengths.
	offsets, k1, err := DeltaInt32(offsets, src, n)
	if err != nil {
		return offsets[:origOff], data, 0, errf.Errorf("delta byte array prefix lengths: %w", err)
	}
	offsets, k2, err := DeltaInt32(offsets, src[k1:], n)
	if err != nil {
		return offsets[:origOff], data, 0, errf.Errorf("delta byte array suffix lengths: %w", err)
	}
	prefixes, suffixes := offsets[base:base+n], offsets[base+n:base+2*n]
	sp := k1 + k2 // suffix bytes start here
	avail := int64(len(src) - sp)
	limit := min(int64(maxData), math.MaxInt32-int64(last))
	// Pass 1: validate every length and the output size before data grows.
	prev, total, sufTotal := int64(0), int64(0), int64(0)
	for i := range prefixes {
		p, s := int64(prefixes[i]), int64(suffixes[i])
		if p < 0 || s < 0 {
			return offsets[:origOff], data, 0, errf.Errorf("%w: value %d has prefix %d, suffix %d", ErrLength, i, p, s)
		}
		if p > prev {
			return offsets[:origOff], data, 0, errf.Errorf("%w: value %d has prefix %d, previous value %d bytes", ErrPrefix, i, p, prev)
		}
		sufTotal += s
		if sufTotal > avail {
			return offsets[:origOff], data, 0, errf.Errorf("%w: suffixes up to value %d need %d bytes, %d left", ErrLength, i, sufTotal, avail)
		}
		prev = p + s
		total += prev
		if total > limit {
			return offsets[:origOff], data, 0, errf.Errorf("%w: delta byte array output exceeds %d bytes at value %d", ErrTooLarge, limit, i)
		}
	}
	// Pass 2: assemble the values; offsets[base+i] is overwritten only after prefix i is read,
	// and the suffix lengths live past base+n until the final truncation.
	d0 := len(data)
	data = slices.Grow(data, int(total))[:d0+int(total)]
	dpos, prevStart := d0, d0
	for i := range prefixes {
		p, s := int(prefixes[i]), int(suffixes[i])
		start := dpos
		dpos += copy(data[dpos:], data[prevStart:prevStart+p])
		dpos += copy(data[dpos:], src[sp:sp+s])
		sp += s
		prevStart = start
		prefixes[i] = int32(int(last) + dpos - d0)
	}
	return offsets[:base+n], data, sp, nil
}
