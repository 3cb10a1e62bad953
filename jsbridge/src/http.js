// HttpSource fetches byte ranges of one remote file with fetch(), following the same rules as
// the Go host (internal/httprange/httpclient/http.go), so that a scan reads the same bytes from
// the same version of the file in a browser, a Worker, Node and Go. This file is the request
// engine (concurrency, the one-at-a-time gate, retries, the whole-body fallback); the rules
// decided from one response are in http-rules.js, body reading in http-body.js.
//
//   - Known size (the caller's fileSize, or learnt before): plain `Range: bytes=a-b` requests,
//     which are CORS-safelisted; no HEAD. Unknown size: one suffix request `bytes=-N` learns
//     the size from Content-Range and its bytes are kept (the footer read costs nothing more).
//   - Every 206 must carry a Content-Range equal to the request and a body of exactly that
//     length. A 206 whose Content-Range cannot be read is, cross-origin, almost always CORS
//     hiding it: the error says which header the server must send.
//   - A 200 to a ranged request (Range ignored) is read once (bounded by maxWholeBody) and
//     every later range is served from it. Until the first 200/206 shows how the server treats
//     Range, requests go one at a time so that the file is never downloaded twice in parallel.
//   - ETag / Last-Modified of the first response are sent back as If-Match (strong ETag) or
//     If-Unmodified-Since; a 412, another validator or another size is code "file-changed".
//   - 5xx, 429 and network errors are retried with capped exponential backoff and jitter (or
//     the server's Retry-After); a Content-Encoding other than identity is an error (the
//     offsets would be wrong).
//
// One HttpSource belongs to one opened file: it keeps the validators of the first response for
// its whole life, so every scan of that file reads the same version. The sources of a dataset
// (one per file) share a Limiter, so that `concurrency` bounds the requests of all its files.

import { PqscanError, abortReason } from './errors.js'
import { engineDefault } from './options.js'
import { parseContentRange, noContentRange, checkValidators, conditionalHeaders, statusError } from './http-rules.js'
import { waitOrAbort, discard, readBody, readAll } from './http-body.js'
import { retryDefaults, retrying } from './retry.js'
import { Limiter } from './limiter.js'
import { mark } from './marks.js'
import { prefetch, spanned, joined } from './http-ahead.js'

export { parseContentRange, parseRetryAfter } from './http-rules.js'
export { sleep } from './http-body.js'
export { Limiter } from './limiter.js'

export const httpDefaults = Object.freeze({
  concurrency: 6,
  ...retryDefaults,
  tailSize: engineDefault('tailSize'), // the probe of an unknown size reads the engine's first tail
  maxWholeBody: 256 << 20,
})

export class HttpSource {
  /**
   * @param {string} url absolute URL
   * @param {object} [opts] fetch, headers, fileSize, concurrency, maxRetries, backoffMs,
   *   maxBackoffMs, maxRetryAfterMs, tailSize, maxWholeBody, onBytes(n), limiter (a Limiter
   *   shared with other sources: every request attempt holds one of its slots)
   */
  constructor(url, opts = {}) {
    this.url = url
    const o = { ...httpDefaults }
    for (const k of Object.keys(httpDefaults)) if (opts[k] != null) o[k] = opts[k]
    if (o.concurrency < 1) o.concurrency = 1
    if (o.maxRetries < 0) o.maxRetries = 0
    this.opt = o
    this.fetchFn = opts.fetch ?? ((...a) => globalThis.fetch(...a))
    this.headers = opts.headers
    this.onBytes = opts.onBytes ?? null
    // Each request attempt holds a slot of the shared limiter or the source's own, so that
    // `concurrency` also bounds overlapping calls (drive.js, rounds taken as they arrive).
    this.limiter = opts.limiter ?? new Limiter(o.concurrency)
    this.size = opts.fileSize > 0 ? opts.fileSize : -1
    this.sizeFromServer = false
    this.validators = null // {etag, lastModified} of the first response
    this.pieces = [] // bytes kept in memory: the probed tail and what the footer read fetched
    this.ahead = [] // ranges being fetched ahead of the engine's asking (prefetch): {off, end, settled}
    this.validated = 0 // responses whose validators matched (a stored tail's version confirmed)
    this.whole = null // {promise, bytes} once a server ignored Range
    this.probe = null // in-flight size probe
    this.rangeKnown = false
    this.gateHeld = null // promise resolved when the one-at-a-time slot is released
    this.stats = { requests: 0, bytes: 0, retries: 0, roundTrips: 0 }
    this.counter = (n) => this.count(n)
  }

