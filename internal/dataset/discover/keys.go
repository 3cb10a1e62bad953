package discover

import (
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/listing"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
)

// site is where an http(s) URL's listing and objects are: the listing request's origin and
// bucket, the URL prefix of the objects, and the URL's key.
type site struct {
	origin, bucket, objBase, key string
	style                        listing.Style
}

// parseURL splits an absolute http(s) URL (as a WHATWG URL parser writes it: the host
// lowercased, no default port) into its site; the path, decoded once, is the key (after
// the bucket, path-style).
func parseURL(raw string, pathStyle bool) (site, error) {
	i := strings.Index(raw, "://")
	scheme := ""
	if i > 0 {
		scheme = strings.ToLower(raw[:i])
	}
	if scheme != "http" && scheme != "https" {
		return site{}, errorf(ErrOptions, "listing needs an http(s) URL, got %s", raw)
	}
	rest := raw[i+3:]
	if j := strings.IndexAny(rest, "?#"); j >= 0 {
		rest = rest[:j]
	}
	path := "/"
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		rest, path = rest[:j], rest[j:]
	}
	st := site{origin: scheme + "://" + rest, key: pathenc.Unescape(path[1:])}
	st.objBase = st.origin + "/"
	if pathStyle {
		j := strings.IndexByte(st.key, '/')
		if j <= 0 {
			return site{}, errorf(ErrOptions, "%s: a path-style listing URL needs a bucket before the key", raw)
		}
		st.bucket, st.key, st.style = st.key[:j], st.key[j+1:], listing.PathStyle
		st.objBase += escapeSegment(st.bucket, false) + "/"
	}
	return st, nil
}

// escapeKey is an object key as a URL path: each segment as encodeURIComponent writes it,
// '=' kept (Hive partition folders read as they are written).
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = escapeSegment(s, true)
	}
	return strings.Join(segs, "/")
}

// escapeSegment is encodeURIComponent's escaping (keepEq: '=' kept too).
func escapeSegment(s string, keepEq bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 || keepEq && c == '=' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// parseTime is an RFC 3339 time (a listing's LastModified: 2009-10-12T17:50:30.000Z, or with
// an offset) in milliseconds since the epoch; 0 when it does not parse. Hand-written: the
// module links none of package time's layout parsing.
func parseTime(s string) int64 {
	num := func(i, n int) (int64, bool) {
		if i+n > len(s) {
			return 0, false
		}
		v := int64(0)
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
		return v, true
	}
	sep := func(i int, cs string) bool { return i < len(s) && strings.IndexByte(cs, s[i]) >= 0 }
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && sep(4, "-") && sep(7, "-") && sep(10, "Tt ") && sep(13, ":") && sep(16, ":")) ||
		mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return 0
	}
	i := 19
	ms := int64(0)
	if sep(i, ".") {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0
		}
		frac := (s[i+1:j] + "00")[:3]
		for _, c := range []byte(frac) {
			ms = ms*10 + int64(c-'0')
		}
		i = j
	}
	off := int64(0)
	switch {
	case sep(i, "Zz") && i+1 == len(s):
	case sep(i, "+-") && i+6 == len(s) && sep(i+3, ":"):
		oh, ok1 := num(i+1, 2)
		om, ok2 := num(i+4, 2)
		if !ok1 || !ok2 {
			return 0
		}
		off = (oh*60 + om) * 60
		if s[i] == '-' {
			off = -off
		}
	default:
		return 0
	}
	// Days from 1970-01-01 of the proleptic Gregorian date (Howard Hinnant's days_from_civil).
	if mo <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	m := (mo + 9) % 12
	doy := (153*m+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := era*146097 + doe - 719468
	return ((days*24+h)*60+mi)*60*1000 + sec*1000 + ms - off*1000
}
