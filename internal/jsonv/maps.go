package jsonv

// StrPtrMap is member key's object of strings as encoding/json decodes a map[string]*string:
// nil when absent or null, an empty map for {}, and a null value kept as a nil entry, so a
// caller can tell null from "" (Delta's partitionValues, where null is a null partition).
// A repeated key's last value wins.
func (o *Obj) StrPtrMap(key string) map[string]*string {
	m := o.Get(key)
	if m == nil {
		return nil
	}
	if m.Kind != Object {
		o.Fail(key, "an object of strings", m.Kind)
		return nil
	}
	out := make(map[string]*string, len(m.Keys))
	for i, k := range m.Keys {
		switch e := &m.Vals[i]; e.Kind {
		case String:
			out[k] = &e.S
		case Null:
			out[k] = nil
		default:
			o.Fail(key, "an object of strings", e.Kind)
			return nil
		}
	}
	return out
}

// HasBig reports whether v holds a number beyond float64's range at any depth: encoding/json
// refuses such a document when it decodes it into an any (as float64), where a reader of
// the tree would not notice.
func (v *Value) HasBig() bool {
	if v == nil {
		return false
	}
	if v.Kind == Number {
		return v.Big
	}
	for i := range v.Elems {
		if v.Elems[i].HasBig() {
			return true
		}
	}
	for i := range v.Vals {
		if v.Vals[i].HasBig() {
			return true
		}
	}
	return false
}
