package jsonv

// ObjMap is member key as an object whose members are objects, as encoding/json decodes a
// map[string]T of a struct T: its keys in order and each value read with NewObj, sharing o's
// error (nil, nil when absent or null; empty, not nil, for an empty object). A repeated key is there twice; the last one wins
// when the caller fills a map in order, as it does in encoding/json.
func (o *Obj) ObjMap(key string) ([]string, []*Obj) {
	m := o.Get(key)
	if m == nil {
		return nil, nil
	}
	if m.Kind != Object {
		o.Fail(key, "an object", m.Kind)
		return nil, nil
	}
	keys, out := make([]string, len(m.Keys)), make([]*Obj, len(m.Keys))
	for i, k := range m.Keys {
		keys[i], out[i] = k, newObj(&m.Vals[i], o.Path(key)+"."+k, o.err)
	}
	return keys, out
}

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
