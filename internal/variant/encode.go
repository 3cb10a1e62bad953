//go:build !pqscan_lean

package variant

import (
	"bytes"
	"slices"

	"github.com/pqscan/pqscan/internal/errf"
)

// This file re-encodes shredded columns as Variant values: VariantShredding.md § Reconstructing
// a Shredded Variant, written with VariantEncoding.md § Value encoding.

// encoder writes unshredded values into buf, one row after the other.
type encoder struct {
	buf  []byte
	offs []int32
	meta rowMeta
	ents []entry // the fields or elements of the objects and arrays being built, innermost last
	hdr  []byte  // scratch for one container header
}

// entry is one field or element already written to buf, at start bytes after its container's data.
type entry struct {
	name  []byte
	id    int
	start int
}

// pair appends the value of p at row i; it reports false when the value is missing.
func (e *encoder) pair(p *pair, i int) (bool, error) {
	tv := p.typed != nil && p.typed.l.valid(i)
	vv := p.value != nil && p.value.valid(i)
	if tv {
		t := p.typed
		if vv && t.kind != kindObject {
			return false, errf.Errorf("%w: value and typed_value both set outside a shredded object", ErrShredding)
		}
		switch t.kind {
		case kindObject:
			var vb []byte
			if vv {
				vb = p.value.bytes(i)
			}
			return true, e.object(t, i, vb)
		case kindArray:
			return true, e.array(t, i)
		}
		e.primitive(t, i)
		return true, nil
	}
	if vv {
		b := p.value.bytes(i)
		n, err := valueSize(b)
		if err != nil {
			return false, err
		}
		e.buf = append(e.buf, b[:n]...)
		return true, nil
	}
	return false, nil
}

// object writes a shredded object, merged with the fields of vb (a partially shredded
// object's value) when vb is not nil.
func (e *encoder) object(t *typed, i int, vb []byte) error {
	base, mark := len(e.ents), len(e.buf)
	defer func() { e.ents = e.ents[:base] }()
	for k := range t.fields {
		f := &t.fields[k]
		if !valid(f.grp, i) {
			continue // a null field group is a missing field
		}
		start := len(e.buf) - mark
		ok, err := e.pair(&f.p, i)
		if err != nil {
			return errf.Errorf("field %q: %w", f.name, err)
		}
		if !ok {
			continue
		}
		id, err := e.meta.id(f.name)
		if err != nil {
			return err
		}
		e.ents = append(e.ents, entry{name: f.name, id: id, start: start})
	}
	if vb != nil {
		if len(vb) == 0 || vb[0]&3 != basicObject {
			return errf.Errorf("%w: the value of a partially shredded object is not an object", ErrShredding)
		}
		c, err := parseContainer(vb)
		if err != nil {
			return err
		}
		m, err := e.meta.get()
		if err != nil {
			return err
		}
		for j := 0; j < c.n; j++ {
			id := c.id(j)
			name, err := m.key(id)
			if err != nil {
				return err
			}
			if t.shredded(name) {
				// The shredded column is the field's value, present or missing; a copy in
				// value breaks the spec, and is ignored as Iceberg's reader and the
				// parquet-testing cases do.
				continue
			}
			off := c.off(j)
			if off >= len(c.fields) {
				return errf.Errorf("%w: field offset %d beyond %d bytes", ErrValue, off, len(c.fields))
			}
			n, err := valueSize(c.fields[off:])
			if err != nil {
				return err
			}
			e.ents = append(e.ents, entry{name: name, id: id, start: len(e.buf) - mark})
			e.buf = append(e.buf, c.fields[off:off+n]...)
		}
	}
	ents := e.ents[base:]
	slices.SortFunc(ents, func(a, b entry) int { return bytes.Compare(a.name, b.name) })
	for k := 1; k < len(ents); k++ {
		if bytes.Equal(ents[k-1].name, ents[k].name) {
			return errf.Errorf("%w: field %q repeated in value", ErrShredding, ents[k].name)
		}
	}
	maxID := 0
	for _, x := range ents {
		maxID = max(maxID, x.id)
	}
	return e.finish(basicObject, mark, ents, sizeFor(maxID))
}

// array writes a shredded array; a missing element becomes Variant null.
func (e *encoder) array(t *typed, i int) error {
	base, mark := len(e.ents), len(e.buf)
	defer func() { e.ents = e.ents[:base] }()
	a := t.l.a
	for j := int(a.Offsets[i]); j < int(a.Offsets[i+1]); j++ {
		start := len(e.buf) - mark
		ok := false
		if valid(t.elemA, j) {
			var err error
			if ok, err = e.pair(t.elem, j); err != nil {
				return errf.Errorf("element %d: %w", j-int(a.Offsets[i]), err)
			}
		}
		if !ok {
			e.buf = append(e.buf, primNull<<2)
		}
		e.ents = append(e.ents, entry{start: start})
	}
	return e.finish(basicArray, mark, e.ents[base:], 0)
}

