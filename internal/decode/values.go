package decode

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/pqscan/pqscan/internal/decode/encoding"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/errf"
)

// Values holds N non-null values of one leaf in Arrow layout: fixed-width bytes, a bitmap
// (BOOLEAN) or offsets + data (strings and binary).
type Values struct {
	N       int
	Width   int // fixed width in bytes; 0 = variable, -1 = bits
	Fixed   []byte
	Bits    []byte
	Offsets []int32 // N+1 entries when Width == 0
	Data    []byte
	// own is Fixed's own buffer while Fixed borrows a page's bytes (borrow).
	own      []byte
	borrowed bool
}

// borrow makes Fixed the n values of width w at the start of b, without copying them: a data
// page's PLAIN values read where the decompressed page holds them, valid until that buffer
// is reused (the next page); the column reader copies them into its batch before. Fixed's
// capacity ends at the values, so nothing appended can write into b.
func (v *Values) borrow(b []byte, n, w int) {
	if !v.borrowed {
		v.own, v.borrowed = v.Fixed[:0], true
	}
	v.Fixed, v.N, v.Width = b[:n*w:n*w], n, w
}

func (v *Values) reset(width int) {
	v.N, v.Width = 0, width
	if v.borrowed {
		v.Fixed, v.own, v.borrowed = v.own, nil, false
	}
	v.Fixed = v.Fixed[:0]
	v.Bits = v.Bits[:0]
	v.Data = v.Data[:0]
	v.Offsets = append(v.Offsets[:0], 0)
}

// Bytes returns the approximate memory held by the values.
func (v *Values) Bytes() int64 {
	return int64(len(v.Fixed) + len(v.Bits) + 4*len(v.Offsets) + len(v.Data))
}

// appendRange appends values [from, from+k) of src to v (same layout).
func (v *Values) appendRange(src *Values, from, k int) error {
	if k == 0 {
		return nil
	}
	if from < 0 || from+k > src.N {
		return errf.Errorf("%w: levels announce more values than the page holds", ErrLevels)
	}
	switch {
	case src.Width > 0:
		w := src.Width
		v.Fixed = append(v.Fixed, src.Fixed[from*w:(from+k)*w]...)
	case src.Width < 0:
		for i := 0; i < k; i++ {
			setBit(&v.Bits, v.N+i, getBit(src.Bits, from+i))
		}
	default:
		base := v.Offsets[len(v.Offsets)-1]
		lo, hi := src.Offsets[from], src.Offsets[from+k]
		if int64(base)+int64(hi-lo) > 1<<31-1 {
			return errf.Errorf("%w: more than 2 GiB of string data in one batch", ErrMemory)
		}
		v.Data = append(v.Data, src.Data[lo:hi]...)
		for i := from + 1; i <= from+k; i++ {
			v.Offsets = append(v.Offsets, base+src.Offsets[i]-lo)
		}
	}
	v.N += k
	return nil
}

// gather appends dict[idx[i]] for each index (indices already validated against dict.N).
func (v *Values) gather(dict *Values, idx []int32) error {
	switch {
	case dict.Width > 0:
		if (dict.Width == 4 || dict.Width == 8) && len(dict.Fixed) < dict.N*dict.Width {
			// gatherFixed reads without bounds checks: the indices were checked against N.
			return errf.Errorf("%w: dictionary of %d values holds %d bytes", ErrPage, dict.N, len(dict.Fixed))
		}
		// Grow once and copy with typed loads for the common widths: a per-value append is a
		// runtime call, which costs far more in wasm than natively.
		w := dict.Width
		start := len(v.Fixed)
		v.Fixed = slices.Grow(v.Fixed, len(idx)*w)[:start+len(idx)*w]
		out := v.Fixed[start:]
		switch w {
		case 4:
			gatherFixed(asUint32(out), asUint32(dict.Fixed), idx)
		case 8:
			gatherFixed(asUint64(out), asUint64(dict.Fixed), idx)
		default:
			for k, i := range idx {
				copy(out[k*w:(k+1)*w], dict.Fixed[int(i)*w:])
			}
		}
	case dict.Width < 0:
		for k, i := range idx {
			setBit(&v.Bits, v.N+k, getBit(dict.Bits, int(i)))
		}
	default:
		base := int64(v.Offsets[len(v.Offsets)-1])
		total := base
		for _, i := range idx {
			total += int64(dict.Offsets[i+1] - dict.Offsets[i])
		}
		if total > 1<<31-1 {
			return errf.Errorf("%w: more than 2 GiB of string data in one batch", ErrMemory)
		}
		nd, no := len(v.Data), len(v.Offsets)
		v.Data = slices.Grow(v.Data, int(total-base))[:nd+int(total-base)]
		v.Offsets = slices.Grow(v.Offsets, len(idx))[:no+len(idx)]
		gatherBytes(v.Data[nd:], v.Offsets[no:], int32(nd), dict, idx)
	}
	v.N += len(idx)
	return nil
}

