package httprange

import (
	"bytes"
	"math"
	"testing"

	"github.com/pqscan/pqscan/internal/require"
)

// file returns the bytes [off, off+n) of a test file whose byte at i is byte(i*7+3).
func file(off, n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((off+int64(i))*7 + 3)
	}
	return b
}

type push struct{ off, n int64 }

func TestCache(t *testing.T) {
	tests := []struct {
		name       string
		pushes     []push
		release    []Range
		before     int64
		query      Range
		wantHas    bool
		wantMiss   []Range
		wantBytes  int64
		wantPieces int
	}{
		{name: "empty cache", query: Range{Off: 0, Len: 10}, wantMiss: []Range{{Off: 0, Len: 10}}},
		{name: "empty range", query: Range{Off: 5, Len: 0}, wantHas: true},
		{name: "exact piece", pushes: []push{{10, 10}}, query: Range{Off: 10, Len: 10}, wantHas: true, wantBytes: 10, wantPieces: 1},
		{name: "inside a bigger piece", pushes: []push{{0, 100}}, query: Range{Off: 10, Len: 10}, wantHas: true, wantBytes: 100, wantPieces: 1},
		{name: "spans two adjacent pieces", pushes: []push{{20, 10}, {0, 20}}, query: Range{Off: 15, Len: 10}, wantHas: true, wantBytes: 30, wantPieces: 2},
		{name: "hole in the middle", pushes: []push{{0, 10}, {20, 10}}, query: Range{Off: 5, Len: 20},
			wantMiss: []Range{{Off: 10, Len: 10}}, wantBytes: 20, wantPieces: 2},
		{name: "missing both ends", pushes: []push{{10, 10}}, query: Range{Off: 0, Len: 30},
			wantMiss: []Range{{Off: 0, Len: 10}, {Off: 20, Len: 10}}, wantBytes: 10, wantPieces: 1},
		{name: "overlapping push stores only new bytes", pushes: []push{{10, 10}, {0, 30}}, query: Range{Off: 0, Len: 30},
			wantHas: true, wantBytes: 30, wantPieces: 3},
		{name: "duplicate push", pushes: []push{{0, 10}, {0, 10}, {2, 3}}, query: Range{Off: 0, Len: 10}, wantHas: true, wantBytes: 10, wantPieces: 1},
		{name: "release middle splits", pushes: []push{{0, 30}}, release: []Range{{Off: 10, Len: 10}}, query: Range{Off: 0, Len: 30},
			wantMiss: []Range{{Off: 10, Len: 10}}, wantBytes: 20, wantPieces: 2},
		{name: "release across pieces", pushes: []push{{0, 10}, {10, 10}, {20, 10}}, release: []Range{{Off: 5, Len: 20}}, query: Range{Off: 0, Len: 30},
			wantMiss: []Range{{Off: 5, Len: 20}}, wantBytes: 10, wantPieces: 2},
		{name: "release nothing cached", pushes: []push{{0, 10}}, release: []Range{{Off: 50, Len: 10}, {Off: 0, Len: 0}}, query: Range{Off: 0, Len: 10},
			wantHas: true, wantBytes: 10, wantPieces: 1},
		{name: "release before", pushes: []push{{0, 10}, {20, 10}, {40, 10}}, before: 25, query: Range{Off: 0, Len: 50},
			wantMiss: []Range{{Off: 0, Len: 25}, {Off: 30, Len: 10}}, wantBytes: 15, wantPieces: 2},
		{name: "negative query", pushes: []push{{0, 10}}, query: Range{Off: -5, Len: 10}, wantBytes: 10, wantPieces: 1},
		{name: "huge query does not wrap", pushes: []push{{0, 10}}, query: Range{Off: 5, Len: math.MaxInt64},
			wantMiss: []Range{{Off: 10, Len: math.MaxInt64 - 10}}, wantBytes: 10, wantPieces: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Cache
			for _, p := range tc.pushes {
				require.NoError(t, c.Push(p.off, file(p.off, p.n)))
			}
			for _, r := range tc.release {
				c.Release(r)
			}
			c.ReleaseBefore(tc.before)
			require.Equal(t, tc.wantHas, c.Has(tc.query), "Has")
			require.Equal(t, tc.wantMiss, c.Missing(tc.query), "Missing")
			require.Equal(t, tc.wantBytes, c.Bytes(), "Bytes")
			require.Equal(t, tc.wantPieces, c.Len(), "pieces")
			b, ok := c.Get(tc.query)
			require.Equal(t, tc.wantHas, ok, "Get ok")
			if ok {
				require.Equal(t, file(tc.query.Off, tc.query.Len), b)
			}
		})
	}
}

