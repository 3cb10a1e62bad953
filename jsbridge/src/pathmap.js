// Iceberg path maps: openDataset's pathMap option, {prefix: base} or the text form
// "PREFIX=BASE,PREFIX=BASE" of the CLI's --path-map. The rules are the Go side's
// (internal/dataset/iceberg/pathmap.go: ParsePathMap, CheckPathMap); the mapping itself is
// the module's Iceberg session's, which takes each base as a URL: a local base (Node) goes to
// it as a file: URL, a relative one in a browser resolves against the page. Every base joins
// the open's scope as an allow prefix does: the caller named it.
import { PqscanError } from './errors.js'
import { localPath } from './node-file.js'

const fail = (msg) => new PqscanError('options', `pqscan: pathMap: ${msg}`)

// A base: an http(s) or file: URL, or a local path that is absolute or starts with ./ or ../.
function isPathBase(b) {
  if (/^(https?:\/\/|file:)./i.test(b)) return true
  return b === '.' || b === '..' || b.startsWith('/') || b.startsWith('./') || b.startsWith('../')
}

/**
 * The map of pathMap (an object, or the text form: entries split at ',', each at the first '='
 * that a base follows, so a prefix may hold '='), checked: each prefix an absolute URI or path
 * naming a folder, no prefix twice (trailing '/' aside), each base of a base's form.
 * @param {string|Record<string, string>} x
 * @returns {Record<string, string>}
 */
export function parsePathMap(x) {
  const out = {}
  if (typeof x === 'string') {
    if (x.trim() !== '') {
      for (let e of x.split(',')) {
        e = e.trim()
        if (e === '') throw fail(`${JSON.stringify(x)} has an empty entry (entries are PREFIX=BASE, separated by ',')`)
        let i = e.indexOf('=', 1)
        while (i > 0 && !isPathBase(e.slice(i + 1))) i = e.indexOf('=', i + 1)
        if (i < 0) throw fail(`${JSON.stringify(e)} is not PREFIX=BASE (BASE: an http(s) URL, a file: URL, or a local folder starting with '/', './' or '../')`)
        const prefix = e.slice(0, i)
        if (prefix in out) throw fail(`the prefix ${JSON.stringify(prefix)} is mapped twice`)
        out[prefix] = e.slice(i + 1)
      }
    }
  } else if (x != null && typeof x === 'object' && !Array.isArray(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (typeof v !== 'string') throw fail(`the base of ${JSON.stringify(k)} is not a string`)
      out[k] = v
    }
  } else {
    throw fail('an object {prefix: base} or a string "PREFIX=BASE,…"')
  }
  const seen = new Map()
  for (const prefix of Object.keys(out).sort()) {
    const q = prefix.replace(/\/+$/, '')
    if (!/^([A-Za-z][A-Za-z0-9+.-]*:|\/)/.test(prefix) || q === '' || q.endsWith(':')) throw fail(`the prefix ${JSON.stringify(prefix)} is not an absolute URI or path with a folder in it`)
    if (seen.has(q)) throw fail(`the prefixes ${JSON.stringify(seen.get(q))} and ${JSON.stringify(prefix)} are the same`)
    seen.set(q, prefix)
    if (!isPathBase(out[prefix])) throw fail(`the base ${JSON.stringify(out[prefix])} of ${JSON.stringify(prefix)} is not an http(s) URL, a file: URL or a local folder starting with '/', './' or '../'`)
  }
  return out
}

/**
 * pathMap as the module's session takes it (each base a URL) and the locations it adds to the
 * open's scope (local bases as paths); null when there is none.
 * @param {string|Record<string, string>|undefined} x
 * @param {(u: string) => string} absoluteURL resolves a URL against the page
 */
export async function resolvePathMap(x, absoluteURL) {
  if (x == null) return null
  const m = parsePathMap(x)
  const map = {}
  const allow = []
  for (const [prefix, base] of Object.entries(m)) {
    const p = await localPath(base) // Node: a local path or file: URL
    if (p == null) {
      map[prefix] = absoluteURL(base)
      allow.push(map[prefix])
      continue
    }
    const { pathToFileURL } = await import('node:url')
    map[prefix] = pathToFileURL(p).href
    allow.push(p)
  }
  return Object.keys(map).length ? { map, allow } : null
}