// gatherFixed sets o[k] = d[idx[k]] for every k (len(o) == len(idx)). The caller guarantees
// 0 <= idx[k] < len(d) for every k (gather: the decoders checked the indices against the
// dictionary's N, and gather checks that d holds N values), so the loads of d go through
// unsafe.Add without a bounds check each: those eight compares and branches per eight values
// were a fifth of the loop in V8 (BenchmarkGather8 in node 76–84 → 58–69 µs, natively 47 → 33
// µs). Eight values per iteration through fixed-length subslices of o and idx: one
// bounds check of each per eight values, and an eighth of the loop back-edges, each of which
// Go's wasm code takes through its block dispatch. In the V8 profile of a `value` scan this
// loop was the largest single cost (13–17%).
func gatherFixed[T uint32 | uint64](o, d []T, idx []int32) {
	o = o[:len(idx)]
	if len(d) == 0 {
		return // no index can be valid: idx is empty
	}
	base := unsafe.Pointer(unsafe.SliceData(d))
	sz := unsafe.Sizeof(T(0))
	at := func(i int32) T { return *(*T)(unsafe.Add(base, uintptr(uint32(i))*sz)) }
	k := 0
	for ; k+8 <= len(idx); k += 8 {
		q := idx[k : k+8 : k+8]
		p := o[k : k+8 : k+8]
		p[0], p[1], p[2], p[3] = at(q[0]), at(q[1]), at(q[2]), at(q[3])
		p[4], p[5], p[6], p[7] = at(q[4]), at(q[5]), at(q[6]), at(q[7])
	}
	for ; k < len(idx); k++ {
		o[k] = d[idx[k]]
	}
}

// gatherBytes writes the byte strings dict[idx[k]] one after the other into data (exactly
// their total length) and each one's end, base plus its end in data, into offs[k]. Strings of
// at most 16 bytes (dictionary-encoded columns are mostly short: event types, codes, names)
// are copied by one or two 8-byte loads and stores instead of a call to memmove: in Go's wasm
// code a call costs more than such a copy. Per-value appends would be 8% of a full events scan
// in V8 (Values.gather and its memmove; this is 6%); BenchmarkGatherBytes in node
// 3.7–4.4 ms → 1.1–1.9 ms, natively 1.4–1.6 → 1.1–1.3 ms. Longer strings use copy. Each
// 8-byte store may run past its string, never past data, and the next strings overwrite it.
func gatherBytes(data []byte, offs []int32, base int32, dict *Values, idx []int32) {
	offs = offs[:len(idx)]
	pos := 0
	for k, i := range idx {
		lo, hi := int(dict.Offsets[i]), int(dict.Offsets[i+1])
		n := hi - lo
		switch {
		case uint(n) <= 8 && lo+8 <= len(dict.Data) && pos+8 <= len(data):
			binary.LittleEndian.PutUint64(data[pos:], binary.LittleEndian.Uint64(dict.Data[lo:]))
		case uint(n) <= 16 && lo+16 <= len(dict.Data) && pos+16 <= len(data):
			binary.LittleEndian.PutUint64(data[pos:], binary.LittleEndian.Uint64(dict.Data[lo:]))
			binary.LittleEndian.PutUint64(data[pos+8:], binary.LittleEndian.Uint64(dict.Data[lo+8:]))
		default:
			copy(data[pos:pos+n], dict.Data[lo:hi])
		}
		pos += n
		offs[k] = base + int32(pos)
	}
}

func getBit(b []byte, i int) bool { return b[i>>3]&(1<<(uint(i)&7)) != 0 }

func setBit(b *[]byte, i int, on bool) {
	for len(*b) <= i>>3 {
		*b = append(*b, 0)
	}
	if on {
		(*b)[i>>3] |= 1 << (uint(i) & 7)
	} else {
		(*b)[i>>3] &^= 1 << (uint(i) & 7)
	}
}

