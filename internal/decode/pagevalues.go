package decode

// The values of a data page: each encoding decoded into physical layout (PLAIN, dictionary
// indices, the delta and byte-stream-split encodings of internal/decode/encoding), then
// converted to the column's Arrow layout.

import (
	"encoding/binary"

	"github.com/pqscan/pqscan/internal/decode/encoding"
	"github.com/pqscan/pqscan/internal/decode/format"
	"github.com/pqscan/pqscan/internal/errf"
)

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
