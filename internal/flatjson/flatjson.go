// Package flatjson reads the common shape of the engine's option objects — one JSON object
// whose values are booleans, integers, strings or arrays of strings — without reflection.
//
// Why: in the wasm module, encoding/json's first Decode into scan.Options builds its field
// caches through reflect (typeFields, PointerTo's search of the type links) in code V8 has
// not compiled yet: the first pq_open of an instance took 98–233 ms in Node against 0.3 ms
// for the second (BENCHMARKS.md "Where a cold start goes"), and it lies on every cold
// page's first query. This parser is the fast path only: it accepts a strict subset and
// answers false for anything else (an escape it does not decode, a number with a fraction
// or exponent, null, a nested value, a duplicate key, trailing bytes, invalid UTF-8), and the
// caller then decodes with encoding/json, so errors and unusual inputs read exactly as encoding/json reads them.
// A differential fuzz target checks that whatever it accepts, encoding/json decodes alike.
package flatjson

import (
	"strconv"
	"unicode/utf8"
)

// Kind is the type of a Value.
type Kind uint8

const (
	Bool Kind = iota + 1
	Int
	String
	Strings
)

// Value is one member's value: B for Bool, I for Int, S for String, SS for Strings (a non-nil
// slice, empty for []).
type Value struct {
	Kind Kind
	B    bool
	I    int64
	S    string
	SS   []string
}

// maxKeys bounds the members of an accepted object (the duplicate check is a small list).
const maxKeys = 64

// Parse reads raw as one flat object and calls set(key, value) for each member in order; set
// returns false to reject the member (an unknown key, a value of the wrong kind). Parse
// returns false when raw is outside the subset or set rejected a member; set may have been
// called for earlier members, so the caller discards what it filled in then.
func Parse(raw []byte, set func(key string, v Value) bool) bool {
	p := parser{b: raw}
	p.ws()
	if !p.eat('{') {
		return false
	}
	var seen []string
	p.ws()
	if p.eat('}') {
		return p.end()
	}
	for {
		p.ws()
		k, ok := p.str()
		if !ok || len(seen) == maxKeys {
			return false
		}
		for _, s := range seen {
			if s == k {
				return false
			}
		}
		seen = append(seen, k)
		p.ws()
		if !p.eat(':') {
			return false
		}
		p.ws()
		v, ok := p.value()
		if !ok || !set(k, v) {
			return false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return p.end()
		}
		return false
	}
}

type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end: only whitespace may follow the object.
func (p *parser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

func (p *parser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

func (p *parser) value() (Value, bool) {
	if p.i >= len(p.b) {
		return Value{}, false
	}
	switch c := p.b[p.i]; {
	case c == 't':
		return Value{Kind: Bool, B: true}, p.lit("true")
	case c == 'f':
		return Value{Kind: Bool}, p.lit("false")
	case c == '"':
		s, ok := p.str()
		return Value{Kind: String, S: s}, ok
	case c == '[':
		p.i++
		ss := []string{}
		p.ws()
		if p.eat(']') {
			return Value{Kind: Strings, SS: ss}, true
		}
		for {
			p.ws()
			s, ok := p.str()
			if !ok {
				return Value{}, false
			}
			ss = append(ss, s)
			p.ws()
			if p.eat(',') {
				continue
			}
			return Value{Kind: Strings, SS: ss}, p.eat(']')
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.int()
	}
	return Value{}, false
}

// int reads -?(0|[1-9][0-9]*) that fits an int64; a fraction or an exponent is refused.
func (p *parser) int() (Value, bool) {
	start := p.i
	p.eat('-')
	d := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i == d || (p.b[d] == '0' && p.i-d > 1) {
		return Value{}, false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return Value{}, false
	}
	n, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	return Value{Kind: Int, I: n}, err == nil
}

// str reads a string with the escapes \" \\ \/ \b \f \n \r \t; \u, control bytes and invalid
// UTF-8 are refused (encoding/json's own handling of them stays the reference).
func (p *parser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	var out []byte // nil until the first escape
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			seg := p.b[start:p.i]
			p.i++
			if out == nil {
				return string(seg), utf8.Valid(seg)
			}
			out = append(out, seg...)
			return string(out), utf8.Valid(out)
		case c < 0x20:
			return "", false
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return "", false
			}
			var r byte
			switch p.b[p.i+1] {
			case '"', '\\', '/':
				r = p.b[p.i+1]
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default:
				return "", false
			}
			out = append(append(out, p.b[start:p.i]...), r)
			p.i += 2
			start = p.i
		default:
			p.i++
		}
	}
	return "", false
}
