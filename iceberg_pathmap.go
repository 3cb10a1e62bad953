package pqscan

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/iceberg"
)

// ParsePathMap parses the text form of Options.PathMap: "PREFIX=BASE,PREFIX=BASE,…" (the
// CLI's --path-map and PQSCAN_ICEBERG_PATHS). Each entry splits at the first '=' that a base
// follows (an http(s) URL, a file: URL, or a local folder starting with '/', './' or '../'),
// so a prefix may hold '='; a prefix or base holding ',' needs the map form. A malformed
// spec is an ErrSource error saying what is wrong.
func ParsePathMap(spec string) (map[string]string, error) {
	m, err := iceberg.ParsePathMap(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSource, err)
	}
	return m, nil
}

// resolvePathMap is the path map as the Iceberg session takes it: each local base made an
// absolute file: URL (the session, in the module, resolves no path itself). A base that
// cannot be made absolute stays as written, which the session refuses, naming it.
func resolvePathMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for prefix, b := range m {
		out[prefix] = b
		if iceberg.IsBaseURL(b) {
			continue
		}
		abs, err := filepath.Abs(filepath.FromSlash(b))
		if err != nil {
			continue
		}
		p := filepath.ToSlash(abs)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a drive letter: file:///C:/…
		}
		out[prefix] = (&url.URL{Scheme: "file", Path: p}).String()
	}
	return out
}
