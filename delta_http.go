package pqscan

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pqscan/pqscan/internal/objstore"
)

// maxLogObject bounds one Delta log object read over HTTP (a commit, _last_checkpoint, a V2
// JSON checkpoint): a log object larger than this is refused rather than exhausting memory.
const maxLogObject = 256 << 20

func isHTTP(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// objectGetter is the whole-object getter for the objects below base (a whole URL per key
// when base is ""), with the client, header and retry policy of the range requests: a log
// commit or a listing page survives what a data range survives.
func objectGetter(base string, o HTTPOptions, maxSize int64) *objstore.HTTP {
	return objstore.NewHTTP(base, objstore.Options{Client: o.Client, Header: o.Header, Retry: o.RetryPolicy(), MaxSize: maxSize})
}

// httpGetWhole GETs a Delta log object; found is false on 404.
func httpGetWhole(ctx context.Context, u string, o HTTPOptions) ([]byte, bool, error) {
	b, err := objectGetter("", o, maxLogObject).Get(ctx, u)
	switch {
	case err == nil:
		return b, true, nil
	case errors.Is(err, objstore.ErrNotFound):
		return nil, false, nil
	case errors.Is(err, objstore.ErrChanged):
		return nil, false, fmt.Errorf("%w: %w", ErrFileChanged, err)
	case errors.Is(err, objstore.ErrTooLarge):
		return nil, false, fmt.Errorf("%w: %w", ErrSource, err)
	}
	return nil, false, err
}
