package openscope

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/delta"
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/scope"
)

// Locate is where a path that a Delta log or Iceberg metadata names (what: its entry) is
// read: a URL, or a local path. A path relative to the root (decoded) is joined to it; an
// absolute URI (Delta allows them for data files and deletion vectors; an Iceberg path outside
// the table location, iceberg.Locate) is an http(s) URL or, for a local table only, a file:
// URL or an absolute path, read as written. Either must be in the open's scope: metadata that
// names a file outside the table root and the allowed prefixes is refused, naming its entry,
// before anything is requested.
func (s *Scope) Locate(root, p string, abs bool, what string) (string, error) {
	scheme, _, _ := strings.Cut(p, ":")
	switch {
	case !abs && IsHTTP(root):
		u := root + pathenc.EscapePath(p)
		return u, s.CheckURL(u, what)
	case !abs:
		l := filepath.Join(filepath.FromSlash(root), filepath.FromSlash(p))
		return l, s.CheckLocal(l, what)
	case strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"):
		return p, s.CheckURL(p, what)
	case strings.EqualFold(scheme, "file") && IsHTTP(root):
		return "", fmt.Errorf("%w: %s names a local file, and the table is remote", scope.ErrOutside, what)
	case strings.HasPrefix(p, "/") && IsHTTP(root):
		return "", fmt.Errorf("%w: %s names a local file, and the table is remote", scope.ErrOutside, what)
	case strings.HasPrefix(p, "/"):
		// An absolute path (Iceberg writes bare paths for local tables): a local file.
		local := filepath.FromSlash(p)
		return local, s.CheckLocal(local, what)
	case strings.EqualFold(scheme, "file"):
		l, err := scope.ParseFile(p)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %w", scope.ErrOutside, what, err)
		}
		local := filepath.FromSlash(l.Path)
		return local, s.CheckLocal(local, what)
	}
	return "", fmt.Errorf("%w: %s names the URI scheme %s:, which this reader does not fetch", delta.ErrUnsupportedFeature, what, scheme)
}

// PathMapBases checks a path map and returns its bases, sorted: the locations the caller
// named by it (New adds them to the scope).
func PathMapBases(m map[string]string) ([]string, error) {
	if err := iceberg.CheckPathMap(m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSource, err)
	}
	out := make([]string, 0, len(m))
	for _, b := range m {
		out = append(out, b)
	}
	sort.Strings(out)
	return out, nil
}
