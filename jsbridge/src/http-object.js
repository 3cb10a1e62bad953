// getObject: one whole-object GET (a Delta log commit, _last_checkpoint, a listing page), as
// the Go hosts' internal/objstore does it, with HttpSource's retry policy (retry.js):
//
//   - 5xx, 429, network errors and cut bodies are retried (Retry-After honoured, capped);
//     other statuses fail at once, naming the URL and the start of the server's answer.
//   - The first 200's ETag / Last-Modified go back on retries as If-Match /
//     If-Unmodified-Since; a 412 or another validator is "file-changed": the bytes are always
//     one version's, never a mix.
//   - The size cap is checked before and while reading: a Content-Length over it fails
//     without reading the body, and the body is read as a stream, stopping at the first chunk
//     past the cap.

import { PqscanError, abortReason } from './errors.js'
import { checkValidators, conditionalHeaders, statusError } from './http-rules.js'
import { discard, readAll } from './http-body.js'
import { retryPolicy, retrying } from './retry.js'

export const DEFAULT_MAX_OBJECT = 256 << 20

/**
 * GETs url whole.
 * @param {string} url
 * @param {{fetch?: typeof fetch, headers?: HeadersInit, signal?: AbortSignal, maxBytes?: number,
 *   maxRetries?: number, backoffMs?: number, maxBackoffMs?: number, maxRetryAfterMs?: number}} [opts]
 *   maxBytes: the size cap (default 256 MiB)
 * @returns {Promise<Uint8Array|null>} the bytes, or null on 404
 */
export async function getObject(url, opts = {}) {
  const fetchFn = opts.fetch ?? ((...a) => globalThis.fetch(...a))
  const max = opts.maxBytes > 0 ? opts.maxBytes : DEFAULT_MAX_OBJECT
  const signal = opts.signal
  let validators = null
  return retrying(retryPolicy(opts), signal, async () => {
    const headers = new Headers(opts.headers ?? undefined)
    conditionalHeaders(headers, validators)
    let resp
    try {
      resp = await fetchFn(url, { headers, signal })
    } catch (e) {
      if (signal?.aborted) throw abortReason(signal)
      if (e?.code === 'scope') throw e // refused before it was sent (scope.js): not retried
      throw new PqscanError('http', `pqscan: ${url}: ${e?.message ?? e}`, { retryable: true, cause: e })
    }
    const st = resp.status
    if (st === 404) {
      discard(resp)
      return null
    }
    if (st === 412) {
      discard(resp)
      throw new PqscanError('file-changed', `pqscan: the object changed between attempts (412 Precondition Failed, ${url})`, { status: 412 })
    }
    if (st !== 200) {
      const msg = await snippet(resp, signal)
      throw statusError(resp, `pqscan: ${url}: HTTP ${st}${msg ? `: ${msg}` : ''}`)
    }
    try {
      validators = checkValidators(validators, resp, url)
    } catch (e) {
      discard(resp)
      throw e
    }
    const clh = resp.headers.get('Content-Length')
    const cl = clh === null ? -1 : Number(clh)
    if (cl > max) {
      discard(resp)
      throw tooLarge(url, max, `Content-Length ${cl}`)
    }
    const b = await readAll(resp, max + 1, signal, 0, url, opts.onBytes ?? (() => {}))
    if (b.length > max) throw tooLarge(url, max, `more than ${max} bytes read`)
    // A decoded body (Content-Encoding) is not Content-Length long: compare only identity.
    const ce = resp.headers.get('Content-Encoding')
    if (cl >= 0 && (!ce || ce.trim().toLowerCase() === 'identity') && b.length !== cl) {
      throw new PqscanError('short-body', `pqscan: ${url}: got ${b.length} of ${cl} bytes`, { retryable: true })
    }
    return b
  })
}

const tooLarge = (url, max, why) => new PqscanError('too-large', `pqscan: ${url} is larger than the ${max}-byte cap (${why})`)

// The start of an error response's body, whitespace collapsed: an object store's <Error>
// document says why in a few hundred bytes.
async function snippet(resp, signal) {
  let b
  try {
    b = await readAll(resp, 1024, signal, 0, '', () => {})
  } catch {
    return ''
  }
  const msg = new TextDecoder().decode(b).split(/\s+/).join(' ').trim()
  return msg.length > 200 ? msg.slice(0, 200) + '…' : msg
}
