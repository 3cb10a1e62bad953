// Package scope decides whether a location a table names may be fetched: every object, range
// and listing request that a table's metadata, a listing or a redirect produces must fall
// inside the locations the user named (a file, a folder or table root, a listing prefix) or
// allowed explicitly. Metadata is written by whoever wrote the table, so a host that runs other
// people's queries over other people's tables checks each request here before sending it.
//
// The package is pure: it normalises locations (percent-decoding, dot segments, separators,
// hosts and ports) and compares them. Resolving symbolic links is the caller's (it needs the
// file system): a local host checks both the lexical path and its real path.
//
// Normalisation is as strict as the strictest reader of the request: a server decodes a path
// once and may then treat '\' or a decoded "%2F" as a separator and resolve dot segments, so
// they are resolved here that way before the comparison; a segment that is a dot segment only
// after a second decode is refused outright (no table names such a file, and a server that
// decodes twice would climb).
package scope

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/pathenc"
)

// Errors of the package.
var (
	// ErrOutside reports a location outside the scope.
	ErrOutside = errors.New("scope: outside the scope of the open")
	// ErrLocation reports a location that cannot be normalised: a relative local path, a
	// scheme other than http, https or file, a path that climbs above its root, a segment that
	// is a dot segment only after two decodes.
	ErrLocation = errors.New("scope: location cannot be checked")
)

// fileOrigin is the origin of every local path.
const fileOrigin = "file://"

// Loc is a normalised location: an origin ("scheme://[user@]host:port", or "file://" for a local
// path) and a path that begins with '/', holds each segment decoded once, and has no empty, "."
// or ".." segment (a trailing '/' marks a folder).
type Loc struct {
	Origin string
	Path   string
	Query  string // raw, as sent; only a user-named object may carry one
}

func (l Loc) String() string {
	s := l.Origin + l.Path
	if l.Query != "" {
		s += "?" + l.Query
	}
	return s
}

// ParseURL normalises an http(s) URL (a file: URL is a local path, ParseFile). The scheme
// and host are lowercased, a default port dropped, an IP literal written in its canonical
// form (an IPv4-mapped IPv6 address as IPv4), a trailing dot of a host name dropped; the
// userinfo stays part of the origin, so that a location with other credentials is another
// origin. The fragment is not sent and is dropped.
func ParseURL(raw string) (Loc, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Loc{}, fmt.Errorf("%w: %v", ErrLocation, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "file" {
		return ParseFile(raw)
	}
	if scheme != "http" && scheme != "https" {
		return Loc{}, fmt.Errorf("%w: %s: scheme %q", ErrLocation, raw, u.Scheme)
	}
	host, err := canonicalHost(u, scheme)
	if err != nil {
		return Loc{}, fmt.Errorf("%w: %s: %v", ErrLocation, raw, err)
	}
	origin := scheme + "://"
	if u.User != nil {
		origin += u.User.String() + "@"
	}
	p, err := cleanPath(u.EscapedPath(), true)
	if err != nil {
		return Loc{}, fmt.Errorf("%w: %s: %v", ErrLocation, raw, err)
	}
	return Loc{Origin: origin + host, Path: p, Query: u.RawQuery}, nil
}

// canonicalHost is u's host and port in one spelling per host.
func canonicalHost(u *url.URL, scheme string) (string, error) {
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if h == "" {
		return "", errors.New("no host")
	}
	if a, err := netip.ParseAddr(h); err == nil {
		a = a.Unmap()
		h = a.String()
		if a.Is6() {
			h = "[" + h + "]"
		}
	} else if strings.ContainsAny(h, "[]%@\\/") {
		return "", fmt.Errorf("host %q", h)
	}
	port := u.Port()
	if port == "" || scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		return h, nil
	}
	return h + ":" + strings.TrimLeft(port, "0"), nil
}

// ParseFile normalises a local location: an absolute path, or a file: URL (file:///p,
// file:/p or file://localhost/p; another host is refused) whose path is percent-decoded.
// '\' is a separator, as Windows reads it.
func ParseFile(p string) (Loc, error) {
	if rest, ok := cutPrefixFold(p, "file:"); ok {
		switch {
		case strings.HasPrefix(rest, "///"):
			rest = rest[2:]
		case strings.HasPrefix(rest, "//"):
			host, path, _ := strings.Cut(rest[2:], "/")
			if !strings.EqualFold(host, "localhost") {
				return Loc{}, fmt.Errorf("%w: %s: a file: URL on host %q", ErrLocation, p, host)
			}
			rest = "/" + path
		}
		if i := strings.IndexAny(rest, "?#"); i >= 0 {
			rest = rest[:i]
		}
		clean, err := cleanPath(rest, true)
		if err != nil {
			return Loc{}, fmt.Errorf("%w: %s: %v", ErrLocation, p, err)
		}
		return Loc{Origin: fileOrigin, Path: clean}, nil
	}
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, `\`) {
		return Loc{}, fmt.Errorf("%w: %s: a local path must be absolute", ErrLocation, p)
	}
	clean, err := cleanPath(p, false)
	if err != nil {
		return Loc{}, fmt.Errorf("%w: %s: %v", ErrLocation, p, err)
	}
	return Loc{Origin: fileOrigin, Path: clean}, nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// maxDecodes bounds the decodes that look for a hidden dot segment.
const maxDecodes = 4

// cleanPath resolves p (decoding each segment once when decode) into the Loc form: '\' and
// decoded '/' separate segments, empty and "." segments go, ".." removes the one before and
// may not climb above the root.
func cleanPath(p string, decode bool) (string, error) {
	folder := strings.HasSuffix(p, "/") || strings.HasSuffix(p, `\`)
	var out []string
	for _, raw := range splitSeps(p) {
		seg := raw
		if decode {
			seg = pathenc.Unescape(raw)
		}
		for _, s := range splitSeps(seg) {
			switch s {
			case "", ".":
				folder = true
				continue
			case "..":
				if len(out) == 0 {
					return "", errors.New("the path climbs above its root")
				}
				out = out[:len(out)-1]
				folder = true
				continue
			}
			if decode && hiddenDots(s) {
				return "", fmt.Errorf("segment %q is a dot segment once decoded again", s)
			}
			out = append(out, s)
			folder = false
		}
	}
	if folder || strings.HasSuffix(p, "/") || strings.HasSuffix(p, `\`) {
		if len(out) == 0 {
			return "/", nil
		}
		return "/" + strings.Join(out, "/") + "/", nil
	}
	return "/" + strings.Join(out, "/"), nil
}

func splitSeps(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
}

// hiddenDots reports whether further decodes of s give a dot segment or a separator next to
// dots (a server that decodes more than once would climb).
func hiddenDots(s string) bool {
	for range maxDecodes {
		d := pathenc.Unescape(s)
		if d == s {
			return false
		}
		s = d
		for _, part := range splitSeps(s) {
			if part == "." || part == ".." {
				return true
			}
		}
	}
	return true // still decoding after maxDecodes: refused rather than guessed
}
