package jsonv

import "strings"

// HasBig reports whether a number anywhere in v is beyond float64: encoding/json refuses
// such a document when it decodes numbers into float64 or any, where Parse keeps it.
func (v *Value) HasBig() bool {
	if v == nil {
		return false
	}
	if v.Kind == Number && v.Big {
		return true
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

// Quirky reports whether a document leans on what encoding/json does with struct fields
// and Obj does not: a member whose name matches one of names only without regard to case,
// or a member repeated (encoding/json merges a repeated object into the first). The
// differential tests against encoding/json skip such documents.
func (v *Value) Quirky(names []string) bool {
	for i, k := range v.Keys {
		for _, f := range names {
			if k != f && strings.EqualFold(k, f) {
				return true
			}
		}
		for _, k2 := range v.Keys[:i] {
			if strings.EqualFold(k, k2) {
				return true
			}
		}
	}
	for i := range v.Vals {
		if v.Vals[i].Quirky(names) {
			return true
		}
	}
	for i := range v.Elems {
		if v.Elems[i].Quirky(names) {
			return true
		}
	}
	return false
}
