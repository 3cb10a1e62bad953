package scan

// Copying rows between Arrow arrays, for ORDER BY (topk.go): the rows a sorted scan returns
// are gathered in file order from the decoder's batches (whose buffers the next batch
// reuses) and written out again in sorted order.

import "github.com/pqscan/pqscan/internal/decode/arrowipc"

// newArray is an empty array of type t that appendRows can grow.
func newArray(t *arrowipc.DataType) *arrowipc.Array {
	a := &arrowipc.Array{}
	switch t.ID {
	case arrowipc.Utf8, arrowipc.Binary:
		a.Offsets = []int32{0}
	case arrowipc.List, arrowipc.Map:
		a.Offsets = []int32{0}
		a.Children = []*arrowipc.Array{newArray(&t.Elem.Type)}
	case arrowipc.Struct:
		for i := range t.Fields {
			a.Children = append(a.Children, newArray(&t.Fields[i].Type))
		}
	}
	return a
}

// valueWidth is the byte width of a fixed-width value of t, 0 for other layouts.
func valueWidth(t *arrowipc.DataType) int {
	switch t.ID {
	case arrowipc.Int, arrowipc.Float, arrowipc.Decimal, arrowipc.Time:
		return t.BitWidth / 8
	case arrowipc.FixedSizeBinary:
		return t.ByteWidth
	case arrowipc.Date32:
		return 4
	case arrowipc.Timestamp:
		return 8
	case arrowipc.IntervalMonthDayNano:
		return 16
	}
	return 0
}

func bitAt(b []byte, i int) bool { return b[i>>3]>>(i&7)&1 != 0 }

// appendBit sets bit i of *b (growing it), which holds bits [0, i) already.
func appendBit(b *[]byte, i int, v bool) {
	for len(*b) < (i+8)/8 {
		*b = append(*b, 0)
	}
	if v {
		(*b)[i>>3] |= 1 << (i & 7)
	}
}

// appendRows appends rows [start, start+n) of src, an array of type t, to dst.
func appendRows(dst *arrowipc.Array, t *arrowipc.DataType, src *arrowipc.Array, start, n int) {
	if src.Validity != nil && src.NullCount > 0 && dst.Validity == nil {
		dst.Validity = make([]byte, 0, (dst.Len+n+7)/8)
		for i := 0; i < dst.Len; i++ {
			appendBit(&dst.Validity, i, true)
		}
	}
	if dst.Validity != nil {
		for i := 0; i < n; i++ {
			ok := src.Validity == nil || src.NullCount == 0 || bitAt(src.Validity, start+i)
			appendBit(&dst.Validity, dst.Len+i, ok)
			if !ok {
				dst.NullCount++
			}
		}
	}
	switch t.ID {
	case arrowipc.Null:
		dst.NullCount += n
	case arrowipc.Bool:
		for i := 0; i < n; i++ {
			appendBit(&dst.Data, dst.Len+i, bitAt(src.Data, start+i))
		}
	case arrowipc.Utf8, arrowipc.Binary:
		lo, hi := src.Offsets[start], src.Offsets[start+n]
		base := dst.Offsets[len(dst.Offsets)-1]
		for i := 1; i <= n; i++ {
			dst.Offsets = append(dst.Offsets, base+src.Offsets[start+i]-lo)
		}
		dst.Data = append(dst.Data, src.Data[lo:hi]...)
	case arrowipc.List, arrowipc.Map:
		lo, hi := src.Offsets[start], src.Offsets[start+n]
		base := dst.Offsets[len(dst.Offsets)-1]
		for i := 1; i <= n; i++ {
			dst.Offsets = append(dst.Offsets, base+src.Offsets[start+i]-lo)
		}
		appendRows(dst.Children[0], &t.Elem.Type, src.Children[0], int(lo), int(hi-lo))
	case arrowipc.Struct:
		for k := range t.Fields {
			appendRows(dst.Children[k], &t.Fields[k].Type, src.Children[k], start, n)
		}
	default:
		w := valueWidth(t)
		dst.Data = append(dst.Data, src.Data[start*w:(start+n)*w]...)
	}
	dst.Len += n
}

// arrayBytes is the memory an array holds, for the memory cap.
func arrayBytes(a *arrowipc.Array) int64 {
	n := int64(len(a.Validity) + 4*len(a.Offsets) + len(a.Data))
	for _, c := range a.Children {
		n += arrayBytes(c)
	}
	return n
}
