package pqscan

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/pqscan/pqscan/internal/dataset/delta"
)

// maxLogObject bounds one Delta log object read over HTTP (a commit, _last_checkpoint, a V2
// JSON checkpoint): a log object larger than this is refused rather than exhausting memory.
const maxLogObject = 256 << 20

func isHTTP(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// fetchDeltaHTTP performs one Loader request against a table served over HTTP that does not
// list. Without a listing the Loader reads _last_checkpoint and then probes commits in
// batches until one is missing; only 404 means missing (any other status fails the load, so
// that an outage cannot pass for the end of the log).
func fetchDeltaHTTP(ctx context.Context, root string, r delta.Request, opts Options) (func(*delta.Loader) error, error) {
	u := root + r.Path
	switch r.Kind {
	case delta.ReqGet:
		b, found, err := httpGetWhole(ctx, u, opts.HTTP)
		if err != nil {
			return nil, err
		}
		return func(l *delta.Loader) error { return l.PushObject(r.Path, b, found) }, nil
	case delta.ReqCheckpoint:
		return fetchCheckpoint(ctx, u, r.Path, opts)
	}
	return nil, fmt.Errorf("%w: Delta request kind %d over HTTP", ErrProtocol, r.Kind)
}

// httpGetWhole GETs a small object; found is false on 404.
func httpGetWhole(ctx context.Context, u string, o HTTPOptions) ([]byte, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	for k, vs := range o.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	c := o.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", u, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, false, nil
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("%s: HTTP %s", u, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxLogObject+1))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", u, err)
	}
	if len(b) > maxLogObject {
		return nil, false, fmt.Errorf("%w: %s is larger than %d bytes", ErrSource, u, maxLogObject)
	}
	return b, true, nil
}
