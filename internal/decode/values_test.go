package decode

import (
	"encoding/binary"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// fixedDict is a dictionary of n fixed-width values whose value i is i*1000+7 (low bytes).
func fixedDict(width, n int) *Values {
	d := &Values{N: n, Width: width, Fixed: make([]byte, width*n)}
	for i := range n {
		v := uint64(i*1000 + 7)
		switch width {
		case 2:
			binary.LittleEndian.PutUint16(d.Fixed[i*2:], uint16(v))
		case 4:
			binary.LittleEndian.PutUint32(d.Fixed[i*4:], uint32(v))
		default:
			binary.LittleEndian.PutUint64(d.Fixed[i*8:], v)
		}
	}
	return d
}

// Test_gather: every width and every length around the 4-value unrolling gives dict[idx[k]]
// in order, appended after what the values already held.
func Test_gather(t *testing.T) {
	for _, width := range []int{4, 8, 2} {
		for _, n := range []int{0, 1, 3, 4, 5, 8, 11} {
			dict := fixedDict(width, 6)
			idx := make([]int32, n)
			for k := range idx {
				idx[k] = int32((k*5 + 3) % 6)
			}
			var v Values
			v.reset(width)
			v.Fixed = append(v.Fixed, make([]byte, width)...) // one value already there
			v.N = 1
			require.NoError(t, v.gather(dict, idx))
			require.Equal(t, 1+n, v.N)
			require.Equal(t, width*(1+n), len(v.Fixed))
			for k, i := range idx {
				got := v.Fixed[(1+k)*width : (2+k)*width]
				want := dict.Fixed[int(i)*width : int(i+1)*width]
				require.Equal(t, string(want), string(got), "width", width, "n", n, "value", k)
			}
		}
	}
}

// Test_gatherAllocs: with the batch's capacity reserved (as the page decoder reuses its
// Values), gathering allocates nothing.
func Test_gatherAllocs(t *testing.T) {
	dict := fixedDict(8, 1000)
	idx := make([]int32, 4096)
	for k := range idx {
		idx[k] = int32(k * 7 % 1000)
	}
	var v Values
	v.reset(8)
	require.NoError(t, v.gather(dict, idx))
	allocs := testing.AllocsPerRun(20, func() {
		v.reset(8)
		if err := v.gather(dict, idx); err != nil {
			t.Fatal(err)
		}
	})
	require.Equal(t, 0.0, allocs)
}

func BenchmarkGather8(b *testing.B) {
	dict := fixedDict(8, 1000)
	idx := make([]int32, 1<<16)
	for k := range idx {
		idx[k] = int32(k * 7 % 1000)
	}
	var v Values
	b.SetBytes(int64(len(idx)) * 8)
	for b.Loop() {
		v.reset(8)
		if err := v.gather(dict, idx); err != nil {
			b.Fatal(err)
		}
	}
}

// byteDict is a dictionary of n byte strings; string i has (i*7)%maxLen bytes, each byte
// distinct per string and position, so a misplaced or stale byte shows.
func byteDict(n, maxLen int) *Values {
	d := &Values{N: n}
	d.reset(0)
	d.N = n
	for i := range n {
		for j := range (i * 7) % maxLen {
			d.Data = append(d.Data, byte(i*31+j))
		}
		d.Offsets = append(d.Offsets, int32(len(d.Data)))
	}
	return d
}

// Test_gatherBytes: strings of every length around the 8- and 16-byte copies, the empty one
// included, appended after what the values already held, give dict[idx[k]] and the offsets.
func Test_gatherBytes(t *testing.T) {
	for _, maxLen := range []int{1, 9, 17, 40} {
		for _, n := range []int{0, 1, 2, 7, 50} {
			dict := byteDict(12, maxLen)
			idx := make([]int32, n)
			for k := range idx {
				idx[k] = int32((k*5 + 3) % 12)
			}
			var v Values
			v.reset(0)
			v.Data = append(v.Data, "xyz"...) // one value already there
			v.Offsets = append(v.Offsets, 3)
			v.N = 1
			require.NoError(t, v.gather(dict, idx))
			require.Equal(t, 1+n, v.N)
			require.Equal(t, 2+n, len(v.Offsets))
			want := []byte("xyz")
			for k, i := range idx {
				want = append(want, dict.Data[dict.Offsets[i]:dict.Offsets[i+1]]...)
				require.Equal(t, int32(len(want)), v.Offsets[2+k], "maxLen", maxLen, "n", n, "offset", k)
			}
			require.Equal(t, string(want), string(v.Data), "maxLen", maxLen, "n", n)
		}
	}
}

// BenchmarkGatherBytes: 64Ki strings of 0–11 bytes from a 1000-entry dictionary.
func BenchmarkGatherBytes(b *testing.B) {
	dict := byteDict(1000, 12)
	idx := make([]int32, 1<<16)
	for k := range idx {
		idx[k] = int32(k * 7 % 1000)
	}
	var v Values
	for b.Loop() {
		v.reset(0)
		if err := v.gather(dict, idx); err != nil {
			b.Fatal(err)
		}
	}
}

// Test_gatherBytesAllocs: with the batch's capacity reserved, gathering strings allocates
// nothing.
func Test_gatherBytesAllocs(t *testing.T) {
	dict := byteDict(1000, 12)
	idx := make([]int32, 4096)
	for k := range idx {
		idx[k] = int32(k * 7 % 1000)
	}
	var v Values
	v.reset(0)
	require.NoError(t, v.gather(dict, idx))
	allocs := testing.AllocsPerRun(20, func() {
		v.reset(0)
		if err := v.gather(dict, idx); err != nil {
			t.Fatal(err)
		}
	})
	require.Equal(t, 0.0, allocs)
}
