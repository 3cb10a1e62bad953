package prune

import (
	"encoding/base64"
	"math"
	"strconv"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
	"github.com/pqscan/pqscan/internal/jsonw"
)

// A Value crosses the wasm boundary as JSON (a partition or default value, a bound): its
// fields as they are, {"Kind":k,"I":i,"U":u,"F":f,"B":b}, with B in base64 (null when nil)
// and F also when it is NaN or infinite, which JSON numbers cannot hold, as the strings
// "NaN", "+Inf", "-Inf". The form is what encoding/json wrote for the struct, so both ends
// read what older ones wrote.

// AppendJSON appends v's JSON form to b.
func (v Value) AppendJSON(b []byte) []byte {
	b = strconv.AppendUint(append(b, `{"Kind":`...), uint64(v.Kind), 10)
	b = strconv.AppendInt(append(b, `,"I":`...), v.I, 10)
	b = strconv.AppendUint(append(b, `,"U":`...), v.U, 10)
	b = append(b, `,"F":`...)
	if f, ok := jsonw.Float(b, v.F); ok {
		b = f
	} else {
		b = append(append(append(b, '"'), strconv.FormatFloat(v.F, 'g', -1, 64)...), '"')
	}
	b = append(b, `,"B":`...)
	if v.B == nil {
		b = append(b, "null"...)
	} else {
		b = append(base64.StdEncoding.AppendEncode(append(b, '"'), v.B), '"')
	}
	return append(b, '}')
}

// MarshalJSON writes v's JSON form.
func (v Value) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

// UnmarshalJSON reads what MarshalJSON writes.
func (v *Value) UnmarshalJSON(b []byte) error {
	jv, err := jsonv.Parse(b)
	if err != nil {
		return errf.Errorf("%w: value: %w", ErrJSON, err)
	}
	*v, err = ValueFromJSON(&jv, "")
	return err
}

// ValueFromJSON reads a Value's JSON form from a parsed document, as encoding/json decoded
// the struct (a null or absent member is the zero value, unknown members are ignored, but
// F may not be null). name prefixes the members in messages ("Min.F"). Errors wrap ErrJSON.
func ValueFromJSON(jv *jsonv.Value, name string) (Value, error) {
	var v Value
	o := jsonv.NewObj(jv, name)
	if m := o.Get("Kind"); m != nil {
		k, err := strconv.ParseUint(string(m.Raw), 10, 8)
		if m.Kind != jsonv.Number || err != nil {
			o.Fail("Kind", "an integer 0..255", m.Kind)
		}
		v.Kind = Kind(k)
	}
	v.I = o.Int("I")
	if m := o.Get("U"); m != nil {
		u, err := strconv.ParseUint(string(m.Raw), 10, 64)
		if m.Kind != jsonv.Number || err != nil {
			o.Fail("U", "an unsigned integer", m.Kind)
		}
		v.U = u
	}
	if jv != nil && jv.Kind == jsonv.Object {
		if m := jv.Get("F"); m != nil {
			v.F = jsonFloat(o, m)
		}
	}
	switch m := o.Get("B"); {
	case m == nil:
	case m.Kind == jsonv.String:
		b, err := base64.StdEncoding.DecodeString(m.S)
		if err != nil {
			o.Failf(errf.Errorf("%s: %w", o.Path("B"), err))
		}
		v.B = b
	case m.Kind == jsonv.Array: // encoding/json reads a []byte from an array of bytes too
		v.B = make([]byte, len(m.Elems))
		for i := range m.Elems {
			e := &m.Elems[i]
			if e.Kind == jsonv.Null {
				continue
			}
			n, err := strconv.ParseUint(string(e.Raw), 10, 8)
			if e.Kind != jsonv.Number || err != nil {
				o.Fail("B", "base64 or an array of bytes", e.Kind)
			}
			v.B[i] = byte(n)
		}
	default:
		o.Fail("B", "base64 or an array of bytes", m.Kind)
	}
	if err := o.Err(); err != nil {
		return Value{}, errf.Errorf("%w: value %w", ErrJSON, err)
	}
	return v, nil
}

// jsonFloat reads F: a number, or "NaN", "+Inf" or "-Inf" (any form strconv reads as NaN
// or an infinity); null is an error, as it was for the encoding/json reader.
func jsonFloat(o *jsonv.Obj, m *jsonv.Value) float64 {
	switch m.Kind {
	case jsonv.String, jsonv.Null:
		x, err := strconv.ParseFloat(m.S, 64)
		if err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return x
		}
		o.Failf(errf.Errorf("%s: %s is not a float", o.Path("F"), m.Raw))
	case jsonv.Number:
		if f, ok := m.Float64(); ok {
			return f
		}
		o.Failf(errf.Errorf("%s: %s is beyond float64", o.Path("F"), m.Raw))
	default:
		o.Fail("F", "a number", m.Kind)
	}
	return 0
}
