package encoding

import (
	"math/rand/v2"
	"testing"
)

// Test_checkIndices: the first index at or past the limit is found wherever it sits relative
// to the 8-value blocks, including a later bad value in the same or the next block.
func Test_checkIndices(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		bad     []int // positions set to the limit (the first is the answer)
		wantPos int
	}{
		{name: "empty", n: 0},
		{name: "all good, partial block", n: 5},
		{name: "all good, blocks", n: 24},
		{name: "first value", n: 24, bad: []int{0}, wantPos: 0},
		{name: "end of a block", n: 24, bad: []int{7, 9}, wantPos: 7},
		{name: "start of a block", n: 24, bad: []int{8}, wantPos: 8},
		{name: "two in one block", n: 24, bad: []int{13, 11}, wantPos: 11},
		{name: "in the tail", n: 21, bad: []int{20}, wantPos: 20},
		{name: "short slice", n: 3, bad: []int{2}, wantPos: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const limit = 100
			idx := make([]int32, tc.n)
			for i := range idx {
				idx[i] = int32(i % limit)
			}
			for _, p := range tc.bad {
				idx[p] = limit
			}
			pos, ok := checkIndices(idx, limit)
			if ok != (len(tc.bad) == 0) || (!ok && pos != tc.wantPos) {
				t.Fatalf("checkIndices = %d, %v; want position %d, ok %v", pos, ok, tc.wantPos, len(tc.bad) == 0)
			}
			// A negative index is a huge uint32: out of range too.
			if len(tc.bad) > 0 {
				idx[tc.bad[0]] = -1
				if pos, ok := checkIndices(idx, limit); ok || pos != tc.wantPos {
					t.Fatalf("negative index: %d, %v", pos, ok)
				}
			}
		})
	}
}

// Test_DictIndicesAllocs: decoding into a reused buffer allocates nothing.
func Test_DictIndicesAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	values := make([]uint64, 4096)
	for i := range values {
		values[i] = r.Uint64() & 1023
	}
	src := append([]byte{10}, encodeBitPackedOnly(values, 10)...)
	dst := make([]int32, 0, len(values))
	if a := testing.AllocsPerRun(20, func() {
		var err error
		if dst, err = DictIndices(dst[:0], src, len(values), 1024); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
}
