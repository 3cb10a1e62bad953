// Copyright 2016, Joe Tsai. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE.md file.

package brotli

import "strings"

// The parts of github.com/dsnet/compress/internal/errors and .../internal the decoder uses.
// The code names are a switch rather than the original's map literal, which Go builds at
// init.

const (
	// Unknown indicates that there is no classification for this error.
	Unknown = iota
	// Internal indicates that this error is due to an internal bug.
	Internal
	// Invalid indicates that this error is due to the user misusing the API.
	Invalid
	// Deprecated indicates the use of a deprecated and unsupported feature.
	Deprecated
	// Corrupted indicates that the input stream is corrupted.
	Corrupted
	// Closed indicates that the handlers are closed.
	Closed
)

func codeName(c int) string {
	switch c {
	case Unknown:
		return "unknown error"
	case Internal:
		return "internal error"
	case Invalid:
		return "invalid argument"
	case Deprecated:
		return "deprecated format"
	case Corrupted:
		return "corrupted input"
	case Closed:
		return "closed handler"
	}
	return ""
}

// Error is an error of the decoder: its code, package and message.
type Error struct {
	Code int    // The error type
	Pkg  string // Name of the package where the error originated
	Msg  string // Descriptive message about the error (optional)
}

func (e Error) Error() string {
	var ss []string
	for _, s := range []string{e.Pkg, codeName(e.Code), e.Msg} {
		if s != "" {
			ss = append(ss, s)
		}
	}
	return strings.Join(ss, ": ")
}

// IsInvalid reports whether err is an Error with the Invalid code.
func IsInvalid(err error) bool {
	cerr, ok := err.(Error)
	return ok && cerr.Code == Invalid
}

// errPanic is used by Panic and Recover to ensure that only errors raised by
// Panic are recovered by Recover.
type errPanic struct{ e *error }

// Recover turns a panic of Panic into *err; any other panic goes on.
func Recover(err *error) {
	switch ex := recover().(type) {
	case nil:
		// Do nothing.
	case errPanic:
		*err = *ex.e
	default:
		panic(ex)
	}
}

// Panic raises err for the Recover of the decoder's entry points.
func Panic(err error) {
	panic(errPanic{&err})
}

// moveToFront is the move-to-front decoder of the context maps (RFC 7932 section 7.3).
type moveToFront struct {
	dict [256]uint8 // Mapping from indexes to values
	tail int        // Number of tail bytes that are already ordered
}

func (m *moveToFront) Decode(idxs []uint8) {
	for i := range m.dict[:256-m.tail] { // Reset dict to be identity
		m.dict[i] = uint8(i)
	}

	var max int
	for i, idx := range idxs {
		val := m.dict[idx] // Forward lookup val in dict
		idxs[i] = val

		max |= int(idx)
		copy(m.dict[1:], m.dict[:idx])
		m.dict[0] = val
	}
	m.tail = 256 - max - 1
}
