package wazerohost

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// A linear memory grows within its reservation without moving; a freed one is emptied and
// handed to the next instance, which reads zeros where the last one wrote.
func Test_linearMemory(t *testing.T) {
	const max = 4 << 20
	m := allocateLinear(64<<10, max)
	mm, ok := m.(*mappedMemory)
	require.True(t, ok, "not a reservation")
	b := m.Reallocate(64 << 10)
	b[100] = 7
	c := m.Reallocate(1 << 20)
	require.True(t, &b[0] == &c[0], "growth moved the memory")
	require.Equal(t, byte(7), c[100])
	c[1<<20-1] = 9
	require.True(t, m.Reallocate(max+1) == nil, "growth past the maximum")
	res := &mm.res[0]
	m.Free()
	m.Free()

	n := allocateLinear(64<<10, max)
	d := n.Reallocate(1 << 20)
	require.True(t, &d[0] == res, "the reservation was not reused")
	require.Equal(t, byte(0), d[100])
	require.Equal(t, byte(0), d[1<<20-1])
	n.Free()
}

func Test_sliceMemory(t *testing.T) {
	m := &sliceMemory{}
	b := m.Reallocate(10)
	b[3] = 1
	c := m.Reallocate(100)
	require.Equal(t, 100, len(c))
	require.Equal(t, byte(1), c[3])
	m.Free()
}
