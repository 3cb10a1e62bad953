package iceberg

import (
	"errors"
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/errf"
)

// Path mappings: files a table's metadata names outside its location (a table assembled from
// several buckets, data files moved after the metadata was written) are read where the caller
// says. A mapping is prefix → base: a path that begins with the prefix at a path-segment
// boundary is read at the base joined with the rest of the path. The longest prefix wins,
// the table location's own mapping onto the table folder included (a tie goes to the explicit
// mapping: the caller said so). Prefixes are compared as the metadata writes paths, byte for
// byte; bases are URLs once the host has resolved them (http:, https:, file:), and the rest
// of the path is escaped for them with pathenc.EscapePath, as every other table path is.

// ErrPathMap reports a malformed path mapping (its text form, or a prefix or base).
var ErrPathMap = errors.New("iceberg: path mapping")

// ParsePathMap parses the text form "PREFIX=BASE,PREFIX=BASE,…" (CLI --path-map, the
// environment variable PQSCAN_ICEBERG_PATHS, JS pathMap as a string). Entries are separated
// by ',' and trimmed; each is split at the first '=' that a base follows (an http(s) or file:
// URL, or a local path starting with '/', './' or '../'), so a prefix may hold '=' (Hive
// partition folders: "s3://b/t/data/day=1"). A prefix or base holding ',' needs the map form
// (Go Options.PathMap, a JS object). "" is no mapping.
func ParsePathMap(spec string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	for _, e := range strings.Split(spec, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, errf.Errorf("%w: %q has an empty entry (entries are PREFIX=BASE, separated by ',')", ErrPathMap, spec)
		}
		prefix, base, ok := splitEntry(e)
		if !ok {
			return nil, errf.Errorf("%w: %q is not PREFIX=BASE (BASE: an http(s) URL, a file: URL, or a local folder starting with '/', './' or '../')", ErrPathMap, e)
		}
		if _, dup := out[prefix]; dup {
			return nil, errf.Errorf("%w: the prefix %q is mapped twice", ErrPathMap, prefix)
		}
		out[prefix] = base
	}
	return out, CheckPathMap(out)
}

// splitEntry splits "PREFIX=BASE" at the first '=' that a base follows.
func splitEntry(e string) (prefix, base string, ok bool) {
	for i := 0; i < len(e); i++ {
		if e[i] == '=' && i > 0 && IsPathBase(e[i+1:]) {
			return e[:i], e[i+1:], true
		}
	}
	return "", "", false
}

// IsPathBase reports whether b has the form of a base: an http(s) URL, a file: URL, or a
// local path that is absolute or starts with ./ or ../ ("." and ".." too).
func IsPathBase(b string) bool {
	switch {
	case hasSchemeFold(b, "http://"), hasSchemeFold(b, "https://"), hasSchemeFold(b, "file:"):
		return true
	case b == "." || b == "..":
		return true
	}
	return strings.HasPrefix(b, "/") || strings.HasPrefix(b, "./") || strings.HasPrefix(b, "../")
}

// IsBaseURL reports whether b is a resolved base: an http(s) or file: URL.
func IsBaseURL(b string) bool {
	return hasSchemeFold(b, "http://") || hasSchemeFold(b, "https://") || hasSchemeFold(b, "file:")
}

func hasSchemeFold(s, scheme string) bool {
	return len(s) > len(scheme) && strings.EqualFold(s[:len(scheme)], scheme)
}

// CheckPathMap checks a mapping's prefixes and bases: a prefix is an absolute URI
// (scheme:…) or an absolute path naming at least one segment, two prefixes differ once
// their trailing '/' is cut, and a base has the form IsPathBase says.
func CheckPathMap(m map[string]string) error {
	seen := map[string]string{}
	for _, prefix := range sortedKeys(m) {
		base := m[prefix]
		q := trimPrefix(prefix)
		if !absolutePrefix(prefix) || q == "" || strings.HasSuffix(q, ":") {
			return errf.Errorf("%w: the prefix %q is not an absolute URI or path with a folder in it", ErrPathMap, prefix)
		}
		if other, dup := seen[q]; dup {
			return errf.Errorf("%w: the prefixes %q and %q are the same", ErrPathMap, other, prefix)
		}
		seen[q] = prefix
		if !IsPathBase(base) {
			return errf.Errorf("%w: the base %q of %q is not an http(s) URL, a file: URL or a local folder starting with '/', './' or '../'", ErrPathMap, base, prefix)
		}
	}
	return nil
}

// absolutePrefix reports whether p starts with a URI scheme or '/'.
func absolutePrefix(p string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	i := strings.IndexByte(p, ':')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := p[j]
		alpha := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !alpha && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

func trimPrefix(p string) string { return strings.TrimRight(p, "/") }

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// MapPath is where path p is read by the mapping m alone: the base of the longest prefix that
// p begins with at a segment boundary, joined with the rest of p (escaped). n is the length
// of that prefix (trailing '/' cut); ok is false when no prefix matches.
func MapPath(m map[string]string, p string) (at string, n int, ok bool) {
	var base, rest string
	n = -1
	for prefix, b := range m {
		q := trimPrefix(prefix)
		if len(q) <= n || q == "" {
			continue
		}
		switch {
		case p == q:
			base, rest, n = b, "", len(q)
		case strings.HasPrefix(p, q+"/"):
			base, rest, n = b, p[len(q)+1:], len(q)
		}
	}
	if n < 0 {
		return "", 0, false
	}
	if rest == "" {
		return base, n, true
	}
	return strings.TrimRight(base, "/") + "/" + pathenc.EscapePath(rest), n, true
}

// LocateMapped is Locate with the explicit mappings m (bases resolved to URLs, IsBaseURL): a
// path a mapping's prefix covers, longer than the table location's (or with the location
// matching only by its path part, Relative), is read at the mapped URL, as an absolute path
// (abs true) that the host checks against its scope like any other.
func LocateMapped(location, p string, m map[string]string) (string, bool, error) {
	if len(m) == 0 {
		return Locate(location, p)
	}
	at, n, ok := MapPath(m, p)
	if !ok {
		return Locate(location, p)
	}
	loc := strings.TrimRight(location, "/")
	if loc != "" && strings.HasPrefix(p, loc+"/") && len(loc) > n {
		return Locate(location, p)
	}
	return at, true, nil
}
