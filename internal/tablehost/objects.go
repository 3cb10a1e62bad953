package tablehost

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pqscan/pqscan/internal/httprange/httpclient"
	"github.com/pqscan/pqscan/internal/metacache"
	"github.com/pqscan/pqscan/internal/objstore"
	"github.com/pqscan/pqscan/internal/openscope"
)

// maxLogObject bounds one Delta log object read over HTTP (a commit, _last_checkpoint, a V2
// JSON checkpoint): a log object larger than this is refused rather than exhausting memory.
const maxLogObject = 256 << 20

// objectGetter is the whole-object getter for the objects below base (a whole URL per key
// when base is ""), with the client, header and retry policy of the range requests: a log
// commit or a listing page survives what a data range survives.
func objectGetter(base string, o httpclient.Options, maxSize int64) *objstore.HTTP {
	return objstore.NewHTTP(base, objstore.Options{Client: o.Client, Header: o.Header, Retry: o.RetryPolicy(), MaxSize: maxSize})
}

// getImmutable is httpGetWhole through Options.MetadataCache for the log objects that are
// never rewritten under their name (immutableObject): a reopened table reads only what is
// new. The rest (a _last_checkpoint, a version hint, a listing) is always asked again, so
// "latest" is never taken from the store.
func getImmutable(ctx context.Context, u, path string, opts Options) ([]byte, bool, error) {
	mc := metacache.New(opts.MetadataCache)
	if mc == nil || !immutableObject(path) {
		return httpGetWhole(ctx, u, opts.HTTP)
	}
	if b := mc.Object(u); b != nil {
		opts.use.object(path)
		return b, true, nil
	}
	b, found, err := httpGetWhole(ctx, u, opts.HTTP)
	if err == nil && found {
		mc.PutObject(u, b)
	}
	return b, found, err
}

// immutableObject says whether a table log object is immutable by its name: an Iceberg
// metadata file named by a UUID (metadata/00001-<uuid>.metadata.json), manifest list or
// manifest (.avro, UUID-named by every writer). A Delta commit is not, nor a Hadoop-style
// metadata file (metadata/v3.metadata.json): a table deleted and written again under the same
// path reuses those names. A Delta reopen resumes from the stored replayed state instead, which
// the log is checked against (loadDelta); a Hadoop-style file is always asked again.
func immutableObject(path string) bool {
	base := path[strings.LastIndexByte(path, '/')+1:]
	if strings.HasPrefix(path, "_delta_log/") {
		return false
	}
	return strings.HasSuffix(base, ".avro") || strings.HasSuffix(base, ".metadata.json") && uuidName.MatchString(base)
}

// uuidName matches a name holding a UUID (8-4-4-4-12 hex digits).
var uuidName = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// httpGetWhole GETs a Delta log object; found is false on 404.
func httpGetWhole(ctx context.Context, u string, o httpclient.Options) ([]byte, bool, error) {
	b, err := objectGetter("", o, maxLogObject).Get(ctx, u)
	switch {
	case err == nil:
		return b, true, nil
	case errors.Is(err, objstore.ErrNotFound):
		return nil, false, nil
	case errors.Is(err, objstore.ErrChanged):
		return nil, false, fmt.Errorf("%w: %w", httpclient.ErrFileChanged, err)
	case errors.Is(err, objstore.ErrTooLarge):
		return nil, false, fmt.Errorf("%w: %w", openscope.ErrSource, err)
	}
	return nil, false, err
}
