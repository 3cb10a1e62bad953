// Package pathenc percent-encodes and decodes the strings the dataset layer moves between URLs,
// object keys and Hive/Delta paths.
//
// Why not net/url: its decoders reject a malformed escape ("%zz") with an error, while Hive and
// Spark paths written by other tools contain such sequences literally and must still be read
// (Spark's unescapePathName and Polars' percent_decode_str keep them as they are); and its
// QueryEscape turns a space into '+', which an S3 listing would read back as a literal '+'.
// The functions here are total: they never fail and never panic.
package pathenc

import "strings"

const hex = "0123456789ABCDEF"

// unreserved reports whether c is in RFC 3986's unreserved set, the only bytes Escape leaves
// as they are (what AWS SigV4 canonical query encoding and object_store's strict set keep).
func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

// Escape percent-encodes every byte of s outside RFC 3986's unreserved set (so '/' becomes %2F
// and a space %20): the form a query parameter value such as an S3 prefix or continuation
// token needs, whatever characters the key or token holds.
func Escape(s string) string { return escape(s, unreserved) }

// EscapeComponent is JavaScript's encodeURIComponent: Escape, but `!'()*` kept too, and '='
// with keepEq (a Hive partition folder as it is written). An object URL built from a listed
// key is spelled so in every host.
func EscapeComponent(s string, keepEq bool) string {
	return escape(s, func(c byte) bool {
		return unreserved(c) || c == '!' || c == '\'' || c == '(' || c == ')' || c == '*' || keepEq && c == '='
	})
}

// escape percent-encodes every byte of s that keep does not keep.
func escape(s string, keep func(byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !keep(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keep(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// EscapePath is Escape but keeps '/' so that a key stays readable as a URL path.
func EscapePath(s string) string {
	parts := strings.Split(s, "/")
	for i, p := range parts {
		parts[i] = Escape(p)
	}
	return strings.Join(parts, "/")
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Unescape decodes %XX sequences once. A '%' not followed by two hex digits is kept literally,
// and '+' stays '+' (path semantics, not form encoding). The result may hold any bytes,
// including invalid UTF-8, exactly as the escapes say.
func Unescape(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				b.WriteByte(hi<<4 | lo)
				i += 2
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
