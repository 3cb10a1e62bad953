package httprange

import "errors"

// Sentinel errors of the Cache. The engine passes host-supplied offsets straight to Push, so
// bad ones are errors, never panics.
var (
	// ErrNegativeOffset: a piece pushed at a negative offset (a suffix range must be resolved
	// to its real offset by the host first).
	ErrNegativeOffset = errors.New("httprange: negative offset")
	// ErrOverflow: off+len(b) does not fit an int64.
	ErrOverflow = errors.New("httprange: offset overflow")
)
