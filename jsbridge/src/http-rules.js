// The HTTP rules of HttpSource that are decided from one response, without I/O: Content-Range
// (RFC 9110 §14.4, strictly, as the Go host: internal/httprange/httpclient/http.go),
// Retry-After, the validators that pin the file's version, the CORS hint and the backoff.

import { PqscanError } from './errors.js'

export const CORS_HINT =
  'if the file is on another origin, the server must send ' +
  '"Access-Control-Expose-Headers: Content-Range, Content-Length, ETag" (CORS hides other response headers from scripts)'

/**
 * Parses "bytes a-b/total", "bytes a-b/*" or "bytes *\/total" strictly (RFC 9110 §14.4), as the
 * Go host does: unit bytes, plain decimal numbers, a ≤ b, b < total when known.
 * @returns {{first:number,last:number,total:number,unsatisfied:boolean}|null} null when malformed
 */
export function parseContentRange(s) {
  if (typeof s !== 'string' || !s.startsWith('bytes ')) return null
  const rest = s.slice(6)
  const slash = rest.indexOf('/')
  if (slash < 0) return null
  const spec = rest.slice(0, slash)
  const totalStr = rest.slice(slash + 1)
  let total = -1
  if (totalStr !== '*') {
    total = decimal(totalStr)
    if (total < 0) return null
  }
  if (spec === '*') {
    if (total < 0) return null
    return { first: -1, last: -1, total, unsatisfied: true }
  }
  const dash = spec.indexOf('-')
  if (dash < 0) return null
  const first = decimal(spec.slice(0, dash))
  const last = decimal(spec.slice(dash + 1))
  if (first < 0 || last < 0 || first > last || (total >= 0 && last >= total)) return null
  return { first, last, total, unsatisfied: false }
}

// decimal accepts 1 to 15 ASCII digits (exact in a double); -1 otherwise.
function decimal(s) {
  if (s.length === 0 || s.length > 15) return -1
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 48 || c > 57) return -1
  }
  return Number(s)
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3), in ms; -1 when absent/bad. */
export function parseRetryAfter(v, now = Date.now()) {
  if (v == null) return -1
  v = String(v).trim()
  if (v === '') return -1
  if (/^\d+$/.test(v)) return Math.min(Number(v), 2 ** 31) * 1000
  const t = Date.parse(v)
  if (Number.isNaN(t) || !/[a-z]/i.test(v)) return -1
  return Math.max(t - now, 0)
}

/** The error for a 206 without a readable Content-Range (CORS hides it cross-origin). */
export function noContentRange(resp, spec, url) {
  const cors = resp.type === 'cors'
  return new PqscanError(
    cors ? 'cors' : 'bad-content-range',
    `pqscan: the 206 response to ${spec} has no readable Content-Range (${url}); ` +
      (cors ? CORS_HINT : 'the server must send Content-Range with partial content; ' + CORS_HINT),
    { status: resp.status },
  )
}

// Records ETag/Last-Modified of the first response and compares later ones. A strong ETag
// decides alone; Last-Modified is compared only when there is no ETag. Returns the validators
// to keep (the first response's), or throws "file-changed".
export function checkValidators(v, resp, url) {
  const etag = resp.headers.get('ETag') ?? ''
  const lm = resp.headers.get('Last-Modified') ?? ''
  if (!v) return { etag, lastModified: lm }
  if (v.etag && etag && etag !== v.etag) {
    throw new PqscanError('file-changed', `pqscan: the file changed during the scan (ETag ${v.etag} → ${etag}, ${url})`)
  }
  if (!v.etag && v.lastModified && lm && lm !== v.lastModified) {
    throw new PqscanError('file-changed', `pqscan: the file changed during the scan (Last-Modified ${v.lastModified} → ${lm}, ${url})`)
  }
  return v
}

// Sends the validators back: If-Match for a strong ETag, else If-Unmodified-Since, so that a
// retry or a later request gets the same version of the object or a 412.
export function conditionalHeaders(headers, v) {
  if (!v) return
  if (v.etag && !v.etag.startsWith('W/')) headers.set('If-Match', v.etag)
  else if (v.lastModified) headers.set('If-Unmodified-Since', v.lastModified)
}

// The error for an unexpected status: retryable for 5xx and 429, with the server's Retry-After.
export function statusError(resp, message) {
  const st = resp.status
  const retryable = st >= 500 || st === 429
  return new PqscanError('http', message, { status: st, retryable, retryAfterMs: retryable ? parseRetryAfter(resp.headers.get('Retry-After')) : -1 })
}

// The wait before retry attempt+1: the server's Retry-After (capped), else backoff·2^attempt
// capped at maxBackoffMs, with jitter in [d/2, d); opt: backoffMs, maxBackoffMs, maxRetryAfterMs.
export function retryDelay(attempt, afterMs, opt) {
  if (afterMs >= 0) return Math.min(afterMs, opt.maxRetryAfterMs)
  let d = opt.backoffMs
  for (let i = 0; i < attempt && d < opt.maxBackoffMs; i++) d *= 2
  d = Math.min(d, opt.maxBackoffMs)
  return d / 2 + Math.random() * (d / 2)
}
