package scan

import (
	"testing"

	"github.com/pqscan/pqscan/internal/httprange"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_pushOwnedKeepsBytes: PushOwned keeps the caller's buffer (the wasm module hands over
// the buffer the host wrote into), Push keeps a copy (hosts reuse their buffers).
func Test_pushOwnedKeepsBytes(t *testing.T) {
	s, err := New(Options{FileSize: 10})
	require.NoError(t, err)

	owned := []byte("abcd")
	require.NoError(t, s.PushOwned(2, owned))
	got, ok := s.cache.Get(httprange.Range{Off: 2, Len: 4})
	require.True(t, ok)
	require.True(t, &got[0] == &owned[0], "PushOwned must not copy")

	lent := []byte("xyz")
	require.NoError(t, s.Push(6, lent))
	got, ok = s.cache.Get(httprange.Range{Off: 6, Len: 3})
	require.True(t, ok)
	require.True(t, &got[0] != &lent[0], "Push must copy")
	lent[0] = 'X'
	require.Equal(t, "xyz", string(got))

	require.True(t, s.PushOwned(8, []byte("past end")) != nil, "outside the file is an error")
	require.Equal(t, int64(7), s.Report().BytesPushed)
}
