// The Core's helpers that need no instance: the keys and options it hands the engine for a
// file or a dataset, the labels of its errors, the HTTP counters of its reports and the scope
// of an open.

import { BlobSource } from './blob.js'
import { makeScope, scopedFetch } from './scope.js'

// The gap (bytes) up to which a scan over HTTP merges two ranges into one request, unless the
// caller sets maxGap (the engine's own default is 8 KiB). In Chromium every request costs
// several ms of CPU whatever its size, while 16 KiB more of one body costs ~0.1 ms: sorted Q1
// of the events file needs 8 requests instead of 10 for 2.5% more bytes; 64 KiB would cost up
// to 12% more bytes (BENCHMARKS.md, "Q1 in Chromium, round by round").
export const HTTP_MAX_GAP = 16 << 10

// The key under which the engine keeps a file's decoded footer and tail (pq_open "fileKey"):
// the URL, the version the source pins (ETag, else Last-Modified) and the size. Without a
// validator (a server that sends none, or a known size: the first response comes after
// pq_open) the key names the source itself, so two opens never share a footer of a file that
// might have changed in between. A local source's key is its reader's (an id of an immutable
// Blob or AsyncBuffer object, a Node file's identity and mtime).
let lastKeyId = 0
export function fileKey(url, src) {
  if (src instanceof BlobSource) return `${src.reader.key}\n${src.size}`
  const v = src.validators
  return `${url}\n${v?.etag || v?.lastModified || `#${++lastKeyId}`}\n${src.size}`
}

// The files of a table session (tablescan.Options): each file's path, its size when its
// source knows it, and its version: the ETag (else Last-Modified) the source pinned, else a
// name of the source itself (as fileKey does), so that the engine's footer cache never
// serves a footer of another version of the file.
export function tableOptions(ds) {
  const files = ds.srcs.map((s) => {
    const f = { path: s.path }
    if (s.size > 0) f.size = s.size
    f.version = s.tableVersion ?? (s.validators?.etag || s.validators?.lastModified || (s.sourceKey ??= `#${++lastKeyId}`))
    return f
  })
  const o = { files }
  if (ds.root) o.root = ds.root
  if (ds.noHive) o.noHive = true
  if (ds.byPosition) o.byPosition = true // schema resolution (tablescan resolve.go)
  if (ds.unionSchema) o.unionSchema = true
  if (ds.table) o.table = ds.table // the open's schema (Core.openDataset)
  if (ds.delta) {
    // A Delta snapshot (delta.js): the table schema, partition values, statistics, row
    // counts (numRecords: counts and min/max need no footer) and deleted rows (deletion
    // vectors, read by the module's Delta session) are the log's; the files are the
    // snapshot's, in its order.
    const { files: dfiles, ...table } = ds.delta
    Object.assign(o, table)
    files.forEach((f, i) => {
      if (dfiles[i].partition) f.partition = dfiles[i].partition
      if (dfiles[i].stats) f.stats = dfiles[i].stats
      if (dfiles[i].rows) f.rows = dfiles[i].rows
      if (dfiles[i].deleted) f.deleted = dfiles[i].deleted
    })
  }
  return o
}

// A URL as the engine sees it (tablescan File.Path): without query and fragment, whose '/'
// and '=' (signed URLs) would read as directories and partitions.
export function pathOf(url) {
  try {
    const u = new URL(url)
    return u.origin + u.pathname
  } catch {
    return String(url)
  }
}

export function blobPath(blob, i) {
  if (typeof blob.webkitRelativePath === 'string' && blob.webkitRelativePath !== '') return blob.webkitRelativePath
  if (typeof blob.name === 'string' && blob.name !== '') return blob.name
  return `blob-${i}`
}

export function datasetLabel(srcs) {
  if (srcs.length === 0) return 'an empty dataset'
  return srcs.length === 1 ? srcs[0].url : `dataset of ${srcs.length} files: ${srcs[0].url}, …`
}

// Keeps bytes read at open in the source, unless a kept piece has them already.
export function keepNew(src, off, b) {
  if (!src.pieces.some((p) => p.off <= off && off + b.length <= p.off + p.bytes.length)) src.keep(off, b)
}

export function sumStats(srcs) {
  const t = { requests: 0, bytes: 0, retries: 0, roundTrips: 0 }
  for (const s of srcs) for (const k of Object.keys(t)) t[k] += s.stats[k]
  return t
}

export function diff(a, b) {
  return { requests: a.requests - b.requests, bytes: a.bytes - b.bytes, retries: a.retries - b.retries, roundTrips: a.roundTrips - b.roundTrips }
}

// The open's scope (scope.js) and a fetch that checks every request of the open against it,
// redirects included: what a table's metadata, a listing or a redirect may reach.
export async function scoped(opts, named) {
  const scope = await makeScope(named, opts)
  return { ...opts, scope, fetch: scopedFetch(opts.fetch, scope) }
}

// The locations a dataset's caller named: its files' URLs and paths, or its folder (a glob's
// fixed leading part, as a listing prefix).
export function namedSources(list, folder) {
  const out = []
  for (const it of Array.isArray(list) ? list : []) {
    if (it.url != null) out.push({ src: String(it.url) })
    else if (typeof it.file === 'string') out.push({ src: it.file })
  }
  if (folder?.url != null) {
    const i = folder.glob ? folder.url.search(/[*[]/) : -1
    out.push(i >= 0 ? { src: folder.url.slice(0, i), glob: true } : { src: folder.url })
  } else if (folder?.path != null) {
    const p = String(folder.path)
    const i = folder.glob ? p.search(/[*?[]/) : -1
    out.push({ src: i >= 0 ? p.slice(0, p.lastIndexOf('/', i) + 1) : /[/\\]$/.test(p) ? p : p + '/' })
  }
  return out
}
