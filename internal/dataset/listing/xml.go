package listing

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/pqscan/pqscan/internal/errf"
)

// A minimal XML reader for the listing documents, written by hand because encoding/xml costs
// 212 KB raw / 36 KB brotli inside the wasm module (`make size` with and without it), and
// ListObjectsV2 needs none of its generality. It understands exactly what
// services send: a prolog, comments, elements with (ignored) attributes and namespaces, text
// with the five predefined entities and numeric character references, and CDATA sections.
// A DOCTYPE (which could define entities), a mismatched or unclosed tag, invalid UTF-8, a
// control character or an unknown entity is an error, as it is for encoding/xml in strict mode.
// The fuzz target checks it against encoding/xml differentially.

// xmlElem is one element: its local name (namespace prefix dropped), its character data, and
// its child elements in document order.
type xmlElem struct {
	name string
	text []byte
	kids []*xmlElem
}

// child returns the text of the last child element called name ("" when absent).
func (e *xmlElem) child(name string) string {
	for i := len(e.kids) - 1; i >= 0; i-- {
		if e.kids[i].name == name {
			return string(e.kids[i].text)
		}
	}
	return ""
}

// maxDepth bounds nesting; listing documents are three levels deep.
const maxDepth = 32

// parseXML reads a whole document and returns its root element.
func parseXML(b []byte) (*xmlElem, error) {
	if !utf8.Valid(b) {
		return nil, errf.Errorf("invalid UTF-8")
	}
	var root *xmlElem
	var stack []*xmlElem
	i := 0
	for i < len(b) {
		if b[i] != '<' {
			j := bytes.IndexByte(b[i:], '<')
			if j < 0 {
				j = len(b) - i
			}
			text := b[i : i+j]
			if len(stack) == 0 {
				if len(bytes.TrimLeft(text, " \t\r\n")) != 0 {
					return nil, errf.Errorf("text outside the root element at byte %d", i)
				}
			} else {
				top := stack[len(stack)-1]
				var err error
				if top.text, err = appendText(top.text, text); err != nil {
					return nil, errf.Errorf("%v at byte %d", err, i)
				}
			}
			i += j
			continue
		}
		rest := b[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<?")):
			j := bytes.Index(rest, []byte("?>"))
			if j < 0 {
				return nil, errf.Errorf("unterminated processing instruction at byte %d", i)
			}
			i += j + 2
		case bytes.HasPrefix(rest, []byte("<!--")):
			j := bytes.Index(rest[4:], []byte("-->"))
			if j < 0 {
				return nil, errf.Errorf("unterminated comment at byte %d", i)
			}
			i += 4 + j + 3
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			j := bytes.Index(rest, []byte("]]>"))
			if j < 0 || len(stack) == 0 {
				return nil, errf.Errorf("bad CDATA section at byte %d", i)
			}
			top := stack[len(stack)-1]
			if err := checkChars(rest[9:j]); err != nil {
				return nil, err
			}
			top.text = append(top.text, rest[9:j]...)
			i += j + 3
		case bytes.HasPrefix(rest, []byte("<!")):
			return nil, errf.Errorf("unsupported markup declaration at byte %d", i)
		case bytes.HasPrefix(rest, []byte("</")):
			name, n, err := readName(rest[2:])
			if err != nil {
				return nil, errf.Errorf("%v at byte %d", err, i)
			}
			k := 2 + n
			for k < len(rest) && isSpace(rest[k]) {
				k++
			}
			if k >= len(rest) || rest[k] != '>' {
				return nil, errf.Errorf("bad end tag at byte %d", i)
			}
			if len(stack) == 0 || stack[len(stack)-1].name != name {
				return nil, errf.Errorf("unexpected </%s> at byte %d", name, i)
			}
			stack = stack[:len(stack)-1]
			i += k + 1
		default:
			name, n, err := readName(rest[1:])
			if err != nil {
				return nil, errf.Errorf("%v at byte %d", err, i)
			}
			k, selfClose, err := skipAttrs(rest, 1+n)
			if err != nil {
				return nil, errf.Errorf("%v in <%s> at byte %d", err, name, i)
			}
			e := &xmlElem{name: name}
			switch {
			case len(stack) > 0:
				top := stack[len(stack)-1]
				top.kids = append(top.kids, e)
			case root != nil:
				return nil, errf.Errorf("second root element <%s> at byte %d", name, i)
			default:
				root = e
			}
			if !selfClose {
				if len(stack) >= maxDepth {
					return nil, errf.Errorf("elements nested deeper than %d", maxDepth)
				}
				stack = append(stack, e)
			}
			i += k
		}
	}
	if root == nil {
		return nil, errf.Errorf("no root element")
	}
	if len(stack) != 0 {
		return nil, errf.Errorf("unexpected end of document inside <%s>", stack[len(stack)-1].name)
	}
	return root, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isNameByte(c byte) bool {
	return c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == ':'
}

// readName reads an element name and returns its local part (after any "prefix:").
func readName(b []byte) (string, int, error) {
	n := 0
	for n < len(b) && isNameByte(b[n]) {
		n++
	}
	if n == 0 || '0' <= b[0] && b[0] <= '9' || b[0] == '-' || b[0] == '.' {
		return "", 0, errf.Errorf("bad element name")
	}
	name := b[:n]
	if j := bytes.LastIndexByte(name, ':'); j >= 0 {
		name = name[j+1:]
	}
	return string(name), n, nil
}

// skipAttrs skips `attr="v" attr='v'` pairs after a start tag's name up to '>' or "/>", and
// returns the offset after the tag.
func skipAttrs(b []byte, k int) (int, bool, error) {
	for {
		sp := k
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k >= len(b) {
			return 0, false, errf.Errorf("unterminated start tag")
		}
		switch {
		case b[k] == '>':
			return k + 1, false, nil
		case b[k] == '/' && k+1 < len(b) && b[k+1] == '>':
			return k + 2, true, nil
		}
		if sp == k {
			return 0, false, errf.Errorf("attribute without preceding space")
		}
		_, n, err := readName(b[k:])
		if err != nil {
			return 0, false, err
		}
		k += n
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k >= len(b) || b[k] != '=' {
			return 0, false, errf.Errorf("attribute without value")
		}
		k++
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k >= len(b) || b[k] != '"' && b[k] != '\'' {
			return 0, false, errf.Errorf("unquoted attribute value")
		}
		q := b[k]
		j := bytes.IndexByte(b[k+1:], q)
		if j < 0 {
			return 0, false, errf.Errorf("unterminated attribute value")
		}
		if v := b[k+1 : k+1+j]; bytes.IndexByte(v, '<') >= 0 {
			return 0, false, errf.Errorf("'<' in attribute value")
		} else if _, err := appendText(nil, v); err != nil {
			return 0, false, err
		}
		k += j + 2
	}
}

// checkChars rejects characters XML 1.0 forbids (C0 controls other than tab, CR, LF).
func checkChars(b []byte) error {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return errf.Errorf("control character %#x", c)
		}
	}
	return nil
}

