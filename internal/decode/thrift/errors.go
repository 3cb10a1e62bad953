package thrift

import "errors"

// Sentinel errors. Every error returned by a Reader wraps one of these with the byte offset at
// which the problem was found, so that callers can test with errors.Is and humans can locate
// the damage in a hex dump.
var (
	// ErrTruncated means the input ended in the middle of a value.
	ErrTruncated = errors.New("thrift: truncated input")
	// ErrDepth means structs, lists or maps were nested deeper than MaxDepth. Parquet's own
	// structures nest at most a handful of levels; deep nesting only comes from hostile input
	// and would otherwise exhaust the stack.
	ErrDepth = errors.New("thrift: nesting too deep")
	// ErrVarint means a varint was longer than its type allows or overflowed it.
	ErrVarint = errors.New("thrift: malformed varint")
	// ErrType means a compact-protocol type id that does not exist (or is not allowed where it
	// appeared, such as STOP as a list element type).
	ErrType = errors.New("thrift: invalid type")
	// ErrSize means a negative collection or binary size, or one that cannot fit in the bytes
	// that remain. It is reported before anything is allocated.
	ErrSize = errors.New("thrift: size exceeds remaining input")
)
