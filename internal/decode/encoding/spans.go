package encoding

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
)

// Selective decoding: late materialization inside a page. When a filter
// keeps only some rows of a page, the reader asks for the values at a few positions and the
// kernels below pass over the others without materializing them, as Impala does for runs of
// at least parquet_late_materialization_threshold filtered rows: PLAIN fixed-width values by
// offset, PLAIN byte arrays by walking their lengths, dictionary indices by RLE run count and
// by bit-packed group offset (a group of 8 values of width w is w bytes). They allocate
// nothing beyond growing dst (AllocsPerRun tests), so a caller reusing its buffers decodes a
// page's selection without allocating.

// Span is a run [From, To) of value positions in a page (counting non-null values only).
type Span struct{ From, To int }

// checkSpans validates spans against n values (sorted, disjoint, non-empty, inside [0, n))
// and returns the number of values they cover.
func checkSpans(spans []Span, n int) (int, error) {
	total, prev := 0, 0
	for _, s := range spans {
		if s.From < prev || s.To <= s.From || s.To > n {
			return 0, errf.Errorf("%w: span [%d, %d) after %d, %d values", ErrArgument, s.From, s.To, prev, n)
		}
		total += s.To - s.From
		prev = s.To
	}
	return total, nil
}

// PlainFixedSpans appends the PLAIN values of width bytes at the positions of spans (of n
// values in src) to dst. Like PlainFixed it checks first that src holds all n values; the
// values between spans are never copied.
func PlainFixedSpans(dst []byte, src []byte, n, width int, spans []Span) ([]byte, error) {
	if n < 0 || width <= 0 {
		return dst, errf.Errorf("%w: n=%d width=%d", ErrArgument, n, width)
	}
	if n > len(src)/width {
		return dst, errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, len(src)/width)
	}
	total, err := checkSpans(spans, n)
	if err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, total*width)
	for _, s := range spans {
		dst = append(dst, src[s.From*width:s.To*width]...)
	}
	return dst, nil
}

// PlainByteArraySpans appends the PLAIN BYTE_ARRAY values at the positions of spans (of n
// values in src) to Arrow offsets and data, with PlainByteArray's offsets contract. Every one
// of the n lengths is walked and checked (the values between spans are passed over by their
// length, not copied), so a page too short for n values fails as PlainByteArray does. On
// error both slices are returned at their original lengths.
func PlainByteArraySpans(offsets []int32, data []byte, src []byte, n int, spans []Span) ([]int32, []byte, error) {
	origOff, origData := len(offsets), len(data)
	offsets, last, err := startOffsets(offsets, data, n)
	if err != nil {
		return offsets, data, err
	}
	total, err := checkSpans(spans, n)
	if err != nil {
		return offsets[:origOff], data, err
	}
	offsets = slices.Grow(offsets, total)
	pos, off, si := 0, int64(last), 0
	for i := 0; i < n; i++ {
		if len(src)-pos < 4 {
			return offsets[:origOff], data[:origData], errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, i)
		}
		l := binary.LittleEndian.Uint32(src[pos:])
		pos += 4
		if uint64(l) > uint64(len(src)-pos) {
			return offsets[:origOff], data[:origData], errf.Errorf("%w: value %d has length %d at offset %d with %d bytes left",
				ErrLength, i, l, pos-4, len(src)-pos)
		}
		for si < len(spans) && spans[si].To <= i {
			si++
		}
		if si < len(spans) && spans[si].From <= i {
			off += int64(l)
			if off > math.MaxInt32 {
				return offsets[:origOff], data[:origData], errf.Errorf("%w: byte array data exceeds int32 offsets at value %d", ErrTooLarge, i)
			}
			data = append(data, src[pos:pos+int(l)]...)
			offsets = append(offsets, int32(off))
		}
		pos += int(l)
	}
	return offsets, data, nil
}

