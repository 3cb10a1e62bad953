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
