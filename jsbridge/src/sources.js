// The sources openParquet and openDataset take, as the engine's Core takes them: absolute URLs,
// local paths (Node), Blobs and AsyncBuffers, a dataset's folder or glob, an Iceberg metadata
// file, and the time-travel options of a table.

import { PqscanError } from './errors.js'
import { isAsyncBuffer } from './blob.js'
import { localPath } from './node-file.js'

export function absoluteURL(url) {
  const base = typeof location !== 'undefined' ? location.href : undefined
  try {
    return new URL(String(url), base).href
  } catch (e) {
    throw new PqscanError('source', `pqscan: ${String(url)} is not a URL${base ? '' : ' or a local path'}`, { cause: e })
  }
}

// One source of openDataset as Core.openDataset takes it: {url, size?}, {blob, path?},
// {asyncBuffer, path?} or {file, path?} (Node: a path or file: URL).
export async function datasetSource(s, i) {
  if (typeof Blob !== 'undefined' && s instanceof Blob) return { blob: s }
  if (s instanceof ArrayBuffer || ArrayBuffer.isView(s)) return { blob: new Blob([s]), path: `buffer-${i}` }
  if (isAsyncBuffer(s)) return { asyncBuffer: s, path: `buffer-${i}` }
  if (s != null && typeof s === 'object' && !(s instanceof URL)) {
    const path = s.path != null ? { path: String(s.path) } : {}
    if (typeof Blob !== 'undefined' && s.blob instanceof Blob) return { blob: s.blob, ...path }
    if (isAsyncBuffer(s.blob)) return { asyncBuffer: s.blob, path: `buffer-${i}`, ...path }
    if (s.url == null) throw new PqscanError('options', `pqscan: source ${i} has neither url nor blob`)
    const p = await localPath(s.url)
    if (p != null) return { file: p, ...path }
    return s.size > 0 ? { url: absoluteURL(s.url), size: s.size } : { url: absoluteURL(s.url) }
  }
  const p = await localPath(s)
  if (p != null) return { file: p }
  if (typeof s !== 'string' && !(s instanceof URL)) throw new PqscanError('source', `pqscan: source ${i} is ${s === null ? 'null' : typeof s}: a URL, a path (Node), a Blob, an ArrayBuffer, a typed array, an AsyncBuffer, {url, size} or {blob, path}`)
  return { url: absoluteURL(s) }
}

// openDataset's one-string source: a folder (a URL or Node path ending in '/'; a Delta table
// when it has a _delta_log/, folder.js) or a glob (`*`, `**`, `[...]`; `?` too in a path),
// as {folder}; any other string is one file ({file}).
export async function folderSource(x, opts) {
  if (typeof x !== 'string' && !(x instanceof URL)) throw new PqscanError('options', 'pqscan: openDataset needs a non-empty array of sources, or a folder or glob')
  const s = String(x)
  if ([opts.version, opts.snapshotId, opts.asOf].filter((v) => v != null).length > 1) throw new PqscanError('options', 'pqscan: two of the version, snapshotId and asOf options together: give one')
  const version = opts.version != null ? { version: checkVersion(opts.version) } : opts.asOf != null ? { asOf: checkAsOf(opts.asOf) } : {}
  if (opts.snapshotId != null) version.snapshotId = checkSnapshotId(opts.snapshotId)
  const p = await localPath(x)
  if (p != null) {
    const glob = /[*?[]/.test(s)
    const dir = /[/\\]$/.test(s)
    if (!glob && !dir && ICEBERG_METADATA.test(p)) return { folder: { ...icebergRoot(p.split('\\').join('/')), glob: false, ...version } }
    return glob || dir ? { folder: { path: p, glob, ...version } } : { file: x }
  }
  const u = absoluteURL(s)
  const glob = /[*[]/.test(new URL(u).pathname)
  if (!glob && ICEBERG_METADATA.test(new URL(u).pathname)) {
    const { path, metadata } = icebergRoot(u)
    return { folder: { url: path, metadata, glob: false, ...version } }
  }
  if (!glob && !u.endsWith('/')) return { file: x }
  return { folder: { url: u, glob, ...(opts.pathStyle ? { pathStyle: true } : {}), ...version } }
}

// An Iceberg table metadata file's name (as the Go host's isIcebergMetadata).
const ICEBERG_METADATA = /\.metadata\.json(\.gz)?$/

// A metadata file's table root (the folder above the one holding it, ending in '/') and the
// file relative to it ("metadata/v3.metadata.json").
function icebergRoot(p) {
  const parts = p.split('/')
  const metadata = parts.slice(-2).join('/')
  return { path: parts.slice(0, -2).join('/') + '/', metadata }
}

// An Iceberg snapshot id as the session takes it: decimal text (an int64 a number cannot
// always hold: give a bigint or a string for ids above 2^53).
function checkSnapshotId(id) {
  const t = typeof id === 'bigint' || typeof id === 'string' ? String(id) : Number.isSafeInteger(id) ? String(id) : ''
  if (!/^-?\d+$/.test(t)) throw new PqscanError('options', `pqscan: snapshotId ${id}: an Iceberg snapshot id is an integer (a bigint or a decimal string above 2^53)`)
  return t
}

// A time as the Delta session takes it: milliseconds since the epoch, from a Date, a
// Date.parse string or a number of milliseconds.
function checkAsOf(t) {
  const ms = t instanceof Date ? t.getTime() : typeof t === 'string' ? Date.parse(t) : t
  if (!Number.isSafeInteger(ms)) throw new PqscanError('options', `pqscan: asOf ${t}: not a time (a Date, an ISO string or milliseconds)`)
  return ms
}

function checkVersion(v) {
  if (!Number.isSafeInteger(v) || v < 0) throw new PqscanError('options', `pqscan: version ${v}: a Delta version is an integer ≥ 0`)
  return v
}