// DictIndicesSpans appends the dictionary indices at the positions of spans (of the n values
// of an RLE_DICTIONARY / PLAIN_DICTIONARY page body) to dst, with DictIndices' format. RLE
// runs are passed over by their count and bit-packed runs by their byte length, and a
// bit-packed span is unpacked from the group holding its first value: skipped values are
// neither unpacked nor checked against dictLen (they are never used), while every run header
// up to n values is read, so a page short of values fails as DictIndices does.
func DictIndicesSpans(dst []int32, src []byte, n, dictLen int, spans []Span) ([]int32, error) {
	bw, err := dictBitWidth(src, n, dictLen)
	if err != nil {
		return dst, err
	}
	total, err := checkSpans(spans, n)
	if err != nil || n == 0 {
		return dst, err
	}
	base := len(dst)
	dst = slices.Grow(dst, total)[:base+total]
	if err := hybridSpans(dst[base:], src[1:], bw, n, spans); err != nil {
		return dst[:base], err
	}
	if indicesFit(bw, dictLen) {
		return dst, nil
	}
	if i, ok := checkIndices(dst[base:], uint32(min(dictLen, 1<<32-1))); !ok {
		return dst[:base], errf.Errorf("%w: index %d at selected value %d, dictionary has %d entries",
			ErrDictIndex, uint32(dst[base+i]), i, dictLen)
	}
	return dst, nil
}

// hybridSpans decodes the values at the positions of spans (validated, covering len(out)
// values) of n hybrid-encoded values into out.
func hybridSpans(out []int32, src []byte, bitWidth, n int, spans []Span) error {
	if bitWidth == 0 {
		clear(out)
		return nil
	}
	valueBytes := (bitWidth + 7) / 8
	maxValue := uint64(1)<<bitWidth - 1
	got, pos, w, si := 0, 0, 0, 0
	for got < n {
		if pos >= len(src) {
			return errf.Errorf("%w: expected %d values, got %d", ErrTooFewValues, n, got)
		}
		h, p, err := uvarint(src, pos)
		if err != nil {
			return errf.Errorf("hybrid run header: %w", err)
		}
		pos = p
		if h&1 == 0 { // RLE run: fill the spans it overlaps
			if valueBytes > len(src)-pos {
				return errf.Errorf("%w: RLE run value at offset %d", ErrTruncated, pos)
			}
			var v uint64
			for k := valueBytes - 1; k >= 0; k-- {
				v = v<<8 | uint64(src[pos+k])
			}
			if v > maxValue {
				return errf.Errorf("%w: %d with bit width %d at offset %d", ErrRunValue, v, bitWidth, pos)
			}
			pos += valueBytes
			end := got + int(min(h>>1, uint64(n-got)))
			for si < len(spans) && spans[si].From < end {
				lo, hi := max(spans[si].From, got), min(spans[si].To, end)
				run := out[w : w+hi-lo]
				for i := range run {
					run[i] = int32(v)
				}
				w += hi - lo
				if spans[si].To > end {
					break
				}
				si++
			}
			got = end
			continue
		}
		avail := len(src) - pos
		groups := h >> 1
		var nbytes, values int
		if groups > uint64(avail/bitWidth) {
			nbytes, values = avail, avail*8/bitWidth
		} else {
			nbytes, values = int(groups)*bitWidth, int(groups)*8
		}
		end := got + min(values, n-got)
		for si < len(spans) && spans[si].From < end {
			lo, hi := max(spans[si].From, got), min(spans[si].To, end)
			unpackFrom(out[w:w+hi-lo], src, pos, pos+nbytes, bitWidth, lo-got)
			w += hi - lo
			if spans[si].To > end {
				break
			}
			si++
		}
		got = end
		pos += nbytes
	}
	return nil
}

// unpackFrom decodes len(dst) values of a bit-packed run that starts at src[start] (and ends
// at src[end]), from the run's value k on: whole groups before k are passed over by offset,
// the rest of k's group comes through a stack buffer, then unpackRun does the others.
func unpackFrom(dst []int32, src []byte, start, end, bw, k int) {
	off := start + k/8*bw
	if r := k % 8; r != 0 {
		var buf [72]byte
		var tmp [8]int32
		unpack8x32(tmp[:], padded(&buf, src[:end], off), uint(bw))
		c := copy(dst, tmp[r:])
		dst, off = dst[c:], off+bw
	}
	if len(dst) > 0 {
		unpackRun(dst, src, off, end, bw)
	}
}
