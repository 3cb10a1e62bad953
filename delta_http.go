package pqscan

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxLogObject bounds one Delta log object read over HTTP (a commit, _last_checkpoint, a V2
// JSON checkpoint): a log object larger than this is refused rather than exhausting memory.
const maxLogObject = 256 << 20

func isHTTP(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
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
