// Package errf formats error messages the way fmt.Errorf and fmt.Sprintf do, for the subset of
// verbs and argument types the engine's messages use, without reflection.
//
// Why: every fmt.Sprintf call site keeps fmt's printer, and with it reflect, reachable in the
// wasm module; without them the lean module is ~45 KB brotli smaller (BENCHMARKS.md, "Module
// size: the lean module under 1 MB"). Both wasm modules (GOOS=wasip1, and -tags pqscan_lean)
// format with this package's printer; native builds call fmt, which they link anyway
// (lean.go, full.go).
// The printer's output is fmt's byte for byte for what is supported (errf_test.go compares
// them), and check_test.go proves statically that every call site in the module's packages
// passes only supported verbs and types.
//
// Supported: %d on the built-in integer types; %s, %v and %q on string, []byte, error and
// fmt.Stringer values (%v also on integers, bool and nil); %#x on the built-in unsigned
// integers and uintptr, and %0Nd, %0Nx on them; %w on errors (one or several, wrapped as
// fmt.Errorf wraps them); %%. No other flags, widths or precisions. An unsupported verb or
// argument prints fmt's "%!verb(" form with a placeholder for the value. A value of static type
// any (a recovered panic's) is printed by its dynamic type, so one errf does not support
// (neither string, error, Stringer, integer nor bool) gets the placeholder where fmt would print
// it. An Error or String method that panics (a nil pointer receiver, where fmt prints "<nil>")
// panics here.
package errf

import (
	"strconv"
	"unicode/utf8"
)

// Stringer is fmt.Stringer (not imported: see the package comment).
type Stringer interface{ String() string }

// errorf is fmt.Errorf for the supported subset.
func errorf(format string, args ...any) error {
	p := printer{errorf: true}
	p.printf(format, args)
	msg := string(p.buf)
	switch len(p.wrapped) {
	case 0:
		return &errorString{msg}
	case 1:
		return &wrapError{msg, p.wrapped[0]}
	}
	return &wrapErrors{msg, p.wrapped}
}

// sprintf is fmt.Sprintf for the supported subset.
func sprintf(format string, args ...any) string {
	var p printer
	p.printf(format, args)
	return string(p.buf)
}

type errorString struct{ s string }

func (e *errorString) Error() string { return e.s }

type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

type wrapErrors struct {
	msg  string
	errs []error
}

func (e *wrapErrors) Error() string   { return e.msg }
func (e *wrapErrors) Unwrap() []error { return e.errs }

type printer struct {
	buf     []byte
	wrapped []error
	errorf  bool
}

func (p *printer) printf(format string, args []any) {
	argi := 0
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			j := i + 1
			for j < len(format) && format[j] != '%' {
				j++
			}
			p.buf = append(p.buf, format[i:j]...)
			i = j
			continue
		}
		i++
		sharp, zero, width := false, false, 0
		if i < len(format) && format[i] == '#' {
			sharp = true
			i++
		}
		if i < len(format) && format[i] == '0' {
			zero = true
			i++
		}
		for i < len(format) && '0' <= format[i] && format[i] <= '9' {
			width = width*10 + int(format[i]-'0')
			i++
		}
		if i >= len(format) {
			p.buf = append(p.buf, "%!(NOVERB)"...)
			break
		}
		verb, size := utf8.DecodeRuneInString(format[i:])
		i += size
		if verb == '%' {
			p.buf = append(p.buf, '%')
			continue
		}
		if argi >= len(args) {
			p.buf = append(p.buf, '%', '!')
			p.buf = utf8.AppendRune(p.buf, verb)
			p.buf = append(p.buf, "(MISSING)"...)
			continue
		}
		a := args[argi]
		argi++
		if verb == 'w' && p.errorf {
			if err, ok := a.(error); ok {
				p.wrapped = append(p.wrapped, err)
				verb = 'v'
			}
		}
		if zero && width > 0 && !sharp {
			if n, ok := unsigned(a); ok && (verb == 'd' || verb == 'x') {
				p.padded(n, verb, width)
				continue
			}
		}
		if zero || width > 0 {
			p.bad(verb)
			continue
		}
		p.arg(a, verb, sharp)
	}
	if argi < len(args) {
		p.buf = append(p.buf, "%!(EXTRA)"...)
	}
}

// arg prints one argument; the type switch's order is fmt's (printArg, then handleMethods:
// error before Stringer).
func (p *printer) arg(a any, verb rune, sharp bool) {
	if a == nil {
		if verb == 'v' {
			p.buf = append(p.buf, "<nil>"...)
			return
		}
		p.buf = append(p.buf, '%', '!')
		p.buf = utf8.AppendRune(p.buf, verb)
		p.buf = append(p.buf, "(<nil>)"...)
		return
	}
	switch verb {
	case 'd', 'v':
		if n, neg, ok := integer(a); ok && (verb == 'd' || !sharp) {
			if neg {
				p.buf = append(p.buf, '-')
			}
			p.buf = strconv.AppendUint(p.buf, n, 10)
			return
		}
	case 'x':
		if n, ok := unsigned(a); ok && sharp {
			p.buf = append(p.buf, "0x"...)
			p.buf = strconv.AppendUint(p.buf, n, 16)
			return
		}
	}
	if verb != 's' && verb != 'v' && verb != 'q' || sharp {
		p.bad(verb)
		return
	}
	var s string
	switch v := a.(type) {
	case string:
		s = v
	case []byte:
		if verb == 'v' {
			p.bad(verb) // fmt prints the bytes as numbers
			return
		}
		s = string(v)
	case bool:
		if verb == 'q' {
			p.bad(verb)
			return
		}
		s = strconv.FormatBool(v)
	case error:
		s = v.Error()
	case Stringer:
		s = v.String()
	default:
		p.bad(verb)
		return
	}
	if verb == 'q' {
		p.buf = strconv.AppendQuote(p.buf, s)
		return
	}
	p.buf = append(p.buf, s...)
}

// padded prints n in base 10 (verb d) or 16 (x), with leading zeros up to width digits.
func (p *printer) padded(n uint64, verb rune, width int) {
	base := 10
	if verb == 'x' {
		base = 16
	}
	var tmp [20]byte
	digits := strconv.AppendUint(tmp[:0], n, base)
	for i := len(digits); i < width; i++ {
		p.buf = append(p.buf, '0')
	}
	p.buf = append(p.buf, digits...)
}

// bad prints fmt's "%!verb(" prefix and a placeholder for a value errf cannot print.
func (p *printer) bad(verb rune) {
	p.buf = append(p.buf, '%', '!')
	p.buf = utf8.AppendRune(p.buf, verb)
	p.buf = append(p.buf, "(errf: unsupported)"...)
}

// integer returns the magnitude and sign of a built-in integer.
func integer(a any) (n uint64, neg bool, ok bool) {
	var i int64
	switch v := a.(type) {
	case int:
		i = int64(v)
	case int8:
		i = int64(v)
	case int16:
		i = int64(v)
	case int32:
		i = int64(v)
	case int64:
		i = v
	default:
		n, ok = unsigned(a)
		return n, false, ok
	}
	if i < 0 {
		return -uint64(i), true, true
	}
	return uint64(i), false, true
}

func unsigned(a any) (uint64, bool) {
	switch v := a.(type) {
	case uint:
		return uint64(v), true
	case uint8:
		return uint64(v), true
	case uint16:
		return uint64(v), true
	case uint32:
		return uint64(v), true
	case uint64:
		return v, true
	case uintptr:
		return uint64(v), true
	}
	return 0, false
}
