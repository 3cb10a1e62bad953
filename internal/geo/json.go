package geo

import (
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON reader for the `geo` metadata and CRS strings, without reflection: the lean
// module links no encoding/json (it and the reflect code its decoder reaches are ~60 KB of
// the brotli-compressed module), and single-file scans read GeoParquet metadata.

// jsonKind is a JSON value's type.
type jsonKind uint8

const (
	jNull jsonKind = iota + 1
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jsonValue is one parsed value: S for strings, N for numbers (Big: beyond float64, an
// error only where the number is used, as encoding/json decodes it), B for booleans, Elems for
// arrays, Keys/Vals for objects (in order; a repeated key's last value wins in get, as
// encoding/json decodes it), Raw the value's bytes as written.
type jsonValue struct {
	Kind  jsonKind
	S     string
	N     float64
	Big   bool
	B     bool
	Elems []jsonValue
	Keys  []string
	Vals  []jsonValue
	Raw   []byte
}

// get is the value of member key of an object, nil when absent (or v is not an object).
func (v *jsonValue) get(key string) *jsonValue {
	for i := len(v.Keys) - 1; i >= 0; i-- {
		if v.Keys[i] == key {
			return &v.Vals[i]
		}
	}
	return nil
}

// maxJSONDepth bounds nesting as encoding/json does, so hostile metadata cannot exhaust the
// stack and both readers accept the same documents.
const maxJSONDepth = 10000

type jsonParser struct {
	b   []byte
	i   int
	err string
}

// parseJSON parses b as one JSON value; the message says what is wrong when it is not.
func parseJSON(b []byte) (jsonValue, string) {
	p := &jsonParser{b: b}
	v := p.value(0)
	if p.err == "" {
		p.ws()
		if p.i != len(p.b) {
			p.fail("trailing data")
		}
	}
	return v, p.err
}

// ValidJSON reports whether b is one JSON value.
func ValidJSON(b []byte) bool {
	if !leanJSON {
		return json.Valid(b)
	}
	_, err := parseJSON(b)
	return err == ""
}

func (p *jsonParser) fail(msg string) {
	if p.err == "" {
		p.err = msg + " at offset " + strconv.Itoa(p.i)
	}
}

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) jsonValue {
	if depth > maxJSONDepth {
		p.fail("nested too deeply")
		return jsonValue{}
	}
	p.ws()
	if p.i >= len(p.b) {
		p.fail("unexpected end of JSON")
		return jsonValue{}
	}
	start := p.i
	var v jsonValue
	switch c := p.b[p.i]; {
	case c == '{':
		v = p.object(depth)
	case c == '[':
		v = p.array(depth)
	case c == '"':
		v = jsonValue{Kind: jString, S: p.str()}
	case c == 't':
		v = jsonValue{Kind: jBool, B: true}
		p.lit("true")
	case c == 'f':
		v = jsonValue{Kind: jBool}
		p.lit("false")
	case c == 'n':
		v = jsonValue{Kind: jNull}
		p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		n, big := p.number()
		v = jsonValue{Kind: jNumber, N: n, Big: big}
	default:
		p.fail("invalid character " + strconv.QuoteRune(rune(c)))
	}
	if p.err != "" {
		return jsonValue{}
	}
	v.Raw = p.b[start:p.i]
	return v
}

func (p *jsonParser) lit(s string) {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		p.fail("invalid literal")
		return
	}
	p.i += len(s)
}

func (p *jsonParser) object(depth int) jsonValue {
	v := jsonValue{Kind: jObject}
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

func (p *jsonParser) array(depth int) jsonValue {
	v := jsonValue{Kind: jArray}
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
func (p *jsonParser) number() (float64, bool) {
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
func (p *jsonParser) str() string {
	p.i++ // "
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

func (p *jsonParser) hex4() rune {
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
