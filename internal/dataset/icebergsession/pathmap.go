package icebergsession

import (
	"github.com/pqscan/pqscan/internal/dataset/iceberg"
	"github.com/pqscan/pqscan/internal/errf"
)

// checkPathMap checks that every base of Options.PathMap is a URL the host resolved (a local
// folder as a file: URL): the session cannot resolve a relative path itself. The hosts check
// the rest of the map's form (iceberg.CheckPathMap) before they start a session; a prefix
// they let through that no path can match maps nothing here.
func checkPathMap(m map[string]string) error {
	for prefix, base := range m {
		if !iceberg.IsBaseURL(base) {
			return errf.Errorf("%w: the path map's base %q of %q is not an http(s) or file: URL", ErrOptions, base, prefix)
		}
	}
	return nil
}