func TestCache_ownershipAndAliasing(t *testing.T) {
	var c Cache
	buf := file(0, 100)
	require.NoError(t, c.Push(0, buf))
	for i := range buf {
		buf[i] = 0 // the host reuses its buffer
	}
	got, ok := c.Get(Range{Off: 10, Len: 10})
	require.True(t, ok)
	require.Equal(t, file(10, 10), got)

	// One piece covers the range: Get aliases it (no copy), with capacity capped at the range.
	again, _ := c.Get(Range{Off: 10, Len: 10})
	require.True(t, &got[0] == &again[0], "zero-copy")
	require.Equal(t, 10, cap(got))

	// Spanning two pieces: a copy.
	owned := file(100, 50)
	require.NoError(t, c.PushOwned(100, owned))
	span, ok := c.Get(Range{Off: 90, Len: 20})
	require.True(t, ok)
	require.Equal(t, file(90, 20), span)
	inOwned, _ := c.Get(Range{Off: 100, Len: 5})
	require.True(t, &inOwned[0] == &owned[0], "PushOwned keeps the caller's slice")

	// A released range's slice stays readable.
	c.Release(Range{Off: 0, Len: 200})
	require.Equal(t, file(10, 10), got)
	require.Equal(t, int64(0), c.Bytes())
	require.Equal(t, 0, c.Len())
}

func TestCache_pushErrors(t *testing.T) {
	tests := []struct {
		name string
		off  int64
		b    []byte
		want error
	}{
		{name: "negative offset", off: -1, b: []byte{1}, want: ErrNegativeOffset},
		{name: "overflow", off: math.MaxInt64 - 1, b: []byte{1, 2}, want: ErrOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Cache
			require.ErrorIs(t, c.Push(tc.off, tc.b), tc.want)
			require.ErrorIs(t, c.PushOwned(tc.off, tc.b), tc.want)
			require.Equal(t, int64(0), c.Bytes())
		})
	}
	var c Cache
	require.NoError(t, c.Push(math.MaxInt64-2, []byte{1, 2}))
	require.NoError(t, c.Push(7, nil))
	require.Equal(t, int64(2), c.Bytes())
}

// FuzzCache drives a Cache and a naive byte-array model with the same operations and compares
// every answer. Each operation is 4 bytes: kind, offset, length, fill seed.
func FuzzCache(f *testing.F) {
	f.Add([]byte{0, 10, 20, 1, 0, 0, 50, 2, 2, 5, 30, 0, 3, 0, 40, 0})
	f.Add([]byte{1, 0, 255, 7, 2, 100, 50, 0, 4, 120, 0, 0, 0, 90, 100, 9})
	f.Add([]byte{0, 200, 56, 3, 0, 0, 200, 4, 3, 190, 20, 0})
	const n = 256
	f.Fuzz(func(t *testing.T, ops []byte) {
		var c Cache
		var data [n]byte
		var have [n]bool
		for len(ops) >= 4 {
			kind, off, ln, seed := ops[0]%5, int64(ops[1]), int64(ops[2]), ops[3]
			ops = ops[4:]
			ln = min(ln, n-off)
			r := Range{Off: off, Len: ln}
			switch kind {
			case 0, 1: // Push / PushOwned of fresh bytes; cached bytes win on overlap
				b := make([]byte, ln)
				for i := range b {
					b[i] = seed + byte(i)*31
				}
				if kind == 0 {
					require.NoError(t, c.Push(off, b))
					for i := range b {
						b[i] ^= 0x55 // reuse of the caller's buffer must not show
					}
					for i := range b {
						b[i] ^= 0x55
					}
				} else {
					require.NoError(t, c.PushOwned(off, bytes.Clone(b)))
				}
				for i := int64(0); i < ln; i++ {
					if !have[off+i] {
						have[off+i], data[off+i] = true, b[i]
					}
				}
			case 2:
				c.Release(r)
				for i := off; i < off+ln; i++ {
					have[i] = false
				}
			case 3:
				c.ReleaseBefore(off)
				for i := int64(0); i < off; i++ {
					have[i] = false
				}
			}
			// Compare everything the model knows.
			var bytesHeld int64
			for _, h := range have {
				if h {
					bytesHeld++
				}
			}
			require.Equal(t, bytesHeld, c.Bytes(), "Bytes")
			var wantMiss []Range
			for i := off; i < off+ln; i++ {
				if have[i] {
					continue
				}
				if k := len(wantMiss); k > 0 && wantMiss[k-1].End() == i {
					wantMiss[k-1].Len++
				} else {
					wantMiss = append(wantMiss, Range{Off: i, Len: 1})
				}
			}
			require.Equal(t, wantMiss, c.Missing(r), "Missing", r)
			require.Equal(t, wantMiss == nil, c.Has(r), "Has", r)
			got, ok := c.Get(r)
			require.Equal(t, wantMiss == nil, ok, "Get", r)
			if ok {
				require.Equal(t, data[off:off+ln], got, "Get bytes", r)
			}
			// Invariant: sorted, disjoint, non-empty pieces.
			for i, p := range c.pieces {
				require.True(t, len(p.b) > 0, "non-empty piece")
				if i > 0 {
					require.True(t, c.pieces[i-1].end() <= p.off, "disjoint")
				}
			}
		}
	})
}

