package metacache

import (
	"encoding/binary"
	"errors"
)

// Tail is what is kept of one file: enough to plan a scan of it without a request, and the
// version it holds, which every later request is checked against.
type Tail struct {
	Size         int64
	ETag         string
	LastModified string
	// Requests and RoundTrips are what fetching Pieces cost the reader that stored them: what
	// a scan starting from this entry saves.
	Requests, RoundTrips int64
	Pieces               []Piece
}

// Piece is bytes of the file at an offset.
type Piece struct {
	Off   int64
	Bytes []byte
}

// Versioned says whether the entry names a version of the file: without an ETag or a
// Last-Modified a replaced file of the same size would go unnoticed, so such a file is not
// kept.
func (t *Tail) Versioned() bool { return t.ETag != "" || t.LastModified != "" }

// Bytes returns the total length of the pieces.
func (t *Tail) Bytes() int64 {
	var n int64
	for _, p := range t.Pieces {
		n += int64(len(p.Bytes))
	}
	return n
}

var errTail = errors.New("metacache: malformed tail entry")

// MarshalTail encodes t (the payload of an entry).
func MarshalTail(t *Tail) []byte {
	b := binary.AppendVarint(nil, t.Size)
	b = appendString(b, t.ETag)
	b = appendString(b, t.LastModified)
	b = binary.AppendVarint(b, t.Requests)
	b = binary.AppendVarint(b, t.RoundTrips)
	b = binary.AppendUvarint(b, uint64(len(t.Pieces)))
	for _, p := range t.Pieces {
		b = binary.AppendVarint(b, p.Off)
		b = appendString(b, string(p.Bytes))
	}
	return b
}

// UnmarshalTail decodes a payload of MarshalTail. Pieces must lie inside the file and in
// order; the Bytes alias b.
func UnmarshalTail(b []byte) (*Tail, error) {
	d := dec{b: b}
	t := &Tail{Size: d.varint()}
	t.ETag, t.LastModified = string(d.bytes()), string(d.bytes())
	t.Requests, t.RoundTrips = d.varint(), d.varint()
	n := d.uvarint()
	if d.bad || t.Size <= 0 || n > uint64(len(d.b)) {
		return nil, errTail
	}
	end := int64(-1)
	for range n {
		p := Piece{Off: d.varint(), Bytes: d.bytes()}
		if d.bad || p.Off < end || p.Off < 0 || p.Off+int64(len(p.Bytes)) > t.Size {
			return nil, errTail
		}
		end = p.Off + int64(len(p.Bytes))
		t.Pieces = append(t.Pieces, p)
	}
	if len(d.b) != 0 {
		return nil, errTail
	}
	return t, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

type dec struct {
	b   []byte
	bad bool
}

func (d *dec) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) bytes() []byte {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

// Add keeps b at off, merging it with the pieces it overlaps or touches, so that the pieces
// stay sorted and disjoint. b is copied.
func (t *Tail) Add(off int64, b []byte) {
	lo, hi := off, off+int64(len(b))
	var out []Piece
	var merged []Piece
	for _, p := range t.Pieces {
		if p.Off+int64(len(p.Bytes)) < lo || p.Off > hi {
			out = append(out, p)
			continue
		}
		merged = append(merged, p)
	}
	for _, p := range merged {
		lo, hi = min(lo, p.Off), max(hi, p.Off+int64(len(p.Bytes)))
	}
	buf := make([]byte, hi-lo)
	for _, p := range merged {
		copy(buf[p.Off-lo:], p.Bytes)
	}
	copy(buf[off-lo:], b)
	np := Piece{Off: lo, Bytes: buf}
	i := 0
	for i < len(out) && out[i].Off < lo {
		i++
	}
	t.Pieces = append(out[:i:i], append([]Piece{np}, out[i:]...)...)
}

// Covers reports whether the pieces hold every byte of [off, end).
func (t *Tail) Covers(off, end int64) bool {
	for _, p := range t.Pieces {
		if p.Off <= off && end <= p.Off+int64(len(p.Bytes)) {
			return true
		}
	}
	return off >= end
}
