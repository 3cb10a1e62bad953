package httpclient

import "errors"

// Sentinel errors. Every error returned by a Source wraps one of these (or a context error), with
// the URL, the byte range and the server's answer as context, so that callers can branch with
// errors.Is and users can read what went wrong.
var (
	// ErrFileChanged: the remote file changed between two requests of one scan (a 412 to our
	// If-Match / If-Unmodified-Since, or a different ETag, Last-Modified or total size). Bytes
	// from two versions must never be mixed, so the scan has to restart.
	ErrFileChanged = errors.New("httpclient: the file changed during the scan")
	// ErrBadContentRange: a 206 whose Content-Range is missing, malformed, or does not match the
	// requested range exactly; using its bytes would put them at the wrong offsets.
	ErrBadContentRange = errors.New("httpclient: bad Content-Range")
	// ErrShortBody: a response body ended before the length its Content-Range announced (after
	// retries); a short slice is never returned silently.
	ErrShortBody = errors.New("httpclient: response body shorter than announced")
	// ErrTooLarge: the server ignored Range and sent the whole file, which is larger than
	// Options.MaxWholeBody; keeping it in memory is refused.
	ErrTooLarge = errors.New("httpclient: whole-file response larger than MaxWholeBody")
	// ErrStatus: an HTTP status other than 200/206 (after retries for 5xx and 429).
	ErrStatus = errors.New("httpclient: unexpected HTTP status")
	// ErrEncoding: a response with a non-identity Content-Encoding (e.g. gzip): its bytes are
	// not the file's bytes and range offsets would be wrong.
	ErrEncoding = errors.New("httpclient: response has a Content-Encoding")
	// ErrOutOfRange: a requested range extends past the end of the file (or the server answered
	// 416 Range Not Satisfiable).
	ErrOutOfRange = errors.New("httpclient: range beyond the end of the file")
	// ErrInvalidRange: a requested range has a negative length or a zero-length suffix.
	ErrInvalidRange = errors.New("httpclient: invalid range")
)
