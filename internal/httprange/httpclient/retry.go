package httpclient

import (
	"context"
	"time"

	"github.com/pqscan/pqscan/internal/httprange/retry"
)

// nowFunc is time.Now, replaceable in tests of Retry-After dates.
var nowFunc = time.Now

// retryableError marks a failure worth repeating (the shared retry policy's marker).
type retryableError = retry.Error

func retryable(err error, after time.Duration) error { return retry.Retryable(err, after) }

// RetryPolicy is the retry policy the options describe, defaults applied: the range client
// uses it, and so do other clients configured by the same Options (the whole-object getter
// of internal/objstore), so that every request of a scan retries alike.
func (o Options) RetryPolicy() retry.Policy {
	return retry.Policy{MaxRetries: o.MaxRetries, Backoff: o.Backoff, MaxBackoff: o.MaxBackoff, MaxRetryAfter: o.MaxRetryAfter, Sleep: o.Sleep}.WithDefaults()
}

// retry runs try under the source's retry policy, counting retries in Stats. The returned
// error is never a *retryableError.
func (s *httpSource) retry(ctx context.Context, try func() error) error {
	return s.policy.Do(ctx, try, func() { s.retries.Add(1) })
}
