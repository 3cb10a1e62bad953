package discover

import (
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/listing"
	"github.com/pqscan/pqscan/internal/dataset/pathenc"
	"github.com/pqscan/pqscan/internal/dataset/pvalue"
	"github.com/pqscan/pqscan/internal/prune"
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
		st.objBase += pathenc.EscapeComponent(st.bucket, false) + "/"
	}
	return st, nil
}

// escapeKey is an object key as a URL path: each segment as encodeURIComponent writes it,
// '=' kept (Hive partition folders read as they are written).
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = pathenc.EscapeComponent(s, true)
	}
	return strings.Join(segs, "/")
}

// parseTime is a listing's LastModified (RFC 3339: 2009-10-12T17:50:30.000Z) in
// milliseconds since the epoch; 0 when it does not parse.
func parseTime(s string) int64 {
	ms, _ := pvalue.ParseTimestampUnit(s, prune.Milli)
	return ms
}
