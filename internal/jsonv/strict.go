package jsonv

import (
	"encoding/base64"
	"errors"
	"strconv"
)

// Unknown is an error naming the first member of the object not among names (nil when there
// is none, or the value is not an object), as a json.Decoder with DisallowUnknownFields
// refuses it ("unknown field \"x\""): options refuse what they do not know, so a misspelt
// one is not ignored.
func (o *Obj) Unknown(names ...string) error {
	if o.v == nil {
		return nil
	}
	for _, k := range o.v.Keys {
		known := false
		for _, n := range names {
			known = known || k == n
		}
		if !known {
			return errors.New("unknown field " + strconv.Quote(k))
		}
	}
	return nil
}

// Bytes is member key as encoding/json decodes a []byte: a base64 string (standard, padded;
// line breaks ignored), or an array of integers 0–255 (a null element reads as 0); nil when
// absent or null.
func (o *Obj) Bytes(key string) []byte {
	m := o.Get(key)
	if m == nil {
		return nil
	}
	switch m.Kind {
	case String:
		b := make([]byte, base64.StdEncoding.DecodedLen(len(m.S)))
		n, err := base64.StdEncoding.Decode(b, []byte(m.S))
		if err != nil {
			o.Fail(key, "base64", String)
			return nil
		}
		return b[:n]
	case Array:
		b := make([]byte, len(m.Elems))
		for i := range m.Elems {
			e := &m.Elems[i]
			if e.Kind == Null {
				continue
			}
			n, ok := e.Int64()
			if !ok || n < 0 || n > 255 {
				o.Fail(key, "base64 or bytes", e.Kind)
				return nil
			}
			b[i] = byte(n)
		}
		return b
	}
	o.Fail(key, "base64", m.Kind)
	return nil
}
