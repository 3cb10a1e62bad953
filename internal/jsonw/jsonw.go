// Package jsonw appends JSON without reflection, byte for byte what encoding/json's Marshal
// writes for the same values (its string escaping, HTML characters included, and its float
// format), for the wire forms a wasm host reads on every query: the file metadata and the scan
// report (internal/scan's AppendJSON methods).
//
// Why not encoding/json: in the wasm module the first Marshal of a type runs reflect's and
// encoding/json's code for the first time, which V8 compiles function by function at its first
// call, on the thread that waits for the answer (in Node's baseline tier a fresh instance's
// first open took 5–10 ms less without it; in Chromium's cold page the gain was below the
// noise; BENCHMARKS.md, "The metadata and report JSON without reflection"). Each type's encoder is a test away from Marshal: the
// differential tests fill every field through reflection, so a field added to a type and not to
// its encoder fails them.
//
// The code is written for size, not speed (it runs once per query): few appends, no generics,
// every function out of line (go:noinline). In Go's wasm code each append and call is a few
// hundred bytes, and the module has a size budget.
package jsonw

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Object appends one JSON object: Begin, then one member after the other (Key and the value,
// or Int, Str, Strings), then End.
type Object struct {
	B     []byte
	empty bool
}

// Begin starts an object at the end of b.
//
//go:noinline
func Begin(b []byte) Object {
	return Object{B: append(b, '{'), empty: true}
}

// End closes the object and returns the bytes.
//
//go:noinline
func (o *Object) End() []byte {
	return append(o.B, '}')
}

// Key writes a member's name and colon; the value is the caller's to append to o.B. name is
// the member's name already written as JSON with a comma before it and the colon after it
// (`,"fileSize":`): tables of members keep them in that form, so that a member costs
// one append.
//
//go:noinline
func (o *Object) Key(name string) {
	if o.empty {
		name = name[1:]
		o.empty = false
	}
	o.B = append(o.B, name...)
}

// AnyKey writes the member name k, escaped as a string (a map key), and its colon.
//
//go:noinline
func (o *Object) AnyKey(k string) {
	if !o.empty {
		o.B = append(o.B, ',')
	}
	o.empty = false
	o.B = append(String(o.B, k), ':')
}

// Int writes name: v (name as Key takes it).
//
//go:noinline
func (o *Object) Int(name string, v int64) {
	o.Key(name)
	o.B = strconv.AppendInt(o.B, v, 10)
}

// Str writes name: v (name as Key takes it).
//
//go:noinline
func (o *Object) Str(name, v string) {
	o.Key(name)
	o.B = String(o.B, v)
}

// Strings writes name: v as an array of strings, null for a nil slice as Marshal writes it
// (name as Key takes it).
//
//go:noinline
func (o *Object) Strings(name string, v []string) {
	o.Key(name)
	o.B = Strings(o.B, v)
}

// Flag writes name: true when v, nothing otherwise (an omitempty boolean; name as Key takes
// it).
//
//go:noinline
func (o *Object) Flag(name string, v bool) {
	if v {
		o.Key(name)
		o.B = append(o.B, "true"...)
	}
}

// Strings appends v as Marshal writes a []string: null when nil.
func Strings(b []byte, v []string) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	sep := byte('[')
	for _, s := range v {
		b = String(append(b, sep), s)
		sep = ','
	}
	if sep == '[' {
		b = append(b, '[')
	}
	return append(b, ']')
}

// ctl holds the \u00XX escape of each byte below 0x20, 6 bytes apiece.
const ctl = `\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f` +
	`\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f`

// String appends s as a JSON string the way encoding/json does: '"', '\\', control
// characters, '<', '>', '&', U+2028 and U+2029 escaped, and each byte of invalid UTF-8 as
// \ufffd.
//
//go:noinline
func String(b []byte, s string) []byte { return appendString(b, s, true) }

// StringNoHTML appends s as String does but leaves '<', '>' and '&' as they are, as an
// encoding/json Encoder does after SetEscapeHTML(false): for forms people read, where
// "<=" is clearer than "\u003c=".
//
//go:noinline
func StringNoHTML(b []byte, s string) []byte { return appendString(b, s, false) }

func appendString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c, size := s[i], 1
		var esc string
		switch {
		case c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&'):
			i++
			continue
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\b':
			esc = `\b`
		case c == '\f':
			esc = `\f`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c < 0x20:
			esc = ctl[6*int(c) : 6*int(c)+6]
		case c == '<':
			esc = `\u003c`
		case c == '>':
			esc = `\u003e`
		case c == '&':
			esc = `\u0026`
		default:
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				esc = `\ufffd`
			case r == '\u2028':
				esc = `\u2028`
			case r == '\u2029':
				esc = `\u2029`
			default:
				i += size
				continue
			}
		}
		b = append(append(b, s[start:i]...), esc...)
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// Float appends f as encoding/json writes a float64: the shortest decimal that reads back
// as f, in exponent form below 1e-6 and from 1e21 on, with a one-digit negative exponent
// unpadded (1e-7, not 1e-07). ok is false for NaN and ±Inf, which JSON cannot hold (Marshal
// fails on them); b is then unchanged.
//
//go:noinline
func Float(b []byte, f float64) (_ []byte, ok bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
