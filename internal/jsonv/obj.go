package jsonv

import "strconv"

// Obj reads the members of one object by name, as encoding/json decodes a struct: an absent
// or null member leaves the zero value, a member of another type is an error (the first one
// is kept, and later reads return zero values), unknown members are ignored. The objects
// reached through Child and Objs share their root's error, so one check covers a tree.
//
//	o := jsonv.NewObj(v, "add")
//	path, size := o.Str("path"), o.Int("size")
//	if err := o.Err(); err != nil { … }
type Obj struct {
	v    *Value
	name string
	err  *error
}

// NewObj reads v as an object named name in messages. A nil or null v reads as an object
// without members; any other non-object is an error.
func NewObj(v *Value, name string) *Obj {
	return newObj(v, name, new(error))
}

func newObj(v *Value, name string, err *error) *Obj {
	o := &Obj{v: v, name: name, err: err}
	if !v.IsNull() && v.Kind != Object && *err == nil {
		*err = &TypeError{Path: name, Want: "an object", Got: v.Kind}
	}
	return o
}

// Err is the first error of this object's tree, nil when every member read had its type.
func (o *Obj) Err() error { return *o.err }

// Name is the object's name in messages ("add", "files[2].stats.x").
func (o *Obj) Name() string { return o.name }

// Value is the object's value itself (nil when absent).
func (o *Obj) Value() *Value { return o.v }

// Fail records that member key holds got where want was needed (unless an error is kept).
func (o *Obj) Fail(key, want string, got Kind) {
	if *o.err == nil {
		*o.err = &TypeError{Path: o.Path(key), Want: want, Got: got}
	}
}

// Failf records err (unless an error is kept): a member's value is of its type but wrong.
func (o *Obj) Failf(err error) {
	if *o.err == nil {
		*o.err = err
	}
}

// Path is the name of member key in messages ("add.path").
func (o *Obj) Path(key string) string {
	if o.name == "" {
		return key
	}
	return o.name + "." + key
}

// Get is member key's value, nil when it is absent or null (or an error is kept).
func (o *Obj) Get(key string) *Value {
	if *o.err != nil || o.v.IsNull() || o.v.Kind != Object {
		return nil
	}
	m := o.v.Get(key)
	if m.IsNull() {
		return nil
	}
	return m
}

// Has reports whether member key is present and not null.
func (o *Obj) Has(key string) bool { return o.Get(key) != nil }

// Str is member key's string ("" when absent or null).
func (o *Obj) Str(key string) string {
	s, _ := o.OptStr(key)
	return s
}

// OptStr is member key's string and whether it is present and not null.
func (o *Obj) OptStr(key string) (string, bool) {
	m := o.Get(key)
	if m == nil {
		return "", false
	}
	if m.Kind != String {
		o.Fail(key, "a string", m.Kind)
		return "", false
	}
	return m.S, true
}

// Int is member key's integer (0 when absent or null).
func (o *Obj) Int(key string) int64 {
	n, _ := o.OptInt(key)
	return n
}

// OptInt is member key's integer and whether it is present and not null. A number with a
// fraction or exponent, or beyond int64, is an error, as encoding/json decodes an int64.
func (o *Obj) OptInt(key string) (int64, bool) {
	m := o.Get(key)
	if m == nil {
		return 0, false
	}
	n, ok := m.Int64()
	if !ok {
		o.Fail(key, "an integer", m.Kind)
		return 0, false
	}
	return n, true
}

// Float is member key's number (0 when absent or null).
func (o *Obj) Float(key string) float64 {
	m := o.Get(key)
	if m == nil {
		return 0
	}
	f, ok := m.Float64()
	if !ok {
		o.Fail(key, "a number", m.Kind)
	}
	return f
}

// Bool is member key's boolean (false when absent or null).
func (o *Obj) Bool(key string) bool {
	b, _ := o.OptBool(key)
	return b
}

// OptBool is member key's boolean and whether it is present and not null.
func (o *Obj) OptBool(key string) (bool, bool) {
	m := o.Get(key)
	if m == nil {
		return false, false
	}
	if m.Kind != Bool {
		o.Fail(key, "a boolean", m.Kind)
		return false, false
	}
	return m.B, true
}

// Strs is member key's array of strings (nil when absent or null; a null element reads as
// "", as encoding/json decodes a []string).
func (o *Obj) Strs(key string) []string {
	m := o.Get(key)
	if m == nil {
		return nil
	}
	if m.Kind != Array {
		o.Fail(key, "an array of strings", m.Kind)
		return nil
	}
	out := make([]string, len(m.Elems))
	for i := range m.Elems {
		switch e := &m.Elems[i]; e.Kind {
		case String:
			out[i] = e.S
		case Null:
		default:
			o.Fail(key, "an array of strings", e.Kind)
			return nil
		}
	}
	return out
}

// Ints is member key's array of integers (nil when absent or null; a null element reads as 0).
func (o *Obj) Ints(key string) []int64 {
	m := o.Get(key)
	if m == nil {
		return nil
	}
	if m.Kind != Array {
		o.Fail(key, "an array of integers", m.Kind)
		return nil
	}
	out := make([]int64, len(m.Elems))
	for i := range m.Elems {
		e := &m.Elems[i]
		if e.Kind == Null {
			continue
		}
		n, ok := e.Int64()
		if !ok {
			o.Fail(key, "an array of integers", e.Kind)
			return nil
		}
		out[i] = n
	}
	return out
}

// StrMap is member key's object of strings (nil when absent or null), as encoding/json
// decodes a map[string]string: a null value reads as "" (StrPtrMap tells null from "").
func (o *Obj) StrMap(key string) map[string]string {
	m := o.Get(key)
	if m == nil {
		return nil
	}
	if m.Kind != Object {
		o.Fail(key, "an object of strings", m.Kind)
		return nil
	}
	out := make(map[string]string, len(m.Keys))
	for i, k := range m.Keys {
		switch e := &m.Vals[i]; e.Kind {
		case String:
			out[k] = e.S
		case Null:
			out[k] = ""
		default:
			o.Fail(key, "an object of strings", e.Kind)
			return nil
		}
	}
	return out
}

// Objs is member key's array, each element read with NewObj (nil when absent or null).
func (o *Obj) Objs(key string) []*Obj {
	m := o.Get(key)
	if m == nil {
		return nil
	}
	if m.Kind != Array {
		o.Fail(key, "an array", m.Kind)
		return nil
	}
	out := make([]*Obj, len(m.Elems))
	for i := range m.Elems {
		out[i] = newObj(&m.Elems[i], o.Path(key)+"["+strconv.Itoa(i)+"]", o.err)
	}
	return out
}

// Child is member key read as an object (an object without members when absent or null).
func (o *Obj) Child(key string) *Obj {
	return newObj(o.Get(key), o.Path(key), o.err)
}
