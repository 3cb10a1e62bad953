// The scope of an open: what a table's metadata (a Delta log), a listing or a redirect may make
// the bridge fetch. It is the sources the caller named (a file, a folder or table root, a glob's
// fixed part) plus the `allow` prefixes; every other location fails with the error code 'scope'
// before a request is sent. The rules are the Go host's (internal/scope): a location is
// normalised as the strictest server would read it — the URL as fetch sends it (WHATWG parsing
// already resolves "." / ".." and "%2e" segments, lowercases the host, drops a default port),
// then each segment decoded once, '\' and a decoded '/' as separators, dot segments resolved; a
// segment that is a dot segment only after a second decode is refused outright.
//
// Redirects: in Node, fetch is called with redirect: 'manual' and each hop is checked before it
// is requested (scopedFetch). A browser hides a manual redirect's target (an 'opaqueredirect'
// response), so there the browser follows redirects itself and the final URL is checked when
// the response arrives: a redirect out of the scope fails the read, but its request has left.
// A page that needs the strict rule sets strictRedirects: no redirect is followed there
// (fetch's redirect: 'error').
import { PqscanError } from './errors.js'

const FILE = 'file://'
const MAX_REDIRECTS = 10
const MAX_DECODES = 4

function unescapeOnce(s) {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)))
}

function hiddenDots(s) {
  for (let i = 0; i < MAX_DECODES; i++) {
    const d = unescapeOnce(s)
    if (d === s) return false
    s = d
    if (s.split(/[/\\]/).some((p) => p === '.' || p === '..')) return true
  }
  return true
}

/** The Loc form of a path: decoded once (when decode), dot segments resolved; throws when it climbs. */
export function cleanPath(p, decode) {
  let folder = /[/\\]$/.test(p)
  const out = []
  for (const raw of p.split(/[/\\]/)) {
    if (raw === '') continue
    for (const s of (decode ? unescapeOnce(raw) : raw).split(/[/\\]/)) {
      if (s === '' || s === '.') {
        folder = true
        continue
      }
      if (s === '..') {
        if (out.length === 0) throw new Error('the path climbs above its root')
        out.pop()
        folder = true
        continue
      }
      if (decode && hiddenDots(s)) throw new Error(`segment "${s}" is a dot segment once decoded again`)
      out.push(s)
      folder = false
    }
  }
  if (folder || /[/\\]$/.test(p)) return out.length === 0 ? '/' : '/' + out.join('/') + '/'
  return '/' + out.join('/')
}

/**
 * Normalises an http(s) or file: URL, or an absolute local path, to {origin, path, query}.
 * @returns {{origin: string, path: string, query: string}}
 */
export function parseLocation(raw) {
  const s = String(raw)
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) && !/^[a-zA-Z]:[\\/]/.test(s)) {
    const u = new URL(s)
    if (u.protocol === 'file:') {
      if (u.host !== '' && u.host !== 'localhost') throw new Error(`a file: URL on host ${u.host}`)
      return { origin: FILE, path: cleanPath(u.pathname, true), query: '' }
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`scheme ${u.protocol}`)
    const user = u.username || u.password ? `${u.username}${u.password ? ':' + u.password : ''}@` : ''
    const host = u.host.replace(/\.$/, '').replace(/\.:/, ':')
    return { origin: `${u.protocol}//${user}${host}`, path: cleanPath(u.pathname, true), query: u.search.replace(/^\?/, '') }
  }
  if (!s.startsWith('/') && !s.startsWith('\\')) throw new Error('a local path must be absolute')
  return { origin: FILE, path: cleanPath(s, false), query: '' }
}

function show(l) {
  return l.origin + l.path + (l.query ? '?' + l.query : '')
}

export class Scope {
  constructor() {
    this.entries = [] // {loc, kind: 'object'|'folder'|'prefix'}
    this.redirects = new Set()
    this.strictRedirects = false
  }

  /** A named location: a folder when its path ends in '/', a listing prefix when glob, else an object. */
  named(raw, glob = false) {
    const loc = parseLocation(raw)
    this.entries.push({ loc, kind: loc.path.endsWith('/') ? 'folder' : glob ? 'prefix' : 'object' })
    return this
  }

  /** An allowed prefix: a folder when it ends in '/', else that object and the folder of its name. */
  allow(raw) {
    const loc = parseLocation(raw)
    if (loc.path.endsWith('/')) this.entries.push({ loc, kind: 'folder' })
    else this.entries.push({ loc, kind: 'object' }, { loc: { ...loc, path: loc.path + '/', query: '' }, kind: 'folder' })
    return this
  }

  /** An origin a redirect may lead to outside the scope. */
  redirectOrigin(raw) {
    const l = parseLocation(String(raw).replace(/\/?$/, '/'))
    if (l.origin === FILE || l.path !== '/') throw new PqscanError('options', `pqscan: redirect origin ${raw} is not an http(s) origin`)
    this.redirects.add(l.origin)
    return this
  }