// FuzzCoalesce checks Coalesce's documented properties on arbitrary small inputs.
func FuzzCoalesce(f *testing.F) {
	f.Add([]byte{0, 10, 20, 5, 40, 8, 100, 1}, int64(10), int64(30))
	f.Add([]byte{0, 255, 3, 3}, int64(-1), int64(7))
	f.Add([]byte{}, int64(0), int64(0))
	f.Fuzz(func(t *testing.T, raw []byte, maxGap, maxReq int64) {
		var in []Range
		for i := 0; i+1 < len(raw); i += 2 {
			in = append(in, Range{Off: int64(raw[i]) * 3, Len: int64(raw[i+1]) - 8})
		}
		opt := CoalesceOptions{MaxGap: maxGap % 1000, MaxRequest: maxReq % 1000}
		out := Coalesce(in, opt)
		checkCoalesce(t, in, opt, out)
	})
}

// Owned parts of one buffer pushed one after the other become one piece, so a Get across
// them aliases the buffer instead of copying; parts of separate buffers stay apart.
func TestCachePushOwnedJoins(t *testing.T) {
	buf := []byte("abcdefghij")
	var c Cache
	for _, r := range []struct{ off, end int }{{0, 3}, {3, 7}, {7, 10}} {
		if err := c.PushOwned(int64(r.off), buf[r.off:r.end]); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 1 || c.Bytes() != 10 {
		t.Fatalf("pieces %d, bytes %d; want 1, 10", c.Len(), c.Bytes())
	}
	got, ok := c.Get(Range{Off: 2, Len: 6})
	if !ok || string(got) != "cdefgh" || &got[0] != &buf[2] || cap(got) != 6 {
		t.Fatalf("Get = %q (ok %v, cap %d), want an alias of the buffer", got, ok, cap(got))
	}

	var d Cache
	a, b := []byte("abc"), []byte("def")
	if err := d.PushOwned(0, a); err != nil {
		t.Fatal(err)
	}
	if err := d.PushOwned(3, b); err != nil {
		t.Fatal(err)
	}
	if d.Len() != 2 {
		t.Fatalf("separate buffers: %d pieces, want 2", d.Len())
	}
	got, _ = d.Get(Range{Off: 1, Len: 4})
	if string(got) != "bcde" {
		t.Fatalf("Get = %q", got)
	}
	// A part already cached is skipped, the rest of the buffer still joins.
	var e Cache
	if err := e.Push(3, []byte("def")); err != nil {
		t.Fatal(err)
	}
	if err := e.PushOwned(0, buf[:5]); err != nil {
		t.Fatal(err)
	}
	if err := e.PushOwned(5, buf[5:]); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Get(Range{Off: 0, Len: 10}); string(got) != "abcdefghij" || e.Bytes() != 10 {
		t.Fatalf("Get = %q, bytes %d", got, e.Bytes())
	}
}
