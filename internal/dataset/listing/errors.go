package listing

import "errors"

// Sentinel errors. Functions wrap them with %w and add the request URL, page number or key
// they concern, so callers can test with errors.Is and still show a precise message.
var (
	// ErrMalformed reports a response body that is not a well-formed ListObjectsV2 result:
	// invalid or truncated XML, a different root element, or a field that does not parse
	// (a negative or non-numeric Size, an empty Key).
	ErrMalformed = errors.New("dataset: malformed listing")

	// ErrService reports an S3-style <Error> document (NoSuchBucket, AccessDenied, ...); the
	// wrapped message carries the service's Code and Message.
	ErrService = errors.New("dataset: listing refused by the service")

	// ErrTruncated reports a page that says IsTruncated=true but gives no
	// NextContinuationToken, so the rest of the listing cannot be requested.
	ErrTruncated = errors.New("dataset: truncated listing without a continuation token")

	// ErrLoop reports a continuation token that was already followed: the server would send
	// the same pages forever.
	ErrLoop = errors.New("dataset: listing continuation token repeats")

	// ErrTooManyPages reports a listing longer than the pager's MaxPages bound.
	ErrTooManyPages = errors.New("dataset: listing exceeds the page limit")

	// ErrBadRequest reports a listing request that cannot be built: an empty origin, a
	// path-style request without a bucket, or a Pager used out of order.
	ErrBadRequest = errors.New("dataset: invalid listing request")
)
