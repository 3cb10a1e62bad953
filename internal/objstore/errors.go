package objstore

import "errors"

// Sentinel errors. Every error Get returns wraps one of these (or a context error), with the
// object's URL and the server's answer as context.
var (
	// ErrNotFound: the object does not exist (HTTP 404). Callers that probe for optional
	// objects (a Delta _last_checkpoint, the next commit) branch on it.
	ErrNotFound = errors.New("objstore: object not found")
	// ErrTooLarge: the object is larger than Options.MaxSize (by its Content-Length, or by
	// the bytes read so far); reading stops there rather than exhausting memory.
	ErrTooLarge = errors.New("objstore: object larger than the size cap")
	// ErrChanged: the object changed between two attempts of one Get (a 412 to If-Match /
	// If-Unmodified-Since, or another ETag or Last-Modified). Bytes of two versions are never
	// mixed, and a Delta log object is immutable: a change is an error, not a retry.
	ErrChanged = errors.New("objstore: the object changed between attempts")
	// ErrStatus: an HTTP status other than 200 and 404 (after retries for 5xx and 429).
	ErrStatus = errors.New("objstore: unexpected HTTP status")
	// ErrShortBody: the body ended before its Content-Length, or the connection dropped
	// while it was read (after retries).
	ErrShortBody = errors.New("objstore: response body cut short")
)