  /** Keeps bytes [off, off+b.length) to serve later ranges from memory. */
  keep(off, bytes) {
    this.pieces.push({ off, bytes })
  }

  /** Fetches ranges before the engine asks for them and keeps them (http-ahead.js). */
  prefetch(ranges, signal) {
    return prefetch(this, ranges, signal)
  }

  /** Drops what prefetch kept (the scan it was for is over: its bytes are in the engine). */
  dropAhead() {
    this.aheadOver = true // ranges not yet asked are not asked, those in flight not kept
    if (this.pieces.some((p) => p.ahead)) this.pieces = this.pieces.filter((p) => !p.ahead)
  }

  /**
   * Asks the server for the file's last byte, past the bytes kept in memory: a response
   * checked against the pinned size and validators (tailcache.js, a stored tail whose version
   * no response has confirmed yet); "file-changed" when the file is another version.
   */
  async revalidate(signal) {
    const call = { issued: false }
    try {
      await this.retry(signal, () => this.slot(signal, () => this.tryRange(call, { off: this.size - 1, len: 1 }, signal)))
    } finally {
      if (call.issued) this.stats.roundTrips++
    }
  }

  /** The file size, probing with one suffix request when it is unknown. */
  async getSize(signal) {
    const call = { issued: false }
    try {
      return await this.learnSize(call, this.opt.tailSize, signal)
    } finally {
      if (call.issued) this.stats.roundTrips++
    }
  }

  async learnSize(call, n, signal) {
    for (;;) {
      if (this.size >= 0) return this.size
      if (this.probe) {
        await waitOrAbort(this.probe, signal)
        continue
      }
      const p = this.retry(signal, () =>
        this.slot(signal, async () => {
          const release = await this.gate(signal)
          try {
            await this.tryProbe(call, Math.max(n, this.opt.tailSize), signal)
          } finally {
            release()
          }
        }),
      )
      this.probe = p
      try {
        await p
      } finally {
        this.probe = null
      }
    }
  }

  async tryProbe(call, n, signal) {
    if (await this.servedWhole(signal)) return
    const spec = `bytes=-${n}`
    const resp = await this.send(call, spec, signal)
    if (resp.status === 200) {
      await this.readWhole(resp, signal)
      return
    }
    if (resp.status === 416) {
      discard(resp)
      // A suffix range of an empty file is unsatisfiable (RFC 9110 §14.1.2).
      const cr = parseContentRange(resp.headers.get('Content-Range'))
      if (cr && cr.total === 0) return this.setSize(0)
      throw new PqscanError('out-of-range', `pqscan: ${this.url} answered 416 to ${spec}`, { status: 416 })
    }
    const crs = resp.headers.get('Content-Range')
    if (crs === null) {
      discard(resp)
      throw noContentRange(resp, spec, this.url)
    }
    const cr = parseContentRange(crs)
    if (!cr || cr.unsatisfied || cr.total < 0 || cr.last !== cr.total - 1 || cr.last - cr.first + 1 !== Math.min(n, cr.total)) {
      discard(resp)
      throw new PqscanError('bad-content-range', `pqscan: bad Content-Range: server returned ${JSON.stringify(crs)} for ${spec} (${this.url})`)
    }
    this.setSize(cr.total)
    const b = await readBody(resp, cr.first, cr.last - cr.first + 1, signal, this.url, this.counter)
    this.keep(cr.first, b)
  }

