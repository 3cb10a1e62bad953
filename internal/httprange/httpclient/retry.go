package httpclient

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

// nowFunc is time.Now, replaceable in tests of Retry-After dates.
var nowFunc = time.Now

// retryableError marks a failure worth repeating; after is the server's Retry-After (-1 when
// absent).
type retryableError struct {
	err   error
	after time.Duration
}

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

func retryable(err error, after time.Duration) error { return &retryableError{err: err, after: after} }

// retry runs try until it succeeds, fails with a non-retryable error, the context ends, or
// MaxRetries retries are spent. The returned error is never a *retryableError.
func (s *httpSource) retry(ctx context.Context, try func() error) error {
	for attempt := 0; ; attempt++ {
		err := try()
		if err == nil {
			return nil
		}
		var re *retryableError
		if !errors.As(err, &re) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempt >= s.opt.MaxRetries {
			return re.err
		}
		s.retries.Add(1)
		if err := s.opt.Sleep(ctx, s.delay(attempt, re.after)); err != nil {
			return err
		}
	}
}

// delay is the wait before retry number attempt+1: the server's Retry-After when it sent one
// (capped at MaxRetryAfter), else Backoff·2^attempt capped at MaxBackoff with jitter in
// [d/2, d) so that parallel requests do not retry in lockstep.
func (s *httpSource) delay(attempt int, after time.Duration) time.Duration {
	if after >= 0 {
		return min(after, s.opt.MaxRetryAfter)
	}
	d := s.opt.Backoff
	for i := 0; i < attempt && d < s.opt.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, s.opt.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
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

// parseRetryAfter reads delay-seconds or an HTTP-date (RFC 9110 §10.2.3); -1 when absent or
// malformed.
func parseRetryAfter(v string, now time.Time) time.Duration {
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

// isTransient reports whether a transport error is worth retrying: dropped or refused
// connections and timeouts, not malformed URLs or redirect-policy failures.
func isTransient(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