// appendText appends character data with entity and character references resolved. CR LF
// and lone CR become LF, as XML's end-of-line handling requires.
func appendText(dst, b []byte) ([]byte, error) {
	if err := checkChars(b); err != nil {
		return nil, err
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '\r':
			dst = append(dst, '\n')
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			continue
		case '>':
			if i >= 2 && b[i-1] == ']' && b[i-2] == ']' {
				return nil, errf.Errorf("]]> in text")
			}
		case '&':
		default:
			dst = append(dst, c)
			continue
		}
		if c == '>' {
			dst = append(dst, c)
			continue
		}
		j := bytes.IndexByte(b[i:], ';')
		if j < 2 {
			return nil, errf.Errorf("unterminated entity")
		}
		ent := string(b[i+1 : i+j])
		switch ent {
		case "amp":
			dst = append(dst, '&')
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "quot":
			dst = append(dst, '"')
		case "apos":
			dst = append(dst, '\'')
		default:
			if ent[0] != '#' || len(ent) < 2 {
				return nil, errf.Errorf("unknown entity &%s;", ent)
			}
			var v uint64
			var err error
			if ent[1] == 'x' {
				v, err = strconv.ParseUint(ent[2:], 16, 32)
			} else {
				v, err = strconv.ParseUint(ent[1:], 10, 32)
			}
			r := rune(v)
			if err != nil || !xmlChar(r) || ent[1] == '+' || len(ent) > 2 && ent[2] == '+' {
				return nil, errf.Errorf("bad character reference &%s;", ent)
			}
			dst = utf8.AppendRune(dst, r)
		}
		i += j
	}
	return dst, nil
}

// xmlChar reports whether r is allowed in an XML 1.0 document.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
