package arrowipc

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// Test_WriteStream_inPlace: a body buffer that already lies in dst's spare capacity is kept
// where it is when that is where its bytes go, and never overwritten before it is read when it
// is anywhere else in the bytes written: the stream equals the one written from a separate
// copy of the same values in every case.
func Test_WriteStream_inPlace(t *testing.T) {
	s := &Schema{Fields: []Field{fld("v", tDouble, false)}}
	const n = 100
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i)*1.5 - 7
	}
	want, err := WriteStream(nil, s, n, []*Array{fixed(vals, nil)})
	require.NoError(t, err)
	dataAt := len(want) - 8 - 8*n // the only body bytes, then the end-of-stream marker

	for _, tc := range []struct {
		name    string
		shift   int // where the values sit in dst's memory, relative to where the stream puts them
		inPlace bool
	}{
		{name: "exactly in place", shift: 0, inPlace: true},
		{name: "8 bytes early: the header would overwrite them", shift: -8},
		{name: "8 bytes late: they overlap their own destination", shift: 8},
		{name: "inside the schema message", shift: -dataAt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := make([]byte, len(want)+64)
			at := dataAt + tc.shift
			data := mem[at : at+8*n]
			for i, v := range vals {
				binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v))
			}
			a := &Array{Len: n, Data: data}
			got, err := WriteStream(mem[:0], s, n, []*Array{a})
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "stream differs")
			require.Equal(t, tc.inPlace, &got[0] == &mem[0], "written in dst's memory")
		})
	}

	t.Run("dst too small: grown, values copied from where they are", func(t *testing.T) {
		mem := make([]byte, len(want)-8) // the values fit, the stream does not
		data := mem[dataAt : dataAt+8*n]
		for i, v := range vals {
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v))
		}
		got, err := WriteStream(mem[:0], s, n, []*Array{{Len: n, Data: data}})
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "stream differs")
	})
}

// Test_WriteStream_inPlaceAllocs: writing a batch whose values are already in place allocates
// only the message metadata, whatever the batch size (the body is neither copied nor grown).
func Test_WriteStream_inPlaceAllocs(t *testing.T) {
	s := &Schema{Fields: []Field{fld("v", tDouble, false)}}
	const n = 1 << 16
	first, err := WriteStream(nil, s, n, []*Array{fixed(make([]float64, n), nil)})
	require.NoError(t, err)
	dataAt := len(first) - 8 - 8*n
	a := &Array{Len: n, Data: first[dataAt : dataAt+8*n]}
	buf := first
	allocs := testing.AllocsPerRun(10, func() {
		var err error
		if buf, err = WriteStream(buf[:0], s, n, []*Array{a}); err != nil {
			t.Fatal(err)
		}
	})
	require.True(t, &buf[0] == &first[0], "the stream moved")
	require.True(t, allocs < 20, "allocations: %v", allocs)
}