// finish inserts the header of the object or array whose field data starts at buf[mark:]
// (VariantEncoding.md § Value Data for Object / for Array), with the smallest sizes.
func (e *encoder) finish(basic byte, mark int, ents []entry, idSize int) error {
	dataLen := len(e.buf) - mark
	if dataLen >= 1<<32 {
		return errf.Errorf("%w: object or array beyond 4 GiB", ErrTooLarge)
	}
	offSz, n := sizeFor(dataLen), len(ents)
	large := byte(0)
	if n > 255 {
		large = 1
	}
	h := e.hdr[:0]
	if basic == basicObject {
		h = append(h, basic|byte(offSz-1)<<2|byte(idSize-1)<<4|large<<6)
	} else {
		h = append(h, basic|byte(offSz-1)<<2|large<<4)
	}
	if large == 1 {
		h = putLE(h, n, 4)
	} else {
		h = append(h, byte(n))
	}
	if basic == basicObject {
		for _, x := range ents {
			h = putLE(h, x.id, idSize)
		}
	}
	for _, x := range ents {
		h = putLE(h, x.start, offSz)
	}
	h = putLE(h, dataLen, offSz)
	e.hdr = h
	e.buf = append(e.buf, h...)
	copy(e.buf[mark+len(h):], e.buf[mark:mark+dataLen])
	copy(e.buf[mark:], h)
	return nil
}

// primitive writes the Variant primitive of a typed_value at row i.
func (e *encoder) primitive(t *typed, i int) {
	l := &t.l
	switch t.prim {
	case primTrue:
		if l.bit(i) {
			e.buf = append(e.buf, primTrue<<2)
		} else {
			e.buf = append(e.buf, primFalse<<2)
		}
	case primInt8, primInt16, primInt32, primInt64, primFloat, primDouble, primDate, primTime,
		primTimestamp, primTimestampNT, primTimestampNs, primTimestampNN, primUUID:
		w := int(primSize[t.prim])
		e.buf = append(e.buf, byte(t.prim<<2))
		e.buf = append(e.buf, l.fixed(i, w)...)
	case primDecimal4, primDecimal8, primDecimal16:
		d := l.fixed(i, 16)
		lo, hi := le64(d), le64(d[8:])
		prim := t.prim
		// A value too wide for the type its precision implies (invalid data) takes the next
		// wider type rather than being truncated.
		if prim == primDecimal4 && (hi != uint64(int64(lo)>>63) || int64(lo) != int64(int32(lo))) {
			prim = primDecimal8
		}
		if prim == primDecimal8 && hi != uint64(int64(lo)>>63) {
			prim = primDecimal16
		}
		e.buf = append(e.buf, byte(prim<<2), byte(t.scale))
		e.buf = append(e.buf, d[:primSize[prim]-1]...)
	case primBinary, primString:
		b := l.bytes(i)
		if t.prim == primString && len(b) < 64 {
			e.buf = append(e.buf, byte(len(b))<<2|basicShortString)
		} else {
			e.buf = append(e.buf, byte(t.prim<<2))
			e.buf = putLE(e.buf, len(b), 4)
		}
		e.buf = append(e.buf, b...)
	}
}

// rowMeta is the metadata of the row being unshredded, with the field names it lacks.
type rowMeta struct {
	raw    []byte
	m      metadata
	err    error
	parsed bool
	added  [][]byte
	ids    map[string]int
}

func (r *rowMeta) reset(raw []byte) {
	r.raw, r.parsed, r.added = raw, false, r.added[:0]
	clear(r.ids)
}

func (r *rowMeta) get() (*metadata, error) {
	if !r.parsed {
		r.m, r.err = parseMetadata(r.raw)
		r.parsed = true
	}
	return &r.m, r.err
}

// id is the dictionary id of name, appending it to the dictionary when absent.
func (r *rowMeta) id(name []byte) (int, error) {
	if id, ok := r.ids[string(name)]; ok {
		return id, nil
	}
	m, err := r.get()
	if err != nil {
		return 0, err
	}
	id := -1
	for j := 0; j < m.n; j++ {
		k, err := m.key(j)
		if err != nil {
			return 0, err
		}
		if bytes.Equal(k, name) {
			id = j
			break
		}
	}
	if id < 0 {
		id = m.n + len(r.added)
		r.added = append(r.added, name)
	}
	if r.ids == nil {
		r.ids = map[string]int{}
	}
	r.ids[string(name)] = id
	return id, nil
}

// rewritten is the metadata with the added names appended and sorted_strings cleared.
func (r *rowMeta) rewritten() []byte {
	m := &r.m
	n := m.n + len(r.added)
	total := m.total
	for _, a := range r.added {
		total += len(a)
	}
	osz := sizeFor(max(total, n))
	out := make([]byte, 0, 1+(n+2)*osz+total)
	out = append(out, 1|byte(osz-1)<<6)
	out = putLE(out, n, osz)
	for j := 0; j <= m.n; j++ {
		out = putLE(out, le(m.b[m.offs+j*m.osz:], m.osz), osz)
	}
	end := m.total
	for _, a := range r.added {
		end += len(a)
		out = putLE(out, end, osz)
	}
	out = append(out, m.b[m.strs:m.strs+m.total]...)
	for _, a := range r.added {
		out = append(out, a...)
	}
	return out
}