  setSize(total) {
    if (this.size < 0) {
      this.size = total
      this.sizeFromServer = true
      return
    }
    if (this.size !== total) {
      const what = this.sizeFromServer ? 'size' : 'size given in fileSize'
      throw new PqscanError('file-changed', `pqscan: the file changed during the scan (${what} ${this.size} → ${total}, ${this.url})`)
    }
    this.sizeFromServer = true
  }

  /**
   * Fetches every range ({off, len}; off < 0 is a suffix of -off bytes) in parallel, at most
   * `concurrency` requests at a time, and calls deliver(off, bytes) once per range in
   * completion order. The first failure aborts the other requests and is thrown.
   * @returns {Promise<void>}
   */
  async fetchRanges(ranges, signal, deliver) {
    mark('http.first')
    // A call made while another is in flight (drive.js, rounds taken as they arrive) shares
    // its round trip.
    const call = { issued: false, overlaps: this.calls > 0 }
    this.calls = (this.calls ?? 0) + 1
    try {
      await this.fetchAll(call, ranges, signal, deliver)
    } finally {
      this.calls--
      if (call.issued && !call.overlaps) this.stats.roundTrips++
    }
  }

  async fetchAll(call, ranges, signal, deliver) {
    const rs = []
    for (let { off, len } of ranges) {
      if (off < 0) {
        const size = await this.learnSize(call, -off, signal)
        off = Math.max(0, size + off)
        len = size - off
      }
      if (!(len >= 0) || !(off >= 0)) throw new PqscanError('out-of-range', `pqscan: invalid range [${off}, +${len})`)
      if (this.size >= 0 && off + len > this.size) {
        throw new PqscanError('out-of-range', `pqscan: range beyond the end of the file: [${off}, ${off + len}) of ${this.size} bytes (${this.url})`)
      }
      rs.push({ off, len })
    }
    const ctrl = new AbortController()
    const onAbort = () => ctrl.abort(abortReason(signal))
    if (signal) {
      if (signal.aborted) throw abortReason(signal)
      signal.addEventListener('abort', onAbort, { once: true })
    }
    let next = 0
    let failure = null
    const worker = async () => {
      while (next < rs.length && failure === null) {
        const r = rs[next++]
        try {
          const b = await this.fetchRange(call, r, ctrl.signal)
          if (failure === null) deliver(r.off, b)
        } catch (e) {
          if (failure === null) {
            failure = { e }
            ctrl.abort(e)
          }
        }
      }
    }
    try {
      await Promise.all(Array.from({ length: Math.min(this.opt.concurrency, rs.length) }, worker))
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
    if (signal?.aborted) throw abortReason(signal)
    if (failure) throw failure.e
  }

  // ahead: a prefetch's own request, which must not wait for itself.
  async fetchRange(call, r, signal, ahead = false) {
    if (r.len === 0) return new Uint8Array(0)
    return this.retry(signal, async () => {
      let b = await this.fromMemory(r, signal, ahead)
      if (b) return b
      return this.slot(signal, async () => {
        const release = await this.gate(signal)
        try {
          b = await this.fromMemory(r, signal, ahead)
          if (b) return b
          return await this.tryRange(call, r, signal)
        } finally {
          release()
        }
      })
    })
  }

  // Runs fn holding a slot of the limiter (no limiter: at once). The slot is taken
  // before the one-at-a-time gate, never while holding it, so the two cannot deadlock.
  async slot(signal, fn) {
    if (!this.limiter) return fn()
    const release = await this.limiter.acquire(signal)
    try {
      return await fn()
    } finally {
      release()
    }
  }

  async tryRange(call, r, signal) {
    const end = r.off + r.len
    const spec = `bytes=${r.off}-${end - 1}`
    const resp = await this.send(call, spec, signal)
    if (resp.status === 200) {
      const b = await this.readWhole(resp, signal)
      if (end > b.length) {
        throw new PqscanError('out-of-range', `pqscan: range beyond the end of the file: [${r.off}, ${end}) of ${b.length} bytes (${this.url})`)
      }
      return b.subarray(r.off, end)
    }
    if (resp.status === 416) {
      discard(resp)
      const cr = parseContentRange(resp.headers.get('Content-Range'))
      if (cr && cr.total >= 0) this.setSize(cr.total)
      throw new PqscanError('out-of-range', `pqscan: ${this.url} answered 416 to ${spec}`, { status: 416 })
    }
    const crs = resp.headers.get('Content-Range')
    if (crs === null) {
      discard(resp)
      throw noContentRange(resp, spec, this.url)
    }
    const cr = parseContentRange(crs)
    if (!cr) {
      discard(resp)
      throw new PqscanError('bad-content-range', `pqscan: bad Content-Range: cannot parse ${JSON.stringify(crs)} (for ${spec} of ${this.url})`)
    }
    if (cr.total >= 0) {
      try {
        // A size change explains a mismatching range better than "bad Content-Range".
        this.setSize(cr.total)
      } catch (e) {
        discard(resp)
        throw e
      }
    }
    if (cr.unsatisfied || cr.first !== r.off || cr.last !== end - 1) {
      discard(resp)
      throw new PqscanError('bad-content-range', `pqscan: bad Content-Range: server returned ${JSON.stringify(crs)} for ${spec} (${this.url})`)
    }
    return readBody(resp, r.off, r.len, signal, this.url, this.counter)
  }

  /**
   * Sends one GET with the Range spec and the validators, and classifies the answer: returns
   * the response for 200, 206 and 416 (after checking encoding and validators), throws for
   * everything else (retryable for 5xx, 429 and network errors).
   */
  async send(call, spec, signal) {
    const headers = new Headers(this.headers ?? undefined)
    headers.set('Range', spec)
    conditionalHeaders(headers, this.validators)
    call.issued = true
    this.stats.requests++
    let resp
    try {
      resp = await this.fetchFn(this.url, { method: 'GET', headers, signal })
    } catch (e) {
      if (signal?.aborted) throw abortReason(signal)
      if (e?.code === 'scope') throw e // refused before it was sent (scope.js): not retried
      throw new PqscanError(
        'http',
        `pqscan: request ${spec} of ${this.url} failed: ${e?.message ?? e} ` +
          '(a network error, or a cross-origin server that does not allow this origin or the Range header)',
        { retryable: true, cause: e },
      )
    }
    const st = resp.status
    if (st === 206) {
      this.rangeKnown = true
    } else if (st === 200 || st === 416) {
      // readWhole sets rangeKnown once the whole body is claimed.
    } else if (st === 412) {
      discard(resp)
      throw new PqscanError('file-changed', `pqscan: the file changed during the scan (412 Precondition Failed for ${headers.get('If-Match') ?? headers.get('If-Unmodified-Since')}, ${this.url})`, { status: 412 })
    } else {
      discard(resp)
      throw statusError(resp, `pqscan: unexpected HTTP status ${st} ${resp.statusText ?? ''} for ${spec} (${this.url})`.replace('  ', ' '))
    }
    const ce = resp.headers.get('Content-Encoding')
    if (ce && ce.trim().toLowerCase() !== 'identity') {
      discard(resp)
      throw new PqscanError('encoding', `pqscan: response has Content-Encoding ${JSON.stringify(ce)} for ${spec} (${this.url}); offsets would be wrong`)
    }
    try {
      this.validators = checkValidators(this.validators, resp, this.url)
    } catch (e) {
      discard(resp)
      throw e
    }
    this.validated++
    return resp
  }

  count(n) {
    this.stats.bytes += n
    this.onBytes?.(n)
  }

  // A 200 to a ranged request: the first such response downloads the whole body (bounded by
  // maxWholeBody) and keeps it; concurrent ones drop their bodies and wait for it.
  async readWhole(resp, signal) {
    this.rangeKnown = true
    if (this.whole) {
      discard(resp)
      try {
        return await waitOrAbort(this.whole.promise, signal)
      } catch (e) {
        if (signal?.aborted) throw e
        throw new PqscanError(e.code ?? 'http', e.message, { retryable: true, retryAfterMs: 0 })
      }
    }
    const w = { promise: null, bytes: null }
    w.promise = (async () => {
      const limit = this.opt.maxWholeBody
      const clh = resp.headers.get('Content-Length')
      const cl = clh === null ? -1 : Number(clh)
      if (cl > limit) {
        discard(resp)
        throw new PqscanError('too-large', `pqscan: the server ignored Range and sent all ${cl} bytes (limit maxWholeBody ${limit}, ${this.url})`)
      }
      const b = await readAll(resp, limit + 1, signal, 0, this.url, this.counter)
      if (b.length > limit) {
        throw new PqscanError('too-large', `pqscan: the server ignored Range and sent more than ${limit} bytes (${this.url})`)
      }
      if (cl >= 0 && b.length !== cl) {
        throw new PqscanError('short-body', `pqscan: got ${b.length} of ${cl} bytes of the whole file (${this.url})`, { retryable: true })
      }
      this.setSize(b.length)
      return b
    })()
    w.promise.catch(() => {})
    this.whole = w
    try {
      w.bytes = await w.promise
      return w.bytes
    } catch (e) {
      if (this.whole === w) this.whole = null // let a retry try again
      throw e
    }
  }

  async servedWhole(signal) {
    const w = this.whole
    if (!w) return false
    try {
      await waitOrAbort(w.promise, signal)
      return true
    } catch {
      return false
    }
  }

  // Serves r from a whole-file body (waiting for one in progress) or a kept piece (waiting for
  // a prefetch of it in flight, unless the caller is that prefetch).
  async fromMemory(r, signal, ahead = false) {
    const end = r.off + r.len
    const w = this.whole
    if (w) {
      let b = null
      try {
        b = await waitOrAbort(w.promise, signal)
      } catch {}
      if (b && end <= b.length) return b.subarray(r.off, end)
    }
    for (const p of this.pieces) {
      if (r.off >= p.off && end <= p.off + p.bytes.length) return p.bytes.subarray(r.off - p.off, end - p.off)
    }
    if (!ahead && this.ahead.length > 0) {
      // The engine's ranges of a returning scan need not fall as the plan's did (a round's
      // ranges are cut by what is in flight): r may span several prefetches and pieces.
      const waits = this.ahead.filter((a) => a.off < end && a.end > r.off)
      const spans = this.pieces.map((p) => ({ off: p.off, end: p.off + p.bytes.length })).concat(waits)
      if (waits.length > 0 && spanned(r.off, end, spans)) {
        for (const a of waits) await waitOrAbort(a.settled, signal)
        return this.fromMemory(r, signal)
      }
    }
    return joined(this.pieces, r.off, end)
  }

  // Lets one request at a time through until a 200 or 206 showed how the server treats Range.
  async gate(signal) {
    const noop = () => {}
    for (;;) {
      if (this.rangeKnown) return noop
      if (!this.gateHeld) break
      await waitOrAbort(this.gateHeld.promise, signal)
    }
    let resolve
    const held = { promise: new Promise((r) => (resolve = r)) }
    this.gateHeld = held
    return () => {
      if (this.gateHeld === held) this.gateHeld = null
      resolve()
    }
  }

  retry(signal, fn) {
    return retrying(this.opt, signal, fn, () => this.stats.retries++)
  }
}
