// Package jsonv reads JSON into a tree of values, without reflection.
//
// Why not encoding/json: the wasm modules decode Delta logs, Iceberg metadata, Avro schemas,
// predicates and options, and encoding/json's decoder keeps reflect, fmt's printer and their
// type tables in the module (~80 KB of the brotli-compressed module, BENCHMARKS.md "Module
// size"). The tree is small code, and the decoders over it say in plain Go which members
// they read. It reads what encoding/json reads (a differential fuzz target checks the two
// agree); where encoding/json matches a struct field's name without regard to case, the
// decoders here match it exactly, as the Delta and Iceberg specifications and their
// reference readers (serde in delta-kernel-rs and iceberg-rust) do.
package jsonv

import "strconv"

// Kind is a JSON value's type.
type Kind uint8

const (
	Null Kind = iota + 1
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"", "null", "a boolean", "a number", "a string", "an array", "an object"}

// String names the kind as messages use it ("a number").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind " + strconv.Itoa(int(k))
}

// Value is one parsed value: S for strings, N for numbers (Big: beyond float64, an error only
// where the number is used as a float, as encoding/json decodes it), B for booleans, Elems for
// arrays, Keys/Vals for objects (in order; a repeated key's last value wins in Get, as
// encoding/json decodes it), Raw the value's bytes as written (it aliases the parsed input).
type Value struct {
	Kind  Kind
	S     string
	N     float64
	Big   bool
	B     bool
	Elems []Value
	Keys  []string
	Vals  []Value
	Raw   []byte
}

// Get is the value of member key of an object, nil when absent (or v is not an object).
func (v *Value) Get(key string) *Value {
	if v == nil {
		return nil
	}
	for i := len(v.Keys) - 1; i >= 0; i-- {
		if v.Keys[i] == key {
			return &v.Vals[i]
		}
	}
	return nil
}

// IsNull reports whether v is absent (nil) or JSON null.
func (v *Value) IsNull() bool { return v == nil || v.Kind == Null }

// Int64 is a number written as an integer that fits int64 (no fraction or exponent), as
// encoding/json decodes one into an int64.
func (v *Value) Int64() (int64, bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v.Raw), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Float64 is a number within float64's range.
func (v *Value) Float64() (float64, bool) {
	if v == nil || v.Kind != Number || v.Big {
		return 0, false
	}
	return v.N, true
}

// Str is a string's value.
func (v *Value) Str() (string, bool) {
	if v == nil || v.Kind != String {
		return "", false
	}
	return v.S, true
}

// TypeError says a member holds a value of another type than its reader wants.
type TypeError struct {
	Path string // "add.size": the object's name and the member's
	Want string // "an integer"
	Got  Kind
}

func (e *TypeError) Error() string {
	return e.Path + ": want " + e.Want + ", got " + e.Got.String()
}

// SyntaxError says where a document stops being JSON.
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string {
	return "invalid JSON: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}