  contains(l) {
    return this.entries.some((e) => e.loc.origin === l.origin && (e.kind === 'object'
      ? e.loc.path === l.path && e.loc.query === l.query
      : l.query === '' && l.path.startsWith(e.loc.path)))
  }

  /** Throws a 'scope' PqscanError unless the scope covers raw; what names the entry that asked. */
  check(raw, what) {
    let l
    try {
      l = parseLocation(raw)
    } catch (e) {
      throw new PqscanError('scope', `pqscan: ${what} names ${raw}, outside the scope of the open: ${e.message}`, { cause: e })
    }
    if (!this.contains(l)) throw new PqscanError('scope', `pqscan: ${what} names ${show(l)}, outside the scope of the open (the sources named and the allow option)`)
  }

  /** check for a request URL: an S3 listing (list-type=2) by its bucket path and prefix. */
  checkRequest(raw, what) {
    const u = new URL(String(raw))
    if (u.searchParams.get('list-type') !== '2') return this.check(raw, what)
    let l
    try {
      l = parseLocation(u.origin + u.pathname)
      l.path = cleanPath(l.path.replace(/\/$/, '') + '/' + (u.searchParams.get('prefix') ?? ''), false)
    } catch (e) {
      throw new PqscanError('scope', `pqscan: ${what} lists ${raw}, outside the scope of the open: ${e.message}`, { cause: e })
    }
    if (!this.entries.some((e) => e.kind !== 'object' && e.loc.origin === l.origin && l.path.startsWith(e.loc.path))) {
      throw new PqscanError('scope', `pqscan: ${what} lists ${show(l)}, outside the scope of the open`)
    }
  }

  /**
   * A local path (Node) as it will be opened and as its real path: a symbolic link inside a
   * named folder that leads outside the scope is refused. A path that does not exist is
   * checked as written.
   */
  async checkLocal(p, what) {
    this.check(p, what)
    const fs = await import('node:fs/promises')
    let real
    try {
      real = await fs.realpath(p)
    } catch {
      return
    }
    if (!this.contains(parseLocation(real))) throw new PqscanError('scope', `pqscan: ${what} names ${p}, a symbolic link to ${real}, outside the scope of the open (allow its target with the option allow)`)
  }
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node

/**
 * The scope of an open: the named sources (strings: URLs, or absolute paths; a trailing '/' a
 * folder), the allow prefixes and the redirect origins; local ones (Node) also by their real
 * paths, so that a folder named through a symbolic link reads.
 * @param {Array<{src: string, glob?: boolean}>} named
 */
export async function makeScope(named, { allow = [], redirectOrigins = [], strictRedirects = false } = {}) {
  const sc = new Scope()
  sc.strictRedirects = !!strictRedirects
  const isURL = (p) => /^[a-z][a-z0-9+.-]*:/i.test(p) && !/^[a-z]:[\\/]/i.test(p)
  const abs = async (p) => {
    if (!isNode || isURL(p)) return p
    const path = await import('node:path')
    return /[/\\]$/.test(p) ? path.resolve(p) + path.sep : path.resolve(p)
  }
  const real = async (p) => {
    if (!isNode || isURL(p)) return null
    const fs = await import('node:fs/promises')
    return fs.realpath(p).then((r) => (/[/\\]$/.test(p) ? r.replace(/\/?$/, '/') : r), () => null)
  }
  for (const { src: s, glob } of named) {
    const src = await abs(s)
    sc.named(src, glob)
    const r = await real(src)
    if (r) sc.named(r, glob)
  }
  for (const a of allow ?? []) {
    const src = await abs(a)
    sc.allow(src)
    const r = await real(src)
    if (r) sc.allow(r)
  }
  for (const o of redirectOrigins ?? []) sc.redirectOrigin(o)
  return sc
}

/**
 * fetchFn with every request checked against sc before it is sent, redirects included: in
 * Node each hop is followed here (redirect: 'manual') within the scope or to a redirect
 * origin; in a browser the browser follows them and the final URL is checked on arrival.
 */
export function scopedFetch(fetchFn, sc) {
  const f = fetchFn ?? ((...a) => globalThis.fetch(...a))
  return async (url, init = {}) => {
    sc.checkRequest(url, 'the request')
    if (!isNode) {
      const res = await f(url, sc.strictRedirects ? { ...init, redirect: 'error' } : init)
      if (res.redirected && res.url) checkHop(sc, res.url, url)
      return res
    }
    let cur = String(url)
    for (let hop = 0; ; hop++) {
      const res = await f(cur, { ...init, redirect: 'manual' })
      const loc = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null
      if (loc == null) return res
      await res.body?.cancel()
      if (hop >= MAX_REDIRECTS) throw new PqscanError('http', `pqscan: ${url}: more than ${MAX_REDIRECTS} redirects`)
      const next = new URL(loc, cur).href
      checkHop(sc, next, cur)
      cur = next
    }
  }
}

function checkHop(sc, next, from) {
  let l = null
  try {
    l = parseLocation(next)
  } catch {}
  if (l && sc.redirects.has(l.origin)) return
  sc.checkRequest(next, `a redirect from ${from}`)
}
