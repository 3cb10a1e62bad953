package scope

import (
	"fmt"
	"net/url"
	"strings"
)

// Kind says how an Entry's path covers others.
type Kind int

const (
	// Object covers exactly its location (a named file; its query too).
	Object Kind = iota
	// Folder covers every path below its path, which ends in '/'.
	Folder
	// Prefix covers every path that begins with its path, as a listing prefix does (a glob's
	// fixed part may end inside a segment: "data/part-").
	Prefix
)

// Entry is one location of a Scope.
type Entry struct {
	Loc  Loc
	Kind Kind
}

// Scope is the set of locations one open may reach. The zero Scope contains nothing. It is
// immutable once built, so safe for concurrent use.
type Scope struct {
	entries []Entry
}

// Add returns the scope with e added.
func (s Scope) Add(e ...Entry) Scope {
	s.entries = append(append([]Entry(nil), s.entries...), e...)
	return s
}

// Entries returns the scope's entries.
func (s Scope) Entries() []Entry { return append([]Entry(nil), s.entries...) }

// Named is the entry of a location the user named: a path ending in '/' is a folder, any
// other an object. An allowed prefix is Allowed's.
func Named(l Loc) Entry {
	if strings.HasSuffix(l.Path, "/") {
		return Entry{Loc: l, Kind: Folder}
	}
	return Entry{Loc: l, Kind: Object}
}

// Allowed is the entry of a prefix allowed explicitly: a path ending in '/' is a folder;
// any other covers that object and the folder of the same name ("…/shared" covers
// "…/shared" and "…/shared/x", never "…/shared-secret").
func Allowed(l Loc) []Entry {
	if strings.HasSuffix(l.Path, "/") {
		return []Entry{{Loc: l, Kind: Folder}}
	}
	f := l
	f.Path += "/"
	f.Query = ""
	return []Entry{{Loc: l, Kind: Object}, {Loc: f, Kind: Folder}}
}

// Contains reports whether the scope covers l. A location with a query is covered only by an
// Object entry with the same query: a query may name another resource (an ACL, a listing).
func (s Scope) Contains(l Loc) bool {
	for _, e := range s.entries {
		if e.Loc.Origin != l.Origin {
			continue
		}
		switch e.Kind {
		case Object:
			if e.Loc.Path == l.Path && e.Loc.Query == l.Query {
				return true
			}
		case Folder, Prefix:
			if l.Query == "" && strings.HasPrefix(l.Path, e.Loc.Path) {
				return true
			}
		}
	}
	return false
}

// ContainsListing reports whether a listing of the keys under prefix (a Loc whose path is
// the listing's bucket path joined with its prefix, as ListingLoc makes it) stays in the
// scope: every key it can return must be.
func (s Scope) ContainsListing(l Loc) bool {
	l.Query = ""
	for _, e := range s.entries {
		if e.Loc.Origin == l.Origin && e.Kind != Object && strings.HasPrefix(l.Path, e.Loc.Path) {
			return true
		}
	}
	return false
}

// Check returns nil when the scope covers l, else ErrOutside naming what asked for it.
func (s Scope) Check(l Loc, what string) error {
	if s.Contains(l) {
		return nil
	}
	return fmt.Errorf("%w: %s names %s", ErrOutside, what, l)
}

// CheckURL normalises raw (ParseURL, or ParseFile for a file: URL) and checks it.
func (s Scope) CheckURL(raw, what string) error {
	l, err := ParseURL(raw)
	if err != nil {
		return fmt.Errorf("%w: %s names %s: %w", ErrOutside, what, raw, err)
	}
	return s.Check(l, what)
}

// CheckRequest checks the URL of a request about to be sent: an S3 ListObjectsV2 request
// (list-type=2) by its bucket path and prefix parameter (ContainsListing), any other by its
// location.
func (s Scope) CheckRequest(u *url.URL, what string) error {
	q := u.Query()
	if q.Get("list-type") != "2" {
		return s.CheckURL(u.String(), what)
	}
	base := *u
	base.RawQuery, base.Fragment = "", ""
	l, err := ParseURL(base.String())
	if err == nil {
		l.Path, err = cleanPath(strings.TrimSuffix(l.Path, "/")+"/"+q.Get("prefix"), false)
	}
	if err != nil {
		return fmt.Errorf("%w: %s lists %s: %w", ErrOutside, what, u, err)
	}
	if !s.ContainsListing(l) {
		return fmt.Errorf("%w: %s lists %s", ErrOutside, what, l)
	}
	return nil
}
