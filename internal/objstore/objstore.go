// Package objstore reads whole objects of a remote store: the Delta log's commits,
// _last_checkpoint and JSON checkpoints, and ListObjectsV2 pages. It is the object layer's
// getter beside the range client (internal/httprange/httpclient), which reads parts of large
// files; both retry with the same policy (internal/httprange/retry), so a 503 on a log
// commit is survived as a 503 on a data range is.
//
// Guarantees of Get over HTTP:
//   - 5xx, 429, dropped connections and cut bodies are retried with capped exponential
//     backoff and jitter, Retry-After honoured up to the policy's cap; other 4xx are not.
//   - The first 200's ETag / Last-Modified are sent back on retries as If-Match (strong
//     ETag) or If-Unmodified-Since; a 412 or another validator is ErrChanged: the bytes
//     returned are always one version's.
//   - The size cap is checked while reading: a Content-Length over it fails before the body
//     is read, and a body without one is read to at most MaxSize+1 bytes.
//
// Non-goals: ranges (the range client's job), writes, caching.
package objstore

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pqscan/pqscan/internal/httprange/retry"
)

// Getter reads whole objects. Get returns the bytes of the object named key, all of them;
// an object that does not exist is an error wrapping ErrNotFound. The returned slice is the
// caller's. Implementations are safe for concurrent use.
type Getter interface {
	Get(ctx context.Context, key string) ([]byte, error)
}

// Options configure NewHTTP. The zero value is usable.
type Options struct {
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Header is added to every request (e.g. Authorization).
	Header http.Header
	// Retry is the retry policy; its zero fields mean the defaults (retry.Policy).
	Retry retry.Policy
	// MaxSize caps one object's size in bytes; 0 means DefaultMaxSize.
	MaxSize int64
}

// DefaultMaxSize is the size cap of an object when Options.MaxSize is 0.
const DefaultMaxSize = 256 << 20

// HTTP is a Getter over HTTP GETs: key is appended to the base URL as it is (already
// escaped; with an empty base the key is a whole URL, e.g. a listing page with its query).
type HTTP struct {
	base string
	opt  Options
}

// NewHTTP returns a Getter for the objects below the base URL.
func NewHTTP(base string, opt Options) *HTTP {
	if opt.Client == nil {
		opt.Client = http.DefaultClient
	}
	if opt.MaxSize <= 0 {
		opt.MaxSize = DefaultMaxSize
	}
	opt.Retry = opt.Retry.WithDefaults()
	return &HTTP{base: base, opt: opt}
}

// validators are the first 200's ETag and Last-Modified, which every later attempt of the
// same Get must match.
type validators struct {
	seen          bool
	etag, lastMod string
}

// Get GETs the object at base+key whole. See the package documentation for the guarantees.
func (h *HTTP) Get(ctx context.Context, key string) ([]byte, error) {
	u := h.base + key
	var (
		v   validators
		out []byte
	)
	err := h.opt.Retry.Do(ctx, func() error {
		b, err := h.try(ctx, u, &v)
		out = b
		return err
	}, nil)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// try sends one GET and reads its answer; a retryable failure is a *retry.Error.
func (h *HTTP) try(ctx context.Context, u string, v *validators) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("objstore: %w", err)
	}
	for k, vs := range h.opt.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if v.etag != "" && !strings.HasPrefix(v.etag, "W/") {
		req.Header.Set("If-Match", v.etag)
	} else if v.lastMod != "" {
		req.Header.Set("If-Unmodified-Since", v.lastMod)
	}
	resp, err := h.opt.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		err = fmt.Errorf("objstore: %s: %w", u, err)
		if retry.IsTransient(err) {
			return nil, retry.Retryable(err, -1)
		}
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusPreconditionFailed:
		return nil, fmt.Errorf("%w (412 Precondition Failed for %s, %s)", ErrChanged, req.Header.Get("If-Match")+req.Header.Get("If-Unmodified-Since"), u)
	default:
		err := &StatusError{URL: u, Code: resp.StatusCode, Body: snippet(resp.Body)}
		return nil, retry.Status(err, resp.StatusCode, resp.Header, time.Now())
	}
	if err := v.check(resp, u); err != nil {
		return nil, err
	}
	return h.readBody(ctx, resp, u)
}

// check records the validators of the first 200 and compares later ones. A strong ETag
// decides alone; Last-Modified is compared only when there is no ETag.
func (v *validators) check(resp *http.Response, u string) error {
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if !v.seen {
		v.seen, v.etag, v.lastMod = true, etag, lm
		return nil
	}
	if v.etag != "" && etag != "" && etag != v.etag {
		return fmt.Errorf("%w (ETag %s → %s, %s)", ErrChanged, v.etag, etag, u)
	}
	if v.etag == "" && v.lastMod != "" && lm != "" && lm != v.lastMod {
		return fmt.Errorf("%w (Last-Modified %s → %s, %s)", ErrChanged, v.lastMod, lm, u)
	}
	return nil
}

// readBody reads a 200's body, refusing it by its Content-Length when that is over the cap
// and otherwise stopping one byte past the cap: a hostile or mistaken server cannot make
// the reader hold more than MaxSize+1 bytes.
func (h *HTTP) readBody(ctx context.Context, resp *http.Response, u string) ([]byte, error) {
	limit := h.opt.MaxSize
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%w: %s has %d bytes (Content-Length), the cap is %d", ErrTooLarge, u, resp.ContentLength, limit)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, retry.Retryable(fmt.Errorf("%w: %s after %d bytes: %v", ErrShortBody, u, len(b), err), -1)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrTooLarge, u, limit)
	}
	if resp.ContentLength >= 0 && int64(len(b)) != resp.ContentLength {
		return nil, retry.Retryable(fmt.Errorf("%w: %s: got %d of %d bytes", ErrShortBody, u, len(b), resp.ContentLength), -1)
	}
	return b, nil
}

// snippet is the start of an error response's body, whitespace collapsed: an object
// store's <Error> document says why in a few hundred bytes.
func snippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 1024))
	msg := strings.Join(strings.Fields(string(b)), " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}

// StatusError is a final HTTP answer other than 200: a 404 is ErrNotFound for errors.Is,
// any other status ErrStatus.
type StatusError struct {
	URL  string
	Code int
	Body string // the start of the response body, whitespace collapsed
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d %s", e.URL, e.Code, http.StatusText(e.Code))
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// Is makes errors.Is(err, ErrNotFound) true for a 404 and errors.Is(err, ErrStatus) for any
// other status.
func (e *StatusError) Is(target error) bool {
	if e.Code == http.StatusNotFound {
		return target == ErrNotFound
	}
	return target == ErrStatus
}
