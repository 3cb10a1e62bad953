package prune

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func Test_PrefixSuccessor(t *testing.T) {
	in := []byte("ab\xff\xff")
	b, ok := PrefixSuccessor(in)
	require.True(t, ok)
	require.Equal(t, []byte("ac"), b)
	require.Equal(t, []byte("ab\xff\xff"), in, "the input is left alone")
	_, ok = PrefixSuccessor([]byte("\xff"))
	require.True(t, !ok)
	_, ok = PrefixSuccessor(nil)
	require.True(t, !ok)
}
