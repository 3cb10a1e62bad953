// Package httpclient fetches byte ranges of a remote file over HTTP for the native hosts (the
// wazero host, the Go API and the CLI). It is the I/O half of httprange: the engine plans ranges,
// this package fetches them in parallel with retries and checks that every byte comes from the
// same version of the file at the offset it claims.
//
// Guarantees of the HTTP Source:
//   - With an unknown size, the first request is one suffix range (bytes=-TailSize) that learns
//     the size from Content-Range and keeps the tail, so the engine's footer read costs nothing
//     more. With a known size no HEAD or probe is sent.
//   - Every 206 must carry a Content-Range equal to the request; a body shorter than announced is
//     retried, then reported: never a silently short or shifted slice.
//   - A 200 to a ranged request (Range ignored) is read once (bounded by MaxWholeBody) and every
//     later range is served from memory: the file is never downloaded twice. To make sure,
//     requests go one at a time until the first 200 or 206 shows how the server treats Range.
//   - ETag / Last-Modified of the first response are sent back as If-Match (strong ETag) or
//     If-Unmodified-Since; a 412, a different validator or a different size is ErrFileChanged.
//   - 5xx, 429 and dropped connections are retried with capped exponential backoff and jitter
//     (Retry-After honoured up to MaxRetryAfter); other 4xx are not.
//   - Accept-Encoding: identity is sent; a compressed response is an error.
//
// Non-goals: caching across scans, HTTP/1.1 multipart byteranges (one range per request).
package httpclient

import (
	"context"
	"net/http"
	"time"

	"github.com/pqscan/pqscan/internal/httprange"
)

// Source gives a scan the bytes of one file. Implementations are safe for concurrent use.
type Source interface {
	// Size returns the file size, learning it with one request if needed.
	Size(ctx context.Context) (int64, error)
	// Fetch fetches every range (concurrently, at most Concurrency in flight) and calls deliver
	// once per range with its bytes; deliver calls are serialized. Returns the first error; ctx
	// cancels in-flight requests.
	//
	// A range with a negative Off is a suffix of -Off bytes (its Len is ignored); it is
	// delivered at its real offset. Ranges must lie inside the file when its size is known.
	// b is read-only and valid only until deliver returns: it may alias memory the Source
	// keeps (a whole-file body or the probed tail). Copy it to keep it. After the first error
	// (from a request or from deliver) no further deliver call is made.
	Fetch(ctx context.Context, ranges []httprange.Range, deliver func(off int64, b []byte) error) error
	// Stats returns counters since the Source was created.
	Stats() Stats
}

// HandsOver is a Source whose deliver calls get memory that no one else references, freshly
// read for that Fetch: the receiver may keep b (read-only) after deliver returns instead of
// copying it. A local file's Source is one: copying what it has just read would double the
// bytes every scan allocates.
type HandsOver interface {
	HandsOver()
}

// Versioned is a Source that knows the version of the file it reads: the ETag and
// Last-Modified of its first response (or those it was given), "" when unknown.
type Versioned interface {
	Validators() (etag, lastModified string)
}

// Stats counts the work a Source did.
type Stats struct {
	// Requests is the number of HTTP requests sent (ReadAt calls for NewReaderAt), retries
	// included.
	Requests int64
	// Bytes is the number of body bytes received.
	Bytes int64
	// Retries is the number of requests repeated after a retryable failure.
	Retries int64
	// RoundTrips is the number of Fetch (or Size) calls that issued at least one request and
	// began while no other call was in progress (a call beside another shares its round
	// trip): the latency a scan pays is roughly RoundTrips × the network round-trip time.
	RoundTrips int64
}

// Options configure NewHTTP. The zero value is usable.
type Options struct {
	// Client sends the requests; nil means a client with http.DefaultTransport. Redirects are
	// followed per the client's policy (Go's default follows up to 10, across origins too).
	Client *http.Client
	// Header is added to every request (e.g. Authorization). Range, If-Match,
	// If-Unmodified-Since and Accept-Encoding are set by the Source.
	Header http.Header
	// Concurrency caps the requests in flight per Source, across concurrent Fetch calls; 0 means 6 (a browser's per-origin
	// HTTP/1.1 limit, which CDNs are tuned for).
	Concurrency int
	// MaxRetries is the number of retries per request after the first attempt; 0 means 4,
	// negative means none.
	MaxRetries int
	// Backoff is the base delay before the first retry, doubled per retry with ±50% jitter and
	// capped at MaxBackoff; 0 means 100 ms.
	Backoff time.Duration
	// MaxBackoff caps one backoff delay; 0 means 5 s.
	MaxBackoff time.Duration
	// MaxRetryAfter caps how long a Retry-After header may make us wait; 0 means 10 s.
	MaxRetryAfter time.Duration
	// FileSize is the file size if known (saves the probe request); 0 means unknown.
	FileSize int64
	// TailSize is the length of the suffix request that learns an unknown size; 0 means
	// 64 KiB, matching scan.Options.TailSize so the engine's first NeedRanges is served from it.
	TailSize int64
	// MaxWholeBody caps the body of a 200 to a ranged request (a server that ignores Range);
	// 0 means 256 MiB.
	MaxWholeBody int64
	// ETag, when known beforehand (from a bucket listing), is the version the file must have:
	// it is sent as If-Match from the first request on, and any other version is
	// ErrFileChanged. That makes a footer cached under this ETag safe to reuse.
	ETag string `json:"-"`
	// LastModified, when known beforehand (a cached footer of a file served without an ETag),
	// is the version the file must have, as ETag is: sent as If-Unmodified-Since, and any
	// other Last-Modified is ErrFileChanged. Ignored when ETag is set.
	LastModified string `json:"-"`
	// RangeKnown says the server is known to answer this file's ranged requests with 206 (a
	// stored tail of it was read that way): the first requests go out together instead of one
	// at a time. A server that has since stopped honouring Range is still read once (the
	// other 200s drop their bodies), at the cost of those bodies.
	RangeKnown bool `json:"-"`
	// Sleep waits d before a retry, returning early with ctx.Err() when ctx ends; nil means a
	// timer. A host with its own clock, or a test that records the waits, replaces it.
	Sleep func(ctx context.Context, d time.Duration) error `json:"-"`
}

const (
	defaultConcurrency  = 6
	defaultTailSize     = 64 << 10
	defaultMaxWholeBody = 256 << 20
)

func (o *Options) normalize() {
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.Concurrency <= 0 {
		o.Concurrency = defaultConcurrency
	}
	if o.TailSize <= 0 {
		o.TailSize = defaultTailSize
	}
	if o.MaxWholeBody <= 0 {
		o.MaxWholeBody = defaultMaxWholeBody
	}
	if o.FileSize < 0 {
		o.FileSize = 0
	}
}
