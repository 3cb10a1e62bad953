package icebergsession

import (
	"testing"

	"github.com/pqscan/pqscan/internal/decode/arrowipc"
	"github.com/pqscan/pqscan/internal/require"
)

// Test_key: two rows have the same key exactly when their values are equal, NULL equal to
// NULL, whatever the strings' split between columns.
func Test_key(t *testing.T) {
	in := &arrowipc.Schema{Fields: []arrowipc.Field{
		{Name: "s", Type: arrowipc.DataType{ID: arrowipc.Utf8}},
		{Name: "t", Type: arrowipc.DataType{ID: arrowipc.Utf8}},
		{Name: "i", Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 32, Signed: true}},
	}}
	// Rows: ("a","bc",1), ("ab","c",1), (NULL,"",0), (NULL,"",0), ("",NULL,0), ("a","bc",2).
	arrs := []*arrowipc.Array{
		{Len: 6, Validity: []byte{0b110011}, Offsets: []int32{0, 1, 3, 3, 3, 3, 4}, Data: []byte("aaba")},
		{Len: 6, Validity: []byte{0b101111}, Offsets: []int32{0, 2, 3, 3, 3, 3, 5}, Data: []byte("bccbc")},
		{Len: 6, Data: []byte{1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0}},
	}
	keys := make([]string, 6)
	for r := range keys {
		k, ok := key(in, arrs, []int{0, 1, 2}, r)
		require.True(t, ok, r)
		keys[r] = k
	}
	tests := []struct {
		name string
		a, b int
		same bool
	}{
		{name: "split strings differ", a: 0, b: 1},
		{name: "NULL equals NULL", a: 2, b: 3, same: true},
		{name: "NULL is not the empty string", a: 2, b: 4},
		{name: "ints differ", a: 0, b: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.same, keys[tc.a] == keys[tc.b])
		})
	}
	_, ok := key(in, []*arrowipc.Array{arrs[0], arrs[1], {Len: 6, Data: []byte{1}}}, []int{2}, 3)
	require.True(t, !ok)
}
