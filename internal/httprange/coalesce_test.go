package httprange

import (
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

const mib = 1 << 20

func TestCoalesce(t *testing.T) {
	tests := []struct {
		name string
		in   []Range
		opt  CoalesceOptions
		want []Range
	}{
		{name: "empty", in: nil, want: nil},
		{name: "drops empty", in: []Range{{Off: 5, Len: 0}, {Off: 7, Len: -1}}, want: nil},
		{name: "single", in: []Range{{Off: 10, Len: 5}}, want: []Range{{Off: 10, Len: 5}}},
		{name: "sorts and dedupes", in: []Range{{Off: 300000, Len: 10}, {Off: 0, Len: 10}, {Off: 0, Len: 10}},
			want: []Range{{Off: 0, Len: 10}, {Off: 300000, Len: 10}}},
		{name: "adjacent", in: []Range{{Off: 100, Len: 100}, {Off: 0, Len: 100}}, want: []Range{{Off: 0, Len: 200}}},
		{name: "overlapping and contained", in: []Range{{Off: 0, Len: 100}, {Off: 50, Len: 100}, {Off: 60, Len: 10}},
			want: []Range{{Off: 0, Len: 150}}},
		{name: "gap = MaxGap merges", in: []Range{{Off: 0, Len: 100}, {Off: 100 + 65536, Len: 100}},
			want: []Range{{Off: 0, Len: 65736}}},
		{name: "gap = MaxGap+1 does not", in: []Range{{Off: 0, Len: 100}, {Off: 100 + 65537, Len: 100}},
			want: []Range{{Off: 0, Len: 100}, {Off: 65637, Len: 100}}},
		{name: "custom gap", opt: CoalesceOptions{MaxGap: 10}, in: []Range{{Off: 0, Len: 10}, {Off: 20, Len: 5}, {Off: 36, Len: 4}},
			want: []Range{{Off: 0, Len: 25}, {Off: 36, Len: 4}}},
		{name: "negative gap: only touching ranges merge", opt: CoalesceOptions{MaxGap: -1},
			in:   []Range{{Off: 0, Len: 10}, {Off: 10, Len: 5}, {Off: 16, Len: 4}},
			want: []Range{{Off: 0, Len: 15}, {Off: 16, Len: 4}}},
		{name: "chain of small gaps", opt: CoalesceOptions{MaxGap: 10},
			in:   []Range{{Off: 0, Len: 1}, {Off: 11, Len: 1}, {Off: 22, Len: 1}, {Off: 33, Len: 1}},
			want: []Range{{Off: 0, Len: 34}}},
		{name: "merge stops at MaxRequest", opt: CoalesceOptions{MaxGap: 10, MaxRequest: 100},
			in:   []Range{{Off: 0, Len: 40}, {Off: 45, Len: 40}, {Off: 90, Len: 40}},
			want: []Range{{Off: 0, Len: 85}, {Off: 90, Len: 40}}},
		{name: "merge exactly to MaxRequest", opt: CoalesceOptions{MaxGap: 10, MaxRequest: 100},
			in:   []Range{{Off: 0, Len: 40}, {Off: 50, Len: 50}},
			want: []Range{{Off: 0, Len: 100}}},
		{name: "single 20 MiB range is split 8+8+4", in: []Range{{Off: 1000, Len: 20 * mib}},
			want: []Range{{Off: 1000, Len: 8 * mib}, {Off: 1000 + 8*mib, Len: 8 * mib}, {Off: 1000 + 16*mib, Len: 4 * mib}}},
		{name: "overlapping union longer than MaxRequest is split", opt: CoalesceOptions{MaxRequest: 100},
			in:   []Range{{Off: 0, Len: 80}, {Off: 50, Len: 80}},
			want: []Range{{Off: 0, Len: 100}, {Off: 100, Len: 30}}},
		{name: "big range is not merged with a neighbour", opt: CoalesceOptions{MaxRequest: 100},
			in:   []Range{{Off: 0, Len: 10}, {Off: 20, Len: 150}},
			want: []Range{{Off: 0, Len: 10}, {Off: 20, Len: 100}, {Off: 120, Len: 50}}},
		{name: "suffix kept first", in: []Range{{Off: 10, Len: 5}, {Off: -512, Len: 512}},
			want: []Range{{Off: -512, Len: 512}, {Off: 10, Len: 5}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]Range(nil), tc.in...)
			got := Coalesce(tc.in, tc.opt)
			require.Equal(t, tc.want, got)
			require.Equal(t, in, tc.in, "input not modified")
			checkCoalesce(t, tc.in, tc.opt, got)
		})
	}
}

func TestTotal(t *testing.T) {
	tests := []struct {
		name string
		in   []Range
		want int64
	}{
		{name: "nil", want: 0},
		{name: "sum", in: []Range{{Off: 0, Len: 10}, {Off: 5, Len: 10}}, want: 20},
		{name: "ignores empty and negative", in: []Range{{Off: 0, Len: -3}, {Off: 1, Len: 0}, {Off: 2, Len: 4}}, want: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, Total(tc.in)) })
	}
}

// checkCoalesce asserts the documented properties of Coalesce's output for in.
func checkCoalesce(t *testing.T, in []Range, opt CoalesceOptions, out []Range) {
	t.Helper()
	maxGap, maxReq := opt.MaxGap, opt.MaxRequest
	if maxGap == 0 {
		maxGap = DefaultMaxGap
	}
	maxGap = max(maxGap, 0)
	if maxReq <= 0 {
		maxReq = DefaultMaxRequest
	}
	var pos []Range
	for _, r := range out {
		if r.Off < 0 {
			continue
		}
		pos = append(pos, r)
	}
	for i, r := range pos {
		require.True(t, r.Len > 0 && r.Len <= maxReq, "length in (0, MaxRequest]", r)
		if i > 0 {
			require.True(t, r.Off >= pos[i-1].End(), "sorted and disjoint", pos[i-1], r)
		}
	}
	covered := func(off int64) bool {
		for _, r := range pos {
			if off >= r.Off && off < r.End() {
				return true
			}
		}
		return false
	}
	needed := func(off int64) bool {
		for _, r := range in {
			if r.Off >= 0 && off >= r.Off && off < r.End() {
				return true
			}
		}
		return false
	}
	// Every needed byte is covered (checked at range edges, enough for interval logic).
	for _, r := range in {
		if r.Off < 0 || r.Len <= 0 {
			continue
		}
		require.True(t, covered(r.Off) && covered(r.End()-1), "covers", r)
	}
	// Every output range starts and ends on needed bytes, and the unneeded runs inside it are
	// gaps of at most MaxGap.
	for _, r := range pos {
		require.True(t, needed(r.Off) && needed(r.End()-1), "output edges are needed bytes", r)
		gap := int64(0)
		if r.Len <= 1<<16 {
			for off := r.Off; off < r.End(); off++ {
				if needed(off) {
					gap = 0
				} else {
					gap++
					require.True(t, gap <= maxGap, "gap within MaxGap", r)
				}
			}
		}
	}
}
