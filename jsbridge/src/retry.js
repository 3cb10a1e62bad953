// The retry policy every HTTP request of the bridge shares (HttpSource's ranges and
// http-object.js's whole objects), as the Go hosts share internal/httprange/retry: 5xx, 429,
// network errors and cut bodies (a PqscanError marked retryable) are repeated after a capped,
// jittered backoff or the server's Retry-After; anything else fails at once.

import { PqscanError, abortReason } from './errors.js'
import { retryDelay } from './http-rules.js'
import { sleep } from './http-body.js'

export const retryDefaults = Object.freeze({ maxRetries: 4, backoffMs: 100, maxBackoffMs: 5000, maxRetryAfterMs: 10000 })

/** The policy of the options (maxRetries, backoffMs, maxBackoffMs, maxRetryAfterMs), defaults filled in. */
export function retryPolicy(opts = {}) {
  const p = { ...retryDefaults }
  for (const k of Object.keys(retryDefaults)) if (opts[k] != null) p[k] = opts[k]
  if (p.maxRetries < 0) p.maxRetries = 0
  return p
}

/**
 * Runs fn until it succeeds, throws anything but a retryable PqscanError, the signal aborts,
 * or policy.maxRetries retries are spent (the last error is thrown, no longer retryable).
 * onRetry (optional) is called before each retry's wait.
 */
export async function retrying(policy, signal, fn, onRetry) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn()
    } catch (e) {
      if (!(e instanceof PqscanError) || !e.retryable) throw e
      if (signal?.aborted) throw abortReason(signal)
      if (attempt >= policy.maxRetries) {
        e.retryable = false
        throw e
      }
      onRetry?.()
      await sleep(retryDelay(attempt, e.retryAfterMs, policy), signal)
    }
  }
}
