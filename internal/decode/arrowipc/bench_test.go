package arrowipc

import "testing"

// BenchmarkWriteStream shows that the cost is a copy of the buffers plus validation: no
// per-value encoding work (offsets are appended as one little-endian block).
func BenchmarkWriteStream(b *testing.B) {
	const n = 1 << 16
	vals := make([]int64, n)
	strsVals := make([]string, n)
	for i := range vals {
		vals[i] = int64(i)
		strsVals[i] = "value"
	}
	s := &Schema{Fields: []Field{fld("i", tInt64, true), fld("s", tUtf8, true)}}
	cols := []*Array{fixed(vals, nil), strs(strsVals, nil)}
	var dst []byte
	b.SetBytes(int64(len(cols[0].Data) + len(cols[1].Data) + 4*len(cols[1].Offsets)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		dst, err = WriteStream(dst[:0], s, n, cols)
		if err != nil {
			b.Fatal(err)
		}
	}
}
