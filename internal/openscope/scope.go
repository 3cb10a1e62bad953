// Package openscope applies internal/scope in the Go host: what one open may reach (the
// sources the caller named, Options.AllowPrefixes, a path map's bases), checked against
// every local path the host opens and every request its HTTP client sends, redirects
// included. It is where the Go host decides whether a location is local or HTTP (IsHTTP)
// and where a table log's paths become locations (Locate). It does I/O (absolute and real
// paths of local files), which is why it is apart from the pure internal/scope.
package openscope

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/glob"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/scope"
)

// ErrSource: a source named is neither a path, a URL nor a Source, or cannot be read as one
// (pqscan.ErrSource).
var ErrSource = errors.New("pqscan: source must be a path, an http(s) URL or a Source")

// Options are the settings of an open that widen its scope.
type Options struct {
	// AllowPrefixes are locations besides the sources named (pqscan.Options.AllowPrefixes).
	AllowPrefixes []string
	// PathMap is an Iceberg path map, whose bases are named by the caller.
	PathMap map[string]string
	// RedirectOrigins are origins a redirect may lead to outside the scope.
	RedirectOrigins []string
}

// Scope is what one open may reach (internal/scope): the sources the caller named and
// Options.AllowPrefixes. Every location a table's log, a listing or a redirect produces is
// checked against it before a request is sent or a local file opened: table metadata is
// written by whoever wrote the table, and a host that runs other people's queries over other
// people's tables must not let it name the host's own files or another origin's. A nil
// Scope allows everything.
type Scope struct {
	sc        scope.Scope
	redirects map[string]bool // origins (scope.Loc.Origin) a redirect may lead to
}

// IsHTTP reports whether the location s is read over HTTP (an http:// or https:// URL)
// rather than from the local file system: the one place the Go host decides it.
func IsHTTP(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// New builds the scope of an open of srcs. A folder source (trailing '/') covers
// everything below it, a glob its fixed leading part (as a listing prefix: "data/part-*"
// covers "data/part-…"), any other source that object alone. A local source is covered
// both as written and as its real path, so that a folder named through a symbolic link
// reads; a link inside it that leads elsewhere does not (checkLocal).
func New(srcs []string, opts Options) (*Scope, error) {
	s := &Scope{redirects: map[string]bool{}}
	for _, src := range srcs {
		es, err := namedEntries(src)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrSource, src, err)
		}
		s.sc = s.sc.Add(es...)
	}
	for _, p := range opts.AllowPrefixes {
		ls, err := locations(p)
		if err != nil {
			return nil, fmt.Errorf("%w: allowed prefix %s: %w", ErrSource, p, err)
		}
		for _, l := range ls {
			s.sc = s.sc.Add(scope.Allowed(l)...)
		}
	}
	// A path map's bases are named by the caller, as allowed prefixes are.
	bases, err := PathMapBases(opts.PathMap)
	if err != nil {
		return nil, err
	}
	for _, b := range bases {
		ls, err := locations(b)
		if err != nil {
			return nil, fmt.Errorf("%w: path map base %s: %w", ErrSource, b, err)
		}
		for _, l := range ls {
			s.sc = s.sc.Add(scope.Allowed(l)...)
		}
	}
	for _, o := range opts.RedirectOrigins {
		l, err := scope.ParseURL(strings.TrimSuffix(o, "/") + "/")
		if err != nil || l.Path != "/" {
			return nil, fmt.Errorf("%w: redirect origin %q is not an http(s) origin", ErrSource, o)
		}
		s.redirects[l.Origin] = true
	}
	return s, nil
}

// namedEntries are the scope entries of one named source.
func namedEntries(src string) ([]scope.Entry, error) {
	fixed, isGlob := src, glob.HasMeta(src)
	if isGlob {
		fixed = src[:strings.IndexAny(src, `*?[\`)]
		if !IsHTTP(src) {
			// A local glob is walked from the folder of its fixed part (internal/tablehost).
			fixed = fixed[:strings.LastIndex(fixed, "/")+1]
		}
	}
	if !isGlob && iceberg.IsMetadataFile(filepath.ToSlash(src)) {
		// Naming a table's metadata file opens the table: its folder is in scope.
		fixed, _ = iceberg.SplitMetadataPath(filepath.ToSlash(src))
	}
	ls, err := locations(fixed)
	if err != nil {
		return nil, err
	}
	var out []scope.Entry
	for _, l := range ls {
		e := scope.Named(l)
		if isGlob && e.Kind == scope.Object {
			e.Kind = scope.Prefix
		}
		out = append(out, e)
	}
	return out, nil
}

// locations normalises a named location: an http(s) URL, a file: URL or a local path (made
// absolute; a trailing '/' kept), the latter also as its real path when it exists.
func locations(p string) ([]scope.Loc, error) {
	if IsHTTP(p) || strings.HasPrefix(strings.ToLower(p), "file:") {
		l, err := scope.ParseURL(p)
		if err != nil {
			return nil, err
		}
		if l.Origin != "file://" {
			return []scope.Loc{l}, nil
		}
		p = l.Path
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	folder := strings.HasSuffix(p, "/") || p == "" || p == "."
	ls := []scope.Loc{}
	for _, q := range []string{abs, realPath(abs)} {
		if q == "" {
			continue
		}
		if folder {
			q += "/"
		}
		l, err := scope.ParseFile(filepath.ToSlash(q))
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// realPath is p with every symbolic link resolved, or "" when p does not exist.
func realPath(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// CheckURL checks an http(s) or file: URL that what (a log entry, a listing key) names.
func (s *Scope) CheckURL(u, what string) error {
	if s == nil {
		return nil
	}
	return s.sc.CheckURL(u, what)
}

// CheckLocal checks a local path that what names: the path as it will be opened, and its
// real path (a symbolic link inside a named folder that leads outside the scope is refused).
// A path that does not exist is checked as written; opening it fails anyway.
func (s *Scope) CheckLocal(p, what string) error {
	if s == nil {
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	l, err := scope.ParseFile(filepath.ToSlash(abs))
	if err != nil {
		return fmt.Errorf("%w: %s names %s: %w", scope.ErrOutside, what, p, err)
	}
	if err := s.sc.Check(l, what); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if l, err = scope.ParseFile(filepath.ToSlash(real)); err != nil {
		return fmt.Errorf("%w: %s names %s: %w", scope.ErrOutside, what, p, err)
	}
	if !s.sc.Contains(l) {
		return fmt.Errorf("%w: %s names %s, a symbolic link to %s (allow its target with Options.AllowPrefixes, --allow)", scope.ErrOutside, what, p, real)
	}
	return nil
}

// Client returns c (nil: a default client) with every request checked against the scope
// before it is sent: the requests the reader makes itself, and each redirect, which may also
// lead to Options.RedirectOrigins.
func (s *Scope) Client(c *http.Client) *http.Client {
	if c == nil {
		c = &http.Client{}
	}
	out := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = scopeTransport{base: base, s: s}
	return &out
}

type scopeTransport struct {
	base http.RoundTripper
	s    *Scope
}

func (t scopeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	what := "the request"
	if req.Response != nil && req.Response.Request != nil {
		what = "a redirect from " + req.Response.Request.URL.String()
		if l, err := scope.ParseURL(req.URL.String()); err == nil && t.s.redirects[l.Origin] {
			return t.base.RoundTrip(req)
		}
	}
	if err := t.s.sc.CheckRequest(req.URL, what); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return t.base.RoundTrip(req)
}
