// Package thrift reads the Thrift compact protocol from a byte slice.
//
// It implements only what Parquet metadata needs: decoding (never encoding) of structs, unions,
// lists, sets, maps and scalars from an in-memory []byte, with no io.Reader and no reflection.
// The input is treated as hostile: every read is bounds-checked, nesting is limited to
// MaxDepth, and every collection or binary size is checked against the remaining input before
// the caller allocates anything for it. Errors carry the byte offset where decoding failed.
//
// Spec: https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
//
// Non-goals: writing, the binary protocol, field-id-to-name reflection, and the UUID type
// (Parquet does not use it).
package thrift

import "strconv"

// Type is a compact-protocol type id as it appears in field headers and collection headers.
type Type uint8

// Compact protocol type ids. In a field header a bool's value is carried in the type itself
// (BoolTrue / BoolFalse); as a collection element either id may be used as the element type and
// each element is then one byte.
const (
	Stop      Type = 0
	BoolTrue  Type = 1
	BoolFalse Type = 2
	I8        Type = 3
	I16       Type = 4
	I32       Type = 5
	I64       Type = 6
	Double    Type = 7
	Binary    Type = 8
	List      Type = 9
	Set       Type = 10
	Map       Type = 11
	Struct    Type = 12
)

var typeNames = [...]string{"STOP", "BOOL_TRUE", "BOOL_FALSE", "I8", "I16", "I32", "I64", "DOUBLE",
	"BINARY", "LIST", "SET", "MAP", "STRUCT"}

// String returns the compact-protocol name of t.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// IsBool reports whether t is one of the two bool type ids.
func (t Type) IsBool() bool { return t == BoolTrue || t == BoolFalse }

// minSize is the smallest number of bytes one value of type t can occupy as a collection
// element. It lets ListHeader and MapHeader reject sizes that cannot fit in the remaining input
// (an empty struct is one STOP byte; a bool element is one byte; a double is always 8).
func minSize(t Type) int {
	switch t {
	case Double:
		return 8
	default:
		return 1
	}
}

// valid reports whether t may appear as a value type (anything but STOP and unknown ids).
func valid(t Type) bool { return t >= BoolTrue && t <= Struct }
