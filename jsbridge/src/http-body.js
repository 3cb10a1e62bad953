// Reading responses for HttpSource: bodies of exactly the announced length (a short body is
// retryable, a long one is a bad Content-Range), read as a stream and counted as bytes arrive,
// and the abortable waits the source uses (sleep, waitOrAbort).

import { PqscanError, abortReason } from './errors.js'

/** Resolves after ms, or rejects with the signal's reason. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal))
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(t)
      reject(abortReason(signal))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Awaits p unless the signal aborts first. */
export function waitOrAbort(p, signal) {
  if (!signal) return p
  if (signal.aborted) return Promise.reject(abortReason(signal))
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v) },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e) },
    )
  })
}

/** Drops a response body that will not be read. */
export function discard(resp) {
  try {
    resp.body?.cancel().catch(() => {})
  } catch {}
}

/** Reads exactly n bytes of a 206 body for the range at off; count(n) sees bytes as they come. */
export async function readBody(resp, off, n, signal, url, count) {
  const clh = resp.headers.get('Content-Length')
  if (clh !== null) {
    const cl = Number(clh)
    if (cl < n) {
      discard(resp)
      throw new PqscanError('short-body', `pqscan: response body shorter than announced: Content-Length ${cl} for ${n} bytes at offset ${off} (${url})`, { retryable: true })
    }
    if (cl > n) {
      discard(resp)
      throw new PqscanError('bad-content-range', `pqscan: bad Content-Range: Content-Length ${cl} for a ${n}-byte Content-Range at ${off} (${url})`)
    }
  }
  // A body of announced length, read in one piece: arrayBuffer() collects the chunks inside
  // the browser (or undici) with no JS turn per chunk, where a reader loop costs the Worker a
  // task and a promise per chunk (20–27 chunks for Q1's 10 responses). Counted once it is in.
  const b = clh !== null && Number(clh) === n && resp.body ? await readWhole(resp, signal, off, url, count) : await readAll(resp, n + 1, signal, off, url, count)
  if (b.length < n) {
    throw new PqscanError('short-body', `pqscan: response body shorter than announced: got ${b.length} of ${n} bytes at offset ${off} (${url})`, { retryable: true })
  }
  if (b.length > n) {
    throw new PqscanError('bad-content-range', `pqscan: bad Content-Range: body longer than the ${n}-byte range at ${off} (${url})`)
  }
  return b
}

// The body by arrayBuffer(), its errors as readAll's (a failed read is a retryable short body).
async function readWhole(resp, signal, off, url, count) {
  let b
  try {
    b = new Uint8Array(await resp.arrayBuffer())
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal)
    throw new PqscanError('short-body', `pqscan: response body shorter than announced at offset ${off} (${url}): ${e?.message ?? e}`, { retryable: true, cause: e })
  }
  count(b.length)
  return b
}

/** Reads the body, at most limit bytes (stops reading past it), counting bytes as they come. */
export async function readAll(resp, limit, signal, off, url, count) {
  const chunks = []
  let total = 0
  try {
    if (!resp.body) {
      const b = new Uint8Array(await resp.arrayBuffer())
      count(b.length)
      return b.length > limit ? b.subarray(0, limit) : b
    }
    const reader = resp.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      total += value.length
      count(value.length)
      if (total >= limit) {
        reader.cancel().catch(() => {})
        break
      }
    }
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal)
    throw new PqscanError('short-body', `pqscan: response body shorter than announced: got ${total} bytes at offset ${off} (${url}): ${e?.message ?? e}`, { retryable: true, cause: e })
  }
  if (chunks.length === 1) return chunks[0]
  const out = new Uint8Array(total)
  let p = 0
  for (const c of chunks) {
    out.set(c, p)
    p += c.length
  }
  return out
}
