// Errors of the bridge. Every failure is a PqscanError with a stable `code` (the Go host's
// sentinels, as strings) so that callers can branch without parsing messages; aborts are the
// signal's reason (a DOMException named "AbortError" by default), as fetch does.

/** @typedef {'http'|'bad-content-range'|'cors'|'file-changed'|'encoding'|'short-body'|'too-large'|'out-of-range'|'scan'|'stalled'|'trap'|'abi'|'closed'|'options'|'listing'|'source'|'delta'|'iceberg'|'unsupported'|'scope'|'corrupt'|'not-parquet'|'encrypted'|'memory-cap'|'schema-mismatch'|'needs-full-module'} ErrorCode */
// 'needs-full-module': the lean module met a page codec it leaves out; the bridge reruns the
// query in the full module, so callers see it only if that module cannot be loaded.
// 'scope': a table's metadata, a listing or a redirect named a location outside what the open
// may reach (the sources named and the `allow` option, scope.js); nothing was requested from it.

// The code of each error kind the module reports with a failure (pq_error_kind, wasm/ABI.md),
// indexed by kind: the engine's sentinels as the native Go engine classifies them. null (kind 0,
// or a kind this bridge does not know) leaves the caller's code ('scan', 'delta', 'iceberg', …). Defined
// in internal/protocol/protocol.go; keep one entry a line: internal/protocol/jsbridge_test.go
// parses this table and fails when it disagrees with the Go side.
export const ERROR_KINDS = Object.freeze([
  null,
  'corrupt',
  'not-parquet',
  'encrypted',
  'memory-cap',
  'file-changed',
  'schema-mismatch',
  'unsupported',
  'delta',
  'delta',
  'delta',
  'delta',
  'delta',
  'delta',
  'delta',
  'delta',
  'delta',
  'iceberg',
  'iceberg',
  'iceberg',
  'iceberg',
  'iceberg',
  'needs-full-module',
  'options',
  'source',
  'listing',
  'delta',
  'iceberg',
])

export class PqscanError extends Error {
  /**
   * @param {ErrorCode} code
   * @param {string} message
   * @param {{status?: number, retryAfterMs?: number, retryable?: boolean, cause?: unknown}} [extra]
   */
  constructor(code, message, extra = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause })
    this.name = 'PqscanError'
    this.code = code
    if (extra.status !== undefined) this.status = extra.status
    // Not enumerable: internal retry bookkeeping, not part of the error's public shape.
    Object.defineProperty(this, 'retryable', { value: !!extra.retryable, writable: true })
    Object.defineProperty(this, 'retryAfterMs', { value: extra.retryAfterMs ?? -1, writable: true })
  }
}

/** The reason to throw for an aborted signal (the signal's own reason, like fetch). */
export function abortReason(signal) {
  if (signal && signal.reason !== undefined) return signal.reason
  return new DOMException('The scan was aborted.', 'AbortError')
}

export function isAbort(err) {
  return err != null && (err.name === 'AbortError' || err.name === 'TimeoutError')
}

/** Plain-object form for postMessage (Error subclasses lose their fields when cloned). */
export function serializeError(err) {
  if (err instanceof PqscanError) return { kind: 'pqscan', code: err.code, message: err.message, status: err.status, file: err.file }
  if (isAbort(err)) return { kind: 'abort', name: err.name, message: err.message }
  return { kind: 'error', name: err?.name ?? 'Error', message: String(err?.message ?? err) }
}

export function deserializeError(e) {
  if (e.kind === 'pqscan') {
    const err = new PqscanError(e.code, e.message, { status: e.status })
    if (e.file !== undefined) err.file = e.file
    return err
  }
  if (e.kind === 'abort') return new DOMException(e.message, e.name)
  const err = new Error(e.message)
  err.name = e.name
  return err
}
