package thrift

// This file holds the header readers for structs, lists, sets and maps, and Skip.

// FieldHeader reads a struct field header. prev is the id of the previous field in the same
// struct (0 at the start); the compact protocol stores small id increments in the high nibble.
// It returns typ == Stop at the end of the struct. For bool fields the value is the type
// (BoolTrue or BoolFalse) and no further bytes follow.
func (r *Reader) FieldHeader(prev int16) (id int16, typ Type, err error) {
	start := r.off
	b, err := r.Byte()
	if err != nil {
		return 0, Stop, err
	}
	typ = Type(b & 0x0f)
	if typ == Stop {
		return 0, Stop, nil
	}
	if !valid(typ) {
		return 0, Stop, r.errAt(ErrType, start)
	}
	if delta := int16(b >> 4); delta != 0 {
		return prev + delta, typ, nil
	}
	id, err = r.I16()
	return id, typ, err
}

// ReadStruct reads one struct: it calls fn for every field until STOP. fn must consume the
// field's value (read it, or call Skip(typ)); ReadStruct enforces MaxDepth.
func (r *Reader) ReadStruct(fn func(id int16, typ Type) error) error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	var prev int16
	for {
		id, typ, err := r.FieldHeader(prev)
		if err != nil {
			return err
		}
		if typ == Stop {
			return nil
		}
		if err := fn(id, typ); err != nil {
			return err
		}
		prev = id
	}
}

func (r *Reader) enter() error {
	if r.depth >= MaxDepth {
		return r.errAt(ErrDepth, r.off)
	}
	r.depth++
	return nil
}

func (r *Reader) leave() { r.depth-- }

// ListHeader reads a list or set header and returns the element type and count. The count is
// guaranteed to satisfy n * (smallest encoding of elem) <= Remaining(), so a caller may
// allocate n elements without trusting the input further.
func (r *Reader) ListHeader() (elem Type, n int, err error) {
	start := r.off
	b, err := r.Byte()
	if err != nil {
		return Stop, 0, err
	}
	elem = Type(b & 0x0f)
	size := uint64(b >> 4)
	if size == 15 {
		if size, err = r.Uvarint(); err != nil {
			return Stop, 0, err
		}
	}
	if size == 0 {
		// The element type of an empty list is never used; tolerate writers that leave it 0.
		return elem, 0, nil
	}
	if !valid(elem) {
		return Stop, 0, r.errAt(ErrType, start)
	}
	if size > uint64(r.Remaining()/minSize(elem)) {
		return Stop, 0, r.errAt(ErrSize, start)
	}
	return elem, int(size), nil
}

// MapHeader reads a map header. As with ListHeader, n is checked against the remaining input
// (each entry takes at least the smallest key plus the smallest value encoding).
func (r *Reader) MapHeader() (key, val Type, n int, err error) {
	start := r.off
	size, err := r.Uvarint()
	if err != nil {
		return Stop, Stop, 0, err
	}
	if size == 0 {
		return Stop, Stop, 0, nil
	}
	b, err := r.Byte()
	if err != nil {
		return Stop, Stop, 0, err
	}
	key, val = Type(b>>4), Type(b&0x0f)
	if !valid(key) || !valid(val) {
		return Stop, Stop, 0, r.errAt(ErrType, start)
	}
	if size > uint64(r.Remaining()/(minSize(key)+minSize(val))) {
		return Stop, Stop, 0, r.errAt(ErrSize, start)
	}
	return key, val, int(size), nil
}

// Skip consumes one value of type typ that appears as a struct field (so a bool carries its
// value in the type and takes no bytes). Use it for unknown or unwanted fields.
func (r *Reader) Skip(typ Type) error { return r.skip(typ, false) }

// SkipElem consumes one value of type typ that appears as a list, set or map element (so a bool
// takes one byte).
func (r *Reader) SkipElem(typ Type) error { return r.skip(typ, true) }

func (r *Reader) skip(typ Type, elem bool) error {
	var err error
	switch typ {
	case BoolTrue, BoolFalse:
		if elem {
			_, err = r.Byte()
		}
	case I8:
		_, err = r.Byte()
	case I16, I32, I64:
		_, err = r.Uvarint()
	case Double:
		_, err = r.Double()
	case Binary:
		_, err = r.BinaryRef()
	case List, Set:
		err = r.skipList()
	case Map:
		err = r.skipMap()
	case Struct:
		err = r.ReadStruct(func(_ int16, t Type) error { return r.skip(t, false) })
	default:
		err = r.errAt(ErrType, r.off)
	}
	return err
}

func (r *Reader) skipList() error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	elem, n, err := r.ListHeader()
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := r.skip(elem, true); err != nil {
			return err
		}
	}
	return nil
}

func (r *Reader) skipMap() error {
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	k, v, n, err := r.MapHeader()
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := r.skip(k, true); err != nil {
			return err
		}
		if err := r.skip(v, true); err != nil {
			return err
		}
	}
	return nil
}

// Enter and Leave count one level of nesting for a caller that reads a struct's fields itself
// (a hand-written fast path) instead of through ReadStruct, so MaxDepth holds the same way:
// Enter fails past MaxDepth; every successful Enter must be paired with one Leave.
func (r *Reader) Enter() error { return r.enter() }

// Leave ends a level begun by Enter.
func (r *Reader) Leave() { r.leave() }
