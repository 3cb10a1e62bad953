// listDataset: the files of a folder or glob on an object store, from S3 ListObjectsV2, as the
// Go side does it (dataset_list.go with internal/dataset/listing and glob): GET
// <origin>/?list-type=2&prefix=<key prefix> (virtual-hosted; pathStyle: <origin>/<bucket>?…),
// following NextContinuationToken, on the XML S3, R2, GCS's XML API and MinIO return. The
// listing gives each file's size and ETag, so openDataset needs no size probe per file:
//
//   const ds = await openDataset(await listDataset('https://bucket.example.com/events/'))
//
// A URL ending in '/' is a folder: every `*.parquet` below it, hidden and `_`-prefixed names
// skipped (Spark's rule; `_c=1` stays a partition). Otherwise the key is a glob: `*`, `?` and
// `[...]` within one segment, `**` as a whole segment for any depth, '\' escapes. Keys come
// in the listing's order (byte order on S3), which is the dataset's.
//
// Why hand-written XML: Workers and Node have no DOMParser, and the response is a flat,
// known document. Every failure is a PqscanError ('listing' for what the page says, 'http' or
// 'too-large' for how it came), naming the page's URL.
import { PqscanError, abortReason } from './errors.js'
import { getObject } from './http-object.js'

const MAX_PAGE_BYTES = 16 << 20 // one page of 1,000 keys is about 300 KB
const DEFAULT_MAX_PAGES = 10000

/**
 * @param {string|URL} url a folder URL ending in '/', or a glob over keys
 * @param {{pathStyle?: boolean, fetch?: typeof fetch, headers?: HeadersInit, signal?: AbortSignal, maxPages?: number, scope?: import('./scope.js').Scope,
 *   maxRetries?: number, backoffMs?: number, maxBackoffMs?: number, maxRetryAfterMs?: number}} [opts]
 *   scope: every listed key, kept or not, must lead inside it (a listing naming "../x" is refused);
 *   the retry options are HttpSource's: a page is retried as a range is
 * @returns {Promise<Array<{url: string, key: string, size: number, etag?: string}>>}
 */
export async function listDataset(url, opts = {}) {
  const base = typeof location !== 'undefined' ? location.href : undefined
  const u = new URL(String(url), base)
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new PqscanError('options', `pqscan: listing needs an http(s) URL, got ${u.href}`)
  let key = decodeKey(u.pathname.slice(1))
  let req = { origin: u.origin, bucket: '' }
  let objBase = u.origin + '/'
  if (opts.pathStyle) {
    const i = key.indexOf('/')
    if (i <= 0) throw new PqscanError('options', `pqscan: ${u.href}: a path-style listing URL needs a bucket before the key`)
    req.bucket = key.slice(0, i)
    key = key.slice(i + 1)
    objBase += encodeURIComponent(req.bucket) + '/'
  }
  const sel = selector(key, String(url).endsWith('/'))
  const maxPages = opts.maxPages > 0 ? opts.maxPages : DEFAULT_MAX_PAGES
  const objects = []
  const seen = new Set()
  let token = ''
  for (let page = 1; ; page++) {
    if (opts.signal?.aborted) throw abortReason(opts.signal)
    const pageURL = listURL(req, sel.prefix, token)
    const p = parseListing(await getPage(pageURL, opts), pageURL)
    objects.push(...p.contents)
    if (!p.isTruncated) break
    if (seen.has(p.nextToken) || p.nextToken === token) throw new PqscanError('listing', `pqscan: listing ${pageURL}: page ${page} returned the continuation token ${JSON.stringify(p.nextToken)} again`)
    if (page >= maxPages) throw new PqscanError('listing', `pqscan: listing ${u.href}: more than ${maxPages} pages`)
    seen.add(p.nextToken)
    token = p.nextToken
  }
  const keyURL = (k) => objBase + k.split('/').map(encodeURIComponent).join('/').replaceAll('%3D', '=')
  if (opts.scope) for (const o of objects) opts.scope.check(keyURL(o.key), `the listing of ${u.href} (key ${JSON.stringify(o.key)})`)
  return objects.filter((o) => sel.keep(o.key)).map((o) => ({ url: keyURL(o.key), key: o.key, size: o.size, ...(o.etag ? { etag: o.etag } : {}) }))
}

