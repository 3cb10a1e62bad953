package httprange

import (
	"math/rand/v2"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

func TestSubtract(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rs, minus []Range
		want      []Range
	}{
		{"nothing to subtract", []Range{{0, 10}}, nil, []Range{{0, 10}}},
		{"all covered", []Range{{0, 10}}, []Range{{0, 10}}, nil},
		{"covered by two touching", []Range{{0, 10}}, []Range{{5, 5}, {0, 5}}, nil},
		{"a hole in the middle", []Range{{0, 10}}, []Range{{3, 4}}, []Range{{0, 3}, {7, 3}}},
		{"edges", []Range{{10, 10}}, []Range{{5, 7}, {18, 10}}, []Range{{12, 6}}},
		{"disjoint", []Range{{0, 5}, {20, 5}}, []Range{{6, 10}}, []Range{{0, 5}, {20, 5}}},
		{"order of rs kept", []Range{{20, 5}, {0, 5}}, []Range{{22, 1}}, []Range{{20, 2}, {23, 2}, {0, 5}}},
		{"suffix kept", []Range{{-8, 8}}, []Range{{0, 100}}, []Range{{-8, 8}}},
		{"minus overlapping itself", []Range{{0, 30}}, []Range{{2, 10}, {4, 3}, {20, 2}}, []Range{{0, 2}, {12, 8}, {22, 8}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, Subtract(tc.rs, tc.minus), tc.want)
		})
	}
}

// TestSubtractBytes checks Subtract byte by byte against a bitmap on random ranges.
func TestSubtractBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rnd := func(n int) []Range {
		var out []Range
		for range n {
			out = append(out, Range{Off: rng.Int64N(200), Len: rng.Int64N(40)})
		}
		return out
	}
	for range 2000 {
		rs, minus := rnd(1+rng.IntN(4)), rnd(rng.IntN(6))
		var covered [256]bool
		for _, r := range minus {
			for b := r.Off; b < r.End(); b++ {
				covered[b] = true
			}
		}
		got := Subtract(rs, minus)
		var want, have [256]int
		for _, r := range rs {
			for b := r.Off; b < r.End(); b++ {
				if !covered[b] {
					want[b]++
				}
			}
		}
		for _, r := range got {
			if r.Len <= 0 {
				t.Fatalf("Subtract(%v, %v) = %v: an empty range", rs, minus, got)
			}
			for b := r.Off; b < r.End(); b++ {
				have[b]++
			}
		}
		if want != have {
			t.Fatalf("Subtract(%v, %v) = %v", rs, minus, got)
		}
	}
}
