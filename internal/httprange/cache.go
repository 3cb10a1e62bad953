package httprange

import (
	"math"
	"slices"
	"sort"

	"github.com/pqscan/pqscan/internal/errf"
)

// Cache holds the bytes of one file that a host pushed to the engine, as pieces at offsets:
// pushed in any order and granularity, overlapping or not, with extra bytes beyond what was
// asked. It answers whether a range is available, returns its bytes, lists what is missing,
// and frees what the scan no longer needs.
//
// Invariant: pieces are sorted by offset, disjoint and non-empty, so Bytes is exact. When a
// pushed piece overlaps cached bytes, the cached bytes win and only the new parts are stored
// (both are the same file; the host must not push different bytes for one offset).
//
// Ownership: Push copies what it keeps, because hosts reuse their buffers (the wasm host
// writes each fetched range into one scratch buffer in linear memory). PushOwned takes b
// without copying; the caller must not modify b afterwards. Slices returned by Get may alias
// cached memory and must not be modified; they stay valid after Release (the cache drops its
// reference, the garbage collector frees the memory once the caller drops it too).
//
// A Cache is not safe for concurrent use; the engine owns it.
type Cache struct {
	pieces []piece
	bytes  int64
}

type piece struct {
	off int64
	b   []byte
}

func (p piece) end() int64 { return p.off + int64(len(p.b)) }

// satEnd is r.End() saturated at MaxInt64, so that huge ranges from a host cannot wrap.
func satEnd(r Range) int64 {
	if r.Len > math.MaxInt64-r.Off {
		return math.MaxInt64
	}
	return r.Off + r.Len
}

// Bytes returns the number of bytes the cache holds.
func (c *Cache) Bytes() int64 { return c.bytes }

// Len returns the number of disjoint pieces held (for tests and memory diagnostics).
func (c *Cache) Len() int { return len(c.pieces) }

// Push stores a copy of the bytes of b not already cached, at off.
func (c *Cache) Push(off int64, b []byte) error { return c.push(off, b, true) }

// PushOwned is Push without the copy: the cache keeps b (or parts of it, when some of its
// bytes are already cached) and the caller must not modify b afterwards.
func (c *Cache) PushOwned(off int64, b []byte) error { return c.push(off, b, false) }

func (c *Cache) push(off int64, b []byte, copyBytes bool) error {
	if off < 0 {
		return errf.Errorf("%w: push at %d", ErrNegativeOffset, off)
	}
	if int64(len(b)) > math.MaxInt64-off {
		return errf.Errorf("%w: push of %d bytes at %d", ErrOverflow, len(b), off)
	}
	if len(b) == 0 {
		return nil
	}
	for _, g := range c.Missing(Range{Off: off, Len: int64(len(b))}) {
		// An owned part keeps the capacity of b, so that the next part of the same buffer
		// can join it (nothing appends to a piece: Get caps what it returns).
		part := b[g.Off-off : g.End()-off]
		if copyBytes {
			part = slices.Clone(part)
		}
		i := c.search(g.Off)
		c.bytes += g.Len
		if !copyBytes && i > 0 && joins(c.pieces[i-1], g.Off, part) {
			// The part continues the previous piece in the caller's memory too (a local
			// read of consecutive ranges into one buffer): one piece, so a Get across the
			// two is a slice, not a copy.
			p := &c.pieces[i-1]
			p.b = p.b[:len(p.b)+len(part)]
			continue
		}
		c.pieces = slices.Insert(c.pieces, i, piece{off: g.Off, b: part})
	}
	return nil
}

// joins reports whether part, the caller's bytes at file offset off, directly follows piece p
// both in the file and in memory: p's backing array goes on into part.
func joins(p piece, off int64, part []byte) bool {
	n := len(p.b)
	return p.end() == off && len(part) > 0 && cap(p.b)-n >= len(part) && &p.b[:n+1][n] == &part[0]
}

// search returns the index of the first piece that ends after off.
func (c *Cache) search(off int64) int {
	return sort.Search(len(c.pieces), func(i int) bool { return c.pieces[i].end() > off })
}

// Has reports whether every byte of r is cached. An empty range is always cached.
func (c *Cache) Has(r Range) bool {
	if r.Len <= 0 {
		return r.Len == 0
	}
	if r.Off < 0 {
		return false
	}
	pos, end := r.Off, satEnd(r)
	for i := c.search(r.Off); i < len(c.pieces) && pos < end; i++ {
		p := c.pieces[i]
		if p.off > pos {
			return false
		}
		pos = p.end()
	}
	return pos >= end
}

// Get returns the bytes of r and whether all of them are cached. When one piece covers r the
// result aliases it (zero-copy); when r spans several pieces it is a new slice. A
// negative-length or negative-offset range is never cached.
func (c *Cache) Get(r Range) ([]byte, bool) {
	if r.Len == 0 {
		return []byte{}, true
	}
	if !c.Has(r) {
		return nil, false
	}
	i := c.search(r.Off)
	if p := c.pieces[i]; p.end() >= r.End() {
		lo := r.Off - p.off
		return p.b[lo : lo+r.Len : lo+r.Len], true
	}
	out := make([]byte, 0, r.Len)
	for pos := r.Off; pos < r.End(); i++ {
		p := c.pieces[i]
		out = append(out, p.b[pos-p.off:min(p.end(), r.End())-p.off]...)
		pos = p.end()
	}
	return out, true
}

// Missing returns the parts of r that are not cached, sorted and disjoint; nil when Has(r).
func (c *Cache) Missing(r Range) []Range {
	if r.Len <= 0 || r.Off < 0 {
		return nil
	}
	var out []Range
	pos, end := r.Off, satEnd(r)
	for i := c.search(r.Off); i < len(c.pieces) && pos < end; i++ {
		p := c.pieces[i]
		if p.off > pos {
			out = append(out, Range{Off: pos, Len: min(p.off, end) - pos})
		}
		pos = max(pos, p.end())
	}
	if pos < end {
		out = append(out, Range{Off: pos, Len: end - pos})
	}
	return out
}

// Release drops the cached bytes of r. Pieces cut by r's edges keep only their outside parts,
// copied so that the memory of the released part can be collected.
func (c *Cache) Release(r Range) {
	if r.Len <= 0 {
		return
	}
	lo, hi := max(r.Off, 0), satEnd(r)
	i := c.search(lo)
	j := i
	var keep []piece
	for ; j < len(c.pieces) && c.pieces[j].off < hi; j++ {
		p := c.pieces[j]
		c.bytes -= int64(len(p.b))
		if p.off < lo {
			keep = append(keep, piece{off: p.off, b: slices.Clone(p.b[:lo-p.off])})
		}
		if p.end() > hi {
			keep = append(keep, piece{off: hi, b: slices.Clone(p.b[hi-p.off:])})
		}
	}
	for _, p := range keep {
		c.bytes += int64(len(p.b))
	}
	c.pieces = slices.Replace(c.pieces, i, j, keep...)
}

// ReleaseBefore drops every cached byte before off: a scan that moves forward through the file
// calls it with the start of the next row group.
func (c *Cache) ReleaseBefore(off int64) {
	if off > 0 {
		c.Release(Range{Off: 0, Len: off})
	}
}