// RFC 3986 unreserved bytes stay, everything else is %XX (pathenc.Escape: a space is %20,
// never '+', which a listing would read back as a literal '+').
const escape = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())

function listURL(req, prefix, token) {
  let s = req.origin + '/' + (req.bucket ? escape(req.bucket) : '') + '?list-type=2'
  if (token) s += '&continuation-token=' + escape(token)
  return s + '&prefix=' + escape(prefix)
}

// %XX decoded once; a malformed escape stays literal (pathenc.Unescape).
function decodeKey(s) {
  return s.replace(/(?:%[0-9a-fA-F]{2})+/g, (m) => {
    try {
      return decodeURIComponent(m)
    } catch {
      return m
    }
  })
}

// One page, with the retries of every request (http-object.js); the page is text.
async function getPage(pageURL, opts) {
  const b = await getObject(pageURL, { ...opts, maxBytes: MAX_PAGE_BYTES })
  if (b === null) throw new PqscanError('http', `pqscan: listing ${pageURL}: HTTP 404`, { status: 404 })
  return new TextDecoder().decode(b)
}

/**
 * One ListObjectsV2 page: {contents: [{key, size, etag, lastModified}], isTruncated, nextToken}.
 * An <Error> document, anything but a complete ListBucketResult, a bad Size, a truncated page
 * without a token: PqscanError 'listing'.
 */
