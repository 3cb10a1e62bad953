package httprange

import "sort"

// Cache holds the byte pieces a host pushed to the engine: any order, overlapping, with extra
// bytes beyond what was asked. Pushed slices are copied (hosts reuse their buffers; a wasm
// host's views go stale), and pieces are merged when they touch so that a range covered by
// several pushes is served from one contiguous slice.
//
// Invariant: pieces are sorted by Off, non-overlapping and non-adjacent.
type Cache struct {
	pieces []piece
	bytes  int64
}

type piece struct {
	off  int64
	data []byte
}

func (p piece) end() int64 { return p.off + int64(len(p.data)) }

// Push stores a copy of b at offset off.
func (c *Cache) Push(off int64, b []byte) {
	if len(b) == 0 {
		return
	}
	end := off + int64(len(b))
	// Pieces overlapping or touching [off, end).
	lo := sort.Search(len(c.pieces), func(i int) bool { return c.pieces[i].end() >= off })
	hi := lo
	for hi < len(c.pieces) && c.pieces[hi].off <= end {
		hi++
	}
	if lo == hi {
		np := piece{off: off, data: append([]byte(nil), b...)}
		c.pieces = append(c.pieces, piece{})
		copy(c.pieces[lo+1:], c.pieces[lo:])
		c.pieces[lo] = np
		c.bytes += int64(len(b))
		return
	}
	start := min(off, c.pieces[lo].off)
	stop := max(end, c.pieces[hi-1].end())
	if lo+1 == hi && c.pieces[lo].off <= off && c.pieces[lo].end() >= end {
		return // already held
	}
	merged := make([]byte, stop-start)
	for _, p := range c.pieces[lo:hi] {
		copy(merged[p.off-start:], p.data)
		c.bytes -= int64(len(p.data))
	}
	copy(merged[off-start:], b)
	c.bytes += int64(len(merged))
	c.pieces[lo] = piece{off: start, data: merged}
	c.pieces = append(c.pieces[:lo+1], c.pieces[hi:]...)
}

// Get returns the bytes of r if they are all present. The slice aliases the cache: it is
// valid until the next Push or Release and must not be modified.
func (c *Cache) Get(r Range) ([]byte, bool) {
	if r.Len == 0 {
		return []byte{}, true
	}
	i := sort.Search(len(c.pieces), func(i int) bool { return c.pieces[i].end() > r.Off })
	if i == len(c.pieces) || c.pieces[i].off > r.Off || c.pieces[i].end() < r.End() {
		return nil, false
	}
	p := c.pieces[i]
	return p.data[r.Off-p.off : r.End()-p.off : r.End()-p.off], true
}

// Has reports whether every byte of r is present.
func (c *Cache) Has(r Range) bool {
	_, ok := c.Get(r)
	return ok
}

// Missing returns the sub-ranges of r not yet present, in order.
func (c *Cache) Missing(r Range) []Range {
	if r.Len <= 0 {
		return nil
	}
	var out []Range
	pos := r.Off
	i := sort.Search(len(c.pieces), func(i int) bool { return c.pieces[i].end() > r.Off })
	for ; i < len(c.pieces) && pos < r.End(); i++ {
		p := c.pieces[i]
		if p.off > pos {
			out = append(out, Range{Off: pos, Len: min(p.off, r.End()) - pos})
		}
		pos = max(pos, p.end())
	}
	if pos < r.End() {
		out = append(out, Range{Off: pos, Len: r.End() - pos})
	}
	return out
}

// Release forgets the bytes of r (pieces are trimmed or split).
func (c *Cache) Release(r Range) {
	if r.Len <= 0 {
		return
	}
	var out []piece
	for _, p := range c.pieces {
		if p.end() <= r.Off || p.off >= r.End() {
			out = append(out, p)
			continue
		}
		c.bytes -= int64(len(p.data))
		if p.off < r.Off {
			left := append([]byte(nil), p.data[:r.Off-p.off]...)
			out = append(out, piece{off: p.off, data: left})
			c.bytes += int64(len(left))
		}
		if p.end() > r.End() {
			right := append([]byte(nil), p.data[r.End()-p.off:]...)
			out = append(out, piece{off: r.End(), data: right})
			c.bytes += int64(len(right))
		}
	}
	c.pieces = out
}

// Bytes returns the bytes held.
func (c *Cache) Bytes() int64 { return c.bytes }