// asUint32 and asUint64 view little-endian value bytes as integers (wasm, amd64 and arm64
// are little-endian and allow unaligned access; the byte slices come from append and are
// aligned anyway).
func asUint32(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

func asUint64(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

// A data page's values: each encoding decoded into physical layout (PLAIN, dictionary
// indices, the delta and byte-stream-split encodings of internal/decode/encoding), then
// converted to the column's Arrow layout.

// decodeValues decodes n non-null values of the page's encoding into out (Arrow layout), or
// with spans only the values at those positions (select.go).
func (d *pageDecoder) decodeValues(out *Values, enc format.Encoding, src []byte, n int, spans []encoding.Span) error {
	if d.keepIndices {
		out.reset(4)
	} else {
		out.reset(d.conv.OutWidth)
	}
	if d.conv.kind == convNull {
		return nil
	}
	switch enc {
	case format.PlainDictionary, format.RLEDictionary:
		if d.dict == nil {
			return d.errf(ErrPage, "dictionary-encoded page without a dictionary page")
		}
		var err error
		if spans == nil {
			d.idx, err = encoding.DictIndices(d.idx[:0], src, n, d.dict.N)
		} else {
			d.idx, err = encoding.DictIndicesSpans(d.idx[:0], src, n, d.dict.N, spans)
		}
		if err != nil {
			return d.errf(ErrPage, "dictionary indices: %v", err)
		}
		return d.fromIndices(out)
	}
	if d.keepIndices {
		return d.errf(ErrUnsupported, "%v page in a column read as an Arrow dictionary", enc)
	}
	phys := &d.phys
	if spans != nil {
		return d.physicalSpans(out, phys, enc, src, n, spans)
	}
	if w := d.conv.PhysWidth(); d.convertCopies(w) {
		// The page's values are already in Arrow layout: decoded straight into out, and
		// PLAIN fixed-width ones not copied at all until the batch takes them (a full scan of
		// a DOUBLE column is that many bytes per copy).
		if enc == format.Plain && w > 0 {
			if int64(n)*int64(w) > int64(len(src)) {
				return d.errf(ErrPage, "%d PLAIN values of %d bytes need more than the %d bytes present", n, w, len(src))
			}
			out.borrow(src, n, w)
			return nil
		}
		return d.decodePhysical(out, enc, src, n)
	}
	if err := d.decodePhysical(phys, enc, src, n); err != nil {
		return err
	}
	return d.convert(out, phys)
}

// fromIndices turns the dictionary indices in d.idx into out: the indices themselves for
// an Arrow dictionary column, else the dictionary's values gathered.
func (d *pageDecoder) fromIndices(out *Values) error {
	n := len(d.idx)
	if d.keepIndices {
		for _, i := range d.idx {
			out.Fixed = binary.LittleEndian.AppendUint32(out.Fixed, uint32(i))
		}
		out.N = n
		return nil
	}
	// RLE indices repeat dictionary values without bound: a few bytes can ask for a
	// large value millions of times, so the gathered size is checked first.
	size := int64(len(d.idx)) * int64(max(d.dict.Width, 0))
	if d.dict.Width == 0 {
		for _, i := range d.idx {
			size += int64(d.dict.Offsets[i+1] - d.dict.Offsets[i])
		}
	}
	if size > int64(d.memCap) {
		return d.errf(ErrMemory, "%d dictionary-encoded values expand to %d bytes, more than the memory cap of %d", len(d.idx), size, d.memCap)
	}
	return out.gather(d.dict, d.idx)
}

// decodePhysical decodes n values of a non-dictionary encoding in physical layout.
func (d *pageDecoder) decodePhysical(v *Values, enc format.Encoding, src []byte, n int) error {
	w := d.conv.PhysWidth()
	v.reset(w)
	var err error
	switch enc {
	case format.Plain:
		return d.decodePlain(v, src, n)
	case format.RLE:
		if w != -1 {
			return d.errf(ErrUnsupported, "RLE encoding for %v values", d.conv.Physical)
		}
		v.Bits, _, err = encoding.RLEBool(v.Bits, 0, src, n)
	case format.DeltaBinaryPacked:
		switch d.conv.Physical {
		case format.Int32:
			if d.i32, _, err = encoding.DeltaInt32(d.i32[:0], src, n); err == nil {
				for _, x := range d.i32 {
					v.Fixed = binary.LittleEndian.AppendUint32(v.Fixed, uint32(x))
				}
			}
		case format.Int64:
			if d.i64, _, err = encoding.DeltaInt64(d.i64[:0], src, n); err == nil {
				for _, x := range d.i64 {
					v.Fixed = binary.LittleEndian.AppendUint64(v.Fixed, uint64(x))
				}
			}
		default:
			return d.errf(ErrUnsupported, "DELTA_BINARY_PACKED for %v", d.conv.Physical)
		}
	case format.DeltaLengthByteArray, format.DeltaByteArray:
		if w != 0 && d.conv.Physical != format.FixedLenByteArray {
			return d.errf(ErrUnsupported, "%v for %v", enc, d.conv.Physical)
		}
		if enc == format.DeltaLengthByteArray {
			v.Offsets, v.Data, _, err = encoding.DeltaLengthByteArray(v.Offsets, v.Data, src, n)
		} else {
			v.Offsets, v.Data, _, err = encoding.DeltaByteArray(v.Offsets, v.Data, src, n, d.memCap)
		}
		if err == nil && w > 0 {
			// FIXED_LEN_BYTE_ARRAY may use DELTA_BYTE_ARRAY: every value must have the width.
			for i := 0; i < n; i++ {
				if int(v.Offsets[i+1]-v.Offsets[i]) != w {
					return d.errf(ErrPage, "DELTA_BYTE_ARRAY value of %d bytes in a FIXED_LEN_BYTE_ARRAY(%d) column", v.Offsets[i+1]-v.Offsets[i], w)
				}
			}
			v.Fixed = append(v.Fixed, v.Data...)
		}
	case format.ByteStreamSplit:
		if w <= 0 {
			return d.errf(ErrUnsupported, "BYTE_STREAM_SPLIT for %v", d.conv.Physical)
		}
		v.Fixed, err = encoding.ByteStreamSplit(v.Fixed, src, n, w)
	case format.ALP:
		if d.conv.Physical != format.Float && d.conv.Physical != format.Double {
			return d.errf(ErrUnsupported, "ALP for %v", d.conv.Physical)
		}
		v.Fixed, err = encoding.ALP(v.Fixed, src, n, w)
	default:
		return d.errf(ErrUnsupported, "encoding %v", enc)
	}
	if err != nil {
		return d.errf(ErrPage, "%v values: %v", enc, err)
	}
	v.N = n
	return nil
}

// decodePlain decodes n PLAIN values (data pages and dictionary pages).
func (d *pageDecoder) decodePlain(v *Values, src []byte, n int) error {
	w := d.conv.PhysWidth()
	v.reset(w)
	var err error
	switch {
	case w > 0:
		if int64(n)*int64(w) > int64(len(src)) {
			return d.errf(ErrPage, "%d PLAIN values of %d bytes need more than the %d bytes present", n, w, len(src))
		}
		v.Fixed = append(v.Fixed, src[:n*w]...)
	case w < 0:
		v.Bits, _, err = encoding.PlainBool(v.Bits, 0, src, n)
	default:
		if n > len(src)/4 {
			return d.errf(ErrPage, "%d PLAIN byte arrays need more than the %d bytes present", n, len(src))
		}
		v.Offsets, v.Data, _, err = encoding.PlainByteArray(v.Offsets, v.Data, src, n)
	}
	if err != nil {
		return d.errf(ErrPage, "PLAIN values: %v", err)
	}
	v.N = n
	return nil
}

// convert maps physical values to Arrow layout.
func (d *pageDecoder) convert(out, phys *Values) error {
	out.reset(d.conv.OutWidth)
	out.N = phys.N
	var err error
	switch {
	case d.conv.kind == convNull:
		out.N = 0
	case phys.Width < 0:
		out.Bits = append(out.Bits, phys.Bits...)
	case phys.Width == 0 && d.conv.IsVar():
		out.Offsets = append(out.Offsets[:0], phys.Offsets...)
		out.Data = append(out.Data, phys.Data...)
	case phys.Width == 0:
		out.Fixed, err = d.conv.ConvertVar(out.Fixed, phys.Offsets, phys.Data, phys.N)
	default:
		out.Fixed, err = d.conv.ConvertFixed(out.Fixed, phys.Fixed, phys.N)
	}
	if err != nil {
		return errf.Errorf("column %s: %w", d.path, err)
	}
	return nil
}
