// Package retry is the retry policy of pqscan's HTTP clients: which failures are worth
// repeating (5xx, 429, dropped connections, cut bodies), how long to wait before each retry
// (capped exponential backoff with jitter, or the server's Retry-After), and the loop that
// runs an attempt until it succeeds or the retries are spent. The range client
// (internal/httprange/httpclient) and the whole-object getter (internal/objstore) share it,
// so that a Delta log commit survives what a data request survives.
//
// It does no I/O itself: an attempt is the caller's function, and the wait goes through
// Policy.Sleep, which tests replace with internal/testclock.
package retry

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Policy says how often and after what wait a failed attempt is repeated. The zero value
// means the defaults (see WithDefaults).
type Policy struct {
	// MaxRetries is the number of retries after the first attempt; 0 means 4, negative
	// means none.
	MaxRetries int
	// Backoff is the base delay before the first retry, doubled per retry with jitter and
	// capped at MaxBackoff; 0 means 100 ms.
	Backoff time.Duration
	// MaxBackoff caps one backoff delay; 0 means 5 s.
	MaxBackoff time.Duration
	// MaxRetryAfter caps how long a Retry-After header may make us wait; 0 means 10 s.
	MaxRetryAfter time.Duration
	// Sleep waits d before a retry, returning early with ctx.Err() when ctx ends; nil means
	// a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

const (
	defaultMaxRetries    = 4
	defaultBackoff       = 100 * time.Millisecond
	defaultMaxBackoff    = 5 * time.Second
	defaultMaxRetryAfter = 10 * time.Second
)

// WithDefaults returns p with every zero field set to its default and a negative
// MaxRetries made 0.
func (p Policy) WithDefaults() Policy {
	if p.MaxRetries == 0 {
		p.MaxRetries = defaultMaxRetries
	} else if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.Backoff <= 0 {
		p.Backoff = defaultBackoff
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = defaultMaxBackoff
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = defaultMaxRetryAfter
	}
	if p.Sleep == nil {
		p.Sleep = Sleep
	}
	return p
}

// Error marks a failure worth repeating; After is the server's Retry-After (-1 when absent).
type Error struct {
	Err   error
	After time.Duration
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Retryable wraps err as worth repeating after the server's Retry-After (-1: none given).
func Retryable(err error, after time.Duration) error { return &Error{Err: err, After: after} }

// Do runs try until it succeeds, fails with an error that is not an *Error, ctx ends, or
// MaxRetries retries are spent; onRetry (may be nil) is called before each retry's wait.
// The returned error is never an *Error: callers see the attempt's own error. p must have
// its defaults set (WithDefaults).
func (p Policy) Do(ctx context.Context, try func() error, onRetry func()) error {
	for attempt := 0; ; attempt++ {
		err := try()
		if err == nil {
			return nil
		}
		var re *Error
		if !errors.As(err, &re) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempt >= p.MaxRetries {
			return re.Err
		}
		if onRetry != nil {
			onRetry()
		}
		if err := p.Sleep(ctx, p.Delay(attempt, re.After)); err != nil {
			return err
		}
	}
}

// Delay is the wait before retry number attempt+1: the server's Retry-After when it sent one
// (capped at MaxRetryAfter), else Backoff·2^attempt capped at MaxBackoff with jitter in
// [d/2, d) so that parallel requests do not retry in lockstep.
func (p Policy) Delay(attempt int, after time.Duration) time.Duration {
	if after >= 0 {
		return min(after, p.MaxRetryAfter)
	}
	d := p.Backoff
	for i := 0; i < attempt && d < p.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// Sleep waits d, returning early with ctx.Err() when ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Status classifies a final HTTP status: err (which describes it) wrapped as retryable for
// 5xx and 429, with the response's Retry-After; err unchanged for any other status.
func Status(err error, code int, h http.Header, now time.Time) error {
	if code >= 500 || code == http.StatusTooManyRequests {
		return Retryable(err, ParseRetryAfter(h.Get("Retry-After"), now))
	}
	return err
}

// ParseRetryAfter reads delay-seconds or an HTTP-date (RFC 9110 §10.2.3); -1 when absent or
// malformed.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return -1
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// IsTransient reports whether a transport error is worth retrying: dropped or refused
// connections and timeouts, not malformed URLs or redirect-policy failures.
func IsTransient(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
