// listDataset: the files of a folder or glob on an object store, from S3 ListObjectsV2, as the
// Go host lists them: the module builds each page's request (GET <origin>/?list-type=2&prefix=
// <key prefix>, virtual-hosted; pathStyle: <origin>/<bucket>?…), parses the XML S3, R2, GCS's
// XML API and MinIO return, follows NextContinuationToken and selects the files
// (internal/dataset/discover, listing and glob); this file only GETs the pages. The listing
// gives each file's size and ETag, so openDataset needs no size probe per file:
//
//   const ds = await openDataset(await listDataset('https://bucket.example.com/events/'))
//
// A URL ending in '/' is a folder: every `*.parquet` below it, hidden and `_`-prefixed names
// skipped (Spark's rule; `_c=1` stays a partition). Otherwise the key is a glob: `*`, `?` and
// `[...]` within one segment, `**` as a whole segment for any depth, '\' escapes. Keys come
// in the listing's order (byte order on S3), which is the dataset's. Every failure is a
// PqscanError ('listing' for what the page says, 'http' or 'too-large' for how it came).
import { PqscanError, abortReason } from './errors.js'
import { getObject } from './http-object.js'
import { discover, httpTableIO } from './delta.js'
import { Core } from './core.js'

const MAX_PAGE_BYTES = 16 << 20 // one page of 1,000 keys is about 300 KB
let listCore = null // the module instance of listDataset calls made outside an open

/**
 * @param {string|URL} url a folder URL ending in '/', or a glob over keys
 * @param {{pathStyle?: boolean, fetch?: typeof fetch, headers?: HeadersInit, signal?: AbortSignal, maxPages?: number, scope?: import('./scope.js').Scope,
 *   maxRetries?: number, backoffMs?: number, maxBackoffMs?: number, maxRetryAfterMs?: number, wasmFull?: any}} [opts]
 *   scope: every listed key, kept or not, must lead inside it (a listing naming "../x" is refused);
 *   the retry options are HttpSource's: a page is retried as a range is; wasmFull: the module
 *   that lists (by default the package's full module)
 * @returns {Promise<Array<{url: string, key: string, size: number, etag?: string}>>}
 */
export async function listDataset(url, opts = {}) {
  const base = typeof location !== 'undefined' ? location.href : undefined
  const u = new URL(String(url), base)
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new PqscanError('options', `pqscan: listing needs an http(s) URL, got ${u.href}`)
  listCore ??= new Core(opts.wasmFull != null ? { wasm: opts.wasmFull } : {})
  const o = { url: u.href, pathStyle: !!opts.pathStyle, list: true, glob: !String(url).endsWith('/') }
  if (opts.maxPages > 0) o.maxPages = opts.maxPages
  const r = await discover(await listCore.instance(true), o, httpTableIO(u.href, opts, {}), opts.signal)
  return inScope(r, u.href, opts.scope).map((f) => ({ url: f.url, key: f.key, size: f.size, ...(f.etag ? { etag: f.etag } : {}) }))
}

/** The files of a discovery's listing (discover.Result), every listed key checked against sc first. */
export function inScope(r, listed, sc) {
  if (sc) for (const f of [...(r.files ?? []), ...(r.listed ?? [])]) sc.check(f.url, `the listing of ${listed} (key ${JSON.stringify(f.key)})`)
  return r.files ?? []
}

/**
 * One listing page the module asks for ({data}, or {found: false}), with the retries of every
 * request (http-object.js). A probe's page (optional: the module then probes objects) that
 * fails for any reason but a refusal by the open's scope is answered not found.
 */
export async function getPage(pageURL, opts, optional, signal) {
  try {
    const b = await getObject(pageURL, { ...opts, signal, maxBytes: MAX_PAGE_BYTES, what: 'listing' })
    if (b !== null) return { data: b }
    if (optional) return { found: false }
    throw new PqscanError('http', `pqscan: listing ${pageURL}: HTTP 404`, { status: 404 })
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal)
    if (!optional || !(e instanceof PqscanError) || e.code === 'scope') throw e
    return { found: false }
  }
}
