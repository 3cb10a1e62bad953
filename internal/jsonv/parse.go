package jsonv

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds nesting as encoding/json does, so hostile metadata cannot exhaust the
// stack and both readers accept the same documents.
const maxDepth = 10000

type parser struct {
	b   []byte
	i   int
	err string
	off int
}

// Parse parses b as one JSON value (RFC 8259, as encoding/json accepts it: nesting up to
// 10,000 levels, invalid UTF-8 and lone surrogates in strings read as U+FFFD). The error
// says what is wrong and where.
func Parse(b []byte) (Value, error) {
	p := &parser{b: b}
	v := p.value(0)
	if p.err == "" {
		p.ws()
		if p.i != len(p.b) {
			p.fail("trailing data")
		}
	}
	if p.err != "" {
		return Value{}, &SyntaxError{Msg: p.err, Offset: p.off}
	}
	return v, nil
}

// Valid reports whether b is one JSON value.
func Valid(b []byte) bool {
	_, err := Parse(b)
	return err == nil
}

func (p *parser) fail(msg string) {
	if p.err == "" {
		p.err, p.off = msg, p.i
	}
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

func (p *parser) value(depth int) Value {
	if depth > maxDepth {
		p.fail("nested too deeply")
		return Value{}
	}
	p.ws()
	if p.i >= len(p.b) {
		p.fail("unexpected end of JSON")
		return Value{}
	}
	start := p.i
	var v Value
	switch c := p.b[p.i]; {
	case c == '{':
		v = p.object(depth)
	case c == '[':
		v = p.array(depth)
	case c == '"':
		v = Value{Kind: String, S: p.str()}
	case c == 't':
		v = Value{Kind: Bool, B: true}
		p.lit("true")
	case c == 'f':
		v = Value{Kind: Bool}
		p.lit("false")
	case c == 'n':
		v = Value{Kind: Null}
		p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		n, big := p.number()
		v = Value{Kind: Number, N: n, Big: big}
	default:
		p.fail("invalid character " + strconv.QuoteRune(rune(c)))
	}
	if p.err != "" {
		return Value{}
	}
	v.Raw = p.b[start:p.i]
	return v
}

func (p *parser) lit(s string) {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		p.fail("invalid literal")
		return
	}
	p.i += len(s)
}

func (p *parser) object(depth int) Value {
	v := Value{Kind: Object}
	p.i++ // {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return v
	}
	for p.err == "" {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			p.fail("want a member name")
			break
		}
		k := p.str()
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			p.fail("want ':'")
			break
		}
		p.i++
		val := p.value(depth + 1)
		v.Keys, v.Vals = append(v.Keys, k), append(v.Vals, val)
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return v
		}
		p.fail("want ',' or '}'")
	}
	return v
}

func (p *parser) array(depth int) Value {
	v := Value{Kind: Array}
	p.i++ // [
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return v
	}
	for p.err == "" {
		v.Elems = append(v.Elems, p.value(depth+1))
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return v
		}
		p.fail("want ',' or ']'")
	}
	return v
}

// number reads a number in JSON's grammar (no leading zeros, no '+', no bare '.').
func (p *parser) number() (float64, bool) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		p.fail("invalid number")
		return 0, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			p.fail("invalid number")
			return 0, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.fail("invalid number")
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	return f, err != nil
}

// str reads a string at p.i (its opening quote), decoding escapes; invalid UTF-8 and lone
// surrogates become U+FFFD, as encoding/json decodes them.
func (p *parser) str() string {
	p.i++ // "
	// Most strings hold no escape and only ASCII: one copy, no decoding.
	for j := p.i; j < len(p.b); j++ {
		c := p.b[j]
		if c == '"' {
			s := string(p.b[p.i:j])
			p.i = j + 1
			return s
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	var out []byte
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out)
		case c < 0x20:
			p.fail("control character in a string")
			return ""
		case c == '\\':
			if p.i+1 >= len(p.b) {
				p.fail("unexpected end of JSON")
				return ""
			}
			e := p.b[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := p.hex4()
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						r2 = p.hex4()
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							r, r2 = d, -1
						} else {
							p.i = save
							r2 = -1
						}
					}
					if utf16.IsSurrogate(r) {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				p.fail("invalid escape")
				return ""
			}
			if p.err != "" {
				return ""
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			out = utf8.AppendRune(out, r)
			p.i += n
		}
	}
	p.fail("unterminated string")
	return ""
}

func (p *parser) hex4() rune {
	if len(p.b)-p.i < 4 {
		p.fail("invalid \\u escape")
		return 0
	}
	n, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		p.fail("invalid \\u escape")
		return 0
	}
	p.i += 4
	return rune(n)
}
