//go:build !pqscan_lean

package scan

import (
	"strconv"

	"github.com/pqscan/pqscan/internal/errf"
	"github.com/pqscan/pqscan/internal/jsonv"
)

// decodeOptionsJSON is DecodeOptions for what flatjson does not take (nulls, repeated
// members, numbers with a fraction, errors), read through jsonv as encoding/json decoded the
// struct: a null leaves its field as it is (a null array clears it), a repeated member's last
// value counts, a value of another type and an unknown member are errors. Names match
// exactly, where encoding/json also took "Limit" for "limit": the bridges write them as
// documented. What follows the object is an error too (encoding/json's Decoder did not read
// it; the lean module never took it).
func decodeOptionsJSON(raw []byte) (Options, error) {
	var o Options
	v, err := jsonv.Parse(raw)
	if err != nil {
		return o, err
	}
	switch v.Kind {
	case jsonv.Null:
		return o, nil
	case jsonv.Object:
	default:
		return o, errf.Errorf("want an object, got %s", v.Kind)
	}
	for i, k := range v.Keys {
		m := &v.Vals[i]
		f := o.field(k)
		want := ""
		switch {
		case f == optField{}:
			return Options{}, errf.Errorf("unknown field %q", k)
		case m.Kind == jsonv.Null:
			if f.ss != nil {
				*f.ss = nil
			}
		case f.i != nil || f.n != nil:
			n, ok := m.Int64()
			switch {
			case !ok:
				want = "an integer"
			case f.i != nil:
				*f.i = n
			case int64(int(n)) != n:
				want = "an integer of " + strconv.Itoa(strconv.IntSize) + " bits"
			default:
				*f.n = int(n)
			}
		case f.s != nil:
			if m.Kind != jsonv.String {
				want = "a string"
			}
			*f.s = m.S
		case f.b != nil:
			if m.Kind != jsonv.Bool {
				want = "a boolean"
			}
			*f.b = m.B
		default:
			if err := stringsOf(k, m, f.ss); err != nil {
				return Options{}, err
			}
		}
		if want != "" {
			return Options{}, errf.Errorf("%s: want %s, got %s", k, want, m.Kind)
		}
	}
	return o, nil
}

// stringsOf sets *ss to member k's strings (a null element reads as "").
func stringsOf(k string, m *jsonv.Value, ss *[]string) error {
	if m.Kind != jsonv.Array {
		return errf.Errorf("%s: want an array of strings, got %s", k, m.Kind)
	}
	out := make([]string, len(m.Elems))
	for i := range m.Elems {
		switch e := &m.Elems[i]; e.Kind {
		case jsonv.String:
			out[i] = e.S
		case jsonv.Null:
		default:
			return errf.Errorf("%s[%d]: want a string, got %s", k, i, e.Kind)
		}
	}
	*ss = out
	return nil
}