export function parseListing(text, where = 'listing') {
  const bad = (why) => new PqscanError('listing', `pqscan: ${where}: ${why}`)
  let root
  try {
    root = parseXML(text)
  } catch (e) {
    throw bad(`malformed listing: ${e.message}`)
  }
  const child = (el, name) => el.kids.find((k) => k.name === name)?.text ?? ''
  if (root.name === 'Error') throw bad(`listing refused by the service: ${child(root, 'Code')}: ${child(root, 'Message')}`)
  if (root.name !== 'ListBucketResult') throw bad(`malformed listing: root element <${root.name}>, want <ListBucketResult>`)
  const enc = child(root, 'EncodingType').trim().toLowerCase()
  if (enc !== '' && enc !== 'url') throw bad(`malformed listing: unknown EncodingType ${JSON.stringify(enc)}`)
  const dec = enc === 'url' ? decodeKey : (s) => s
  const trunc = child(root, 'IsTruncated').trim()
  if (trunc !== '' && trunc !== 'true' && trunc !== 'false') throw bad(`malformed listing: IsTruncated ${JSON.stringify(trunc)}`)
  const contents = []
  for (const o of root.kids) {
    if (o.name !== 'Contents') continue
    const key = dec(child(o, 'Key'))
    if (key === '') throw bad(`malformed listing: Contents[${contents.length}] has no Key`)
    const sz = child(o, 'Size').trim()
    if (!/^\d{1,16}$/.test(sz)) throw bad(`malformed listing: key ${JSON.stringify(key)}: Size ${JSON.stringify(sz)}`)
    const etag = child(o, 'ETag').trim().replace(/^"(.*)"$/, '$1')
    contents.push({ key, size: Number(sz), etag, lastModified: child(o, 'LastModified') })
  }
  const nextToken = child(root, 'NextContinuationToken')
  if (trunc === 'true' && nextToken === '') {
    const last = contents.at(-1)?.key
    throw bad(`truncated listing without a continuation token${last ? ` (last key ${JSON.stringify(last)})` : ''}`)
  }
  return { contents, isTruncated: trunc === 'true', nextToken }
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function unentity(s) {
  return s.replace(/&([^;&<]*)(;?)/g, (m, name, semi) => {
    if (!semi) throw new Error(`unclosed entity ${JSON.stringify(m)}`)
    if (ENTITIES[name]) return ENTITIES[name]
    const n = /^#x[0-9a-fA-F]{1,6}$/.test(name) ? parseInt(name.slice(2), 16) : /^#\d{1,7}$/.test(name) ? Number(name.slice(1)) : NaN
    if (!(n >= 0 && n <= 0x10ffff)) throw new Error(`unknown entity ${JSON.stringify(m)}`)
    return String.fromCodePoint(n)
  })
}

// The element tree of a document (names without namespace prefixes; text of leaf elements,
// CDATA included). Throws on anything not well formed: mismatched or unclosed tags, text
// outside the root, a second root.
function parseXML(s) {
  const tok = /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[([\s\S]*?)\]\]>|<!DOCTYPE[^>]*>|<\/\s*([^\s>]+)\s*>|<([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)|(<)/g
  const stack = []
  let root = null
  let m
  while ((m = tok.exec(s))) {
    const [, cdata, close, open, , selfClose, text, stray] = m
    const top = stack.at(-1)
    if (stray) throw new Error(`stray '<' at ${m.index}`)
    if (text !== undefined) {
      if (top) top.text += unentity(text)
      else if (text.trim()) throw new Error('text outside the root element')
    } else if (cdata !== undefined) {
      if (!top) throw new Error('CDATA outside the root element')
      top.text += cdata
    } else if (open) {
      if (!top && root) throw new Error('a second root element')
      const el = { name: open.replace(/^.*:/, ''), kids: [], text: '' }
      if (top) top.kids.push(el)
      else root = el
      if (!selfClose) stack.push(el)
    } else if (close) {
      if (!top || top.name !== close.replace(/^.*:/, '')) throw new Error(`unexpected </${close}>`)
      stack.pop()
    }
  }
  if (!root) throw new Error('no root element')
  if (stack.length) throw new Error(`unclosed <${stack.at(-1).name}>`)
  return root
}

// Hidden by the Spark/Hive rule: '.' or '_' first (unless it holds '='), or an in-flight copy.
const hidden = (seg) => seg.startsWith('.') || (seg.startsWith('_') && !seg.includes('=')) || seg.endsWith('._COPYING_')

export function selector(key, folder) {
  if (folder) {
    return {
      prefix: key,
      keep: (k) => k.startsWith(key) && k.endsWith('.parquet') && k.slice(key.length).split('/').every((s) => s !== '' && !hidden(s)),
    }
  }
  const segs = key.split('/').map((seg) => (seg === '**' ? '**' : segmentRegExp(seg)))
  const meta = key.search(/[*?[\\]/)
  const match = (i, parts) => {
    if (i === segs.length) return parts.length === 0
    if (segs[i] === '**') {
      if (i === segs.length - 1) return parts.length > 0 && parts.every((p) => !hidden(p))
      return match(i + 1, parts) || (parts.length > 0 && !hidden(parts[0]) && match(i, parts.slice(1)))
    }
    return parts.length > 0 && segs[i].test(parts[0]) && match(i + 1, parts.slice(1))
  }
  return { prefix: meta < 0 ? key : key.slice(0, meta), keep: (k) => !k.endsWith('/') && match(0, k.split('/')) }
}

// One segment's pattern: `*`, `?`, `[...]` (with `^`/`!` negation and ranges), '\' escapes.
// A wildcard never matches a hidden name; a literal segment may name one.
function segmentRegExp(seg) {
  let re = ''
  let wild = false
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]
    if (c === '\\' && i + 1 < seg.length) re += esc(seg[++i])
    else if (c === '*') (re += '[^/]*'), (wild = true)
    else if (c === '?') (re += '[^/]'), (wild = true)
    else if (c === '[') {
      const j = seg.indexOf(']', i + 2)
      if (j < 0) throw new PqscanError('options', `pqscan: glob segment ${JSON.stringify(seg)}: unclosed '['`)
      let body = seg.slice(i + 1, j)
      const neg = body[0] === '^' || body[0] === '!'
      if (neg) body = body.slice(1)
      re += `[${neg ? '^' : ''}${body.replace(/[\]\\^]/g, '\\$&')}]`
      wild = true
      i = j
    } else re += esc(c)
  }
  const r = new RegExp(`^${re}$`, 'u')
  return { test: (name) => r.test(name) && !(wild && hidden(name) && !/^[._]/.test(seg)) }
}

const esc = (c) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
