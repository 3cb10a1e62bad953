// Package glob selects the data files of a dataset from a listing: glob patterns over object
// keys or slash-separated local paths, the literal prefix to list, and the Spark/Hive rule that
// skips hidden and bookkeeping files.
//
// Semantics are path.Match's for each '/'-separated segment (`*`, `?` and `[...]` classes
// never cross '/' — path.Match's classes can, ours cannot — and '\' escapes), plus `**` as a whole segment matching zero or more segments,
// as in DataFusion's listing_glob and most shells with globstar (a trailing `**` matches one or
// more, so "d/**" is everything below d/). `**` inside a longer segment
// ("a**b") is plain path.Match, i.e. the same as `*`.
//
// Hidden segments: a name starting with '.' or with '_' (unless it contains '=', so `_c=1` is
// still a Hive partition), or ending in "._COPYING_", is skipped, as Spark's
// InMemoryFileIndex.shouldFilterOutPathName does (it keeps `_delta_log`, `_SUCCESS`,
// `.crc` files, `_temporary` attempts and in-flight copies out of a table). In a glob, only a
// wildcard refuses to match such a name; a literal segment may name it ("_staging/*.parquet").
package glob

import (
	"path"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
)

// HasMeta reports whether s contains a glob metacharacter (`*`, `?`, `[` or '\').
func HasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// Hidden reports whether one path segment is hidden by the Spark/Hive rule above.
func Hidden(name string) bool {
	return strings.HasPrefix(name, ".") ||
		strings.HasPrefix(name, "_") && !strings.Contains(name, "=") ||
		strings.HasSuffix(name, "._COPYING_")
}

// Pattern is a compiled glob. It is immutable and safe for concurrent use.
type Pattern struct {
	raw  string
	segs []string // "**" for a globstar segment, else a path.Match pattern
}

// Compile checks pattern and splits it into segments.
func Compile(pattern string) (*Pattern, error) {
	if pattern == "" {
		return nil, errf.Errorf("%w: empty pattern", ErrBadPattern)
	}
	segs := strings.Split(pattern, "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, errf.Errorf("%w: %q", ErrBadPattern, pattern)
		}
	}
	return &Pattern{raw: pattern, segs: segs}, nil
}

// String returns the pattern as given.
func (p *Pattern) String() string { return p.raw }

// Prefix returns the literal text before the first metacharacter: the prefix to list so that
// every matching key is returned ("data/2024-*/x.parquet" lists "data/2024-"). It may end in
// the middle of a segment, which ListObjectsV2 prefixes allow.
func (p *Pattern) Prefix() string {
	if i := strings.IndexAny(p.raw, `*?[\`); i >= 0 {
		return p.raw[:i]
	}
	return p.raw
}

// Match reports whether key (slash-separated, no leading '/') matches the whole pattern.
// Wildcards never match a hidden segment (see the package doc).
func (p *Pattern) Match(key string) bool {
	ks := strings.Split(key, "/")
	// memo[i][j]: 0 unknown, 1 false, 2 true, for pattern segment i and key segment j; bounds
	// the globstar backtracking to len(segs)*len(ks) steps.
	memo := make([]uint8, (len(p.segs)+1)*(len(ks)+1))
	var match func(i, j int) bool
	match = func(i, j int) bool {
		m := &memo[i*(len(ks)+1)+j]
		if *m != 0 {
			return *m == 2
		}
		var ok bool
		switch {
		case i == len(p.segs):
			ok = j == len(ks)
		case p.segs[i] == "**" && i == len(p.segs)-1:
			// a trailing "**" matches one or more segments: "d/**" is what is below d/,
			// never a file named d (which would not even have the listing prefix "d/").
			ok = j < len(ks) && !Hidden(ks[j]) && (j+1 == len(ks) || match(i, j+1))
		case p.segs[i] == "**":
			// zero segments, or consume one non-hidden segment and stay on "**".
			ok = match(i+1, j) || j < len(ks) && !Hidden(ks[j]) && match(i, j+1)
		case j == len(ks):
			ok = false
		default:
			ok = segMatch(p.segs[i], ks[j]) && match(i+1, j+1)
		}
		if ok {
			*m = 2
		} else {
			*m = 1
		}
		return ok
	}
	return match(0, 0)
}

// segMatch matches one segment; a hidden name only matches a pattern that starts literally.
func segMatch(pat, name string) bool {
	if Hidden(name) && pat != "" && strings.ContainsRune(`*?[\`, rune(pat[0])) {
		return false
	}
	ok, _ := path.Match(pat, name)
	return ok
}

// Selector decides which listed keys are data files of a dataset given either as a folder
// (every *.parquet below it) or as a glob. The zero value is Folder(""): every *.parquet key.
type Selector struct {
	root string   // folder mode: the folder, ending in '/' unless empty
	pat  *Pattern // glob mode
}

// Folder selects every `*.parquet` key below root (a key prefix or a slash-separated local
// path; a trailing '/' is added when missing), skipping hidden segments below root.
func Folder(root string) Selector {
	if root != "" && !strings.HasSuffix(root, "/") {
		root += "/"
	}
	return Selector{root: root}
}

// Glob selects the keys that match pattern.
func Glob(pattern string) (Selector, error) {
	p, err := Compile(pattern)
	if err != nil {
		return Selector{}, err
	}
	return Selector{pat: p}, nil
}

// Prefix returns the key prefix to list (ListObjectsV2 `prefix`, or the directory to walk up
// to its last '/').
func (s Selector) Prefix() string {
	if s.pat != nil {
		return s.pat.Prefix()
	}
	return s.root
}

// Keep reports whether a listed key is a data file of the dataset. Directory markers (keys
// ending in '/') are never kept.
func (s Selector) Keep(key string) bool {
	if key == "" || strings.HasSuffix(key, "/") {
		return false
	}
	if s.pat != nil {
		return s.pat.Match(key)
	}
	if !strings.HasPrefix(key, s.root) {
		return false
	}
	rel := key[len(s.root):]
	if !strings.HasSuffix(rel, ".parquet") {
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || Hidden(seg) {
			return false
		}
	}
	return true
}

// Filter returns the kept keys of keys, in their order (a listing's order is the dataset's).
func (s Selector) Filter(keys []string) []string {
	var out []string
	for _, k := range keys {
		if s.Keep(k) {
			out = append(out, k)
		}
	}
	return out
}
