// Folders and globs as datasets (openDataset('https://host/table/'), openDataset('./table/')
// and local globs in Node): what a folder holds is decided at open by the module's discovery
// (pq_open_discover, internal/dataset/discover: a `_delta_log/` makes a Delta table, an Iceberg
// `metadata/` or a named `*.metadata.json` an Iceberg table, any other folder every `*.parquet`
// below it, hidden and `_`-prefixed names skipped; a glob selects keys), which goes on as the
// table's snapshot session. This file only answers its requests — listing pages and objects
// over HTTP (delta.js, listing.js), walks and stats of local folders (node-dir.js: symbolic
// links followed, cycles and broken links skipped), the byte ranges of the table's files — and
// places what it ends with: each file where it is read, checked against the open's scope.
// Local files' Hive key=value directories are parsed from their whole paths, as the CLI does.
import { PqscanError } from './errors.js'
import { inScope as listedInScope } from './listing.js'
import { discover, httpTableIO, localDeltaIO } from './delta.js'
import { HttpSource } from './http.js'
import { BlobSource } from './blob.js'
import { nodeFileReader } from './node-file.js'
import { getObject } from './http-object.js'

/**
 * The files of a folder or glob, as Core.openDataset takes them, and for a Delta or Iceberg
 * table its snapshot (the table session's options, delta.js).
 * @param {import('./module.js').Instance} inst
 * @param {{url?: string, path?: string, glob?: boolean, version?: number, snapshotId?: string, asOf?: number, metadata?: string, pathStyle?: boolean, pathMap?: Record<string, string>}} f
 *   url: an http(s) folder URL or glob; path: a local (Node) folder, written with a trailing
 *   separator, or a glob; metadata: an Iceberg metadata file relative to the folder (the
 *   table root) that was named instead of the folder
 * @param {object} opts the HTTP options of the dataset
 * @returns {Promise<{list: object[], snapshot: object|null, root: string}>}
 */
export async function resolveFolder(inst, f, opts, signal) {
  // The listing and log GETs retry as the dataset's range requests do (http-object.js).
  const http = { fetch: opts.fetch, headers: opts.headers, signal, pathStyle: f.pathStyle, scope: opts.scope, metadataCache: opts.metadataCache }
  for (const k of ['maxRetries', 'backoffMs', 'maxBackoffMs', 'maxRetryAfterMs']) if (opts[k] != null) http[k] = opts[k]
  const sc = opts.scope
  const o = {}
  for (const k of ['glob', 'metadata', 'version', 'snapshotId', 'asOf', 'pathMap']) if (f[k] != null && f[k] !== false) o[k] = f[k]
  if (opts.tailSize) o.tailSize = opts.tailSize
  if (f.url != null) {
    const remote = (at) => {
      if (at.file != null) throw new PqscanError('scope', `pqscan: ${at.what} names a local file, and the table is remote`)
      return at
    }
    const outside = (p, what) => remote(locate(p, true, what, f.url))
    const http1 = (at, owner) => {
      sc?.check(at.url, at.what)
      return ownedBy(new HttpSource(at.url, opts), owner)
    }
    const io = httpTableIO(f.url, http, {
      delta: (p, owner) => http1(remote(logFile(p, owner, f.url)), owner),
      iceberg: (p, owner) => http1(deleteFile(p, owner, (q, what) => ({ url: f.url + q, what }), outside), owner),
    })
    io.getAbsolute = absoluteGetter(outside, sc, http)
    const r = await discover(inst, { url: absoluteURL(f.url), pathStyle: !!f.pathStyle, ...o }, io, signal)
    r.objectsFromCache = io.fromCache
    if (r.format === 'files') return { list: listedInScope(r, absoluteURL(f.url), sc).map((e) => ({ url: e.url, size: e.size, ...(e.etag ? { etag: e.etag } : {}) })), snapshot: null, root: f.glob ? '' : f.url } // the ETag validates a stored tail (tailcache.js)
    if (r.format === 'iceberg') return icebergFiles(r, f.url, (p, esc) => ({ url: f.url + esc }), outside, sc)
    const list = []
    for (const [i, x] of r.table.files.entries()) {
      const at = remote(deltaFile(r, i, f.url))
      sc?.check(at.url, at.what)
      list.push({ url: at.url, size: x.size })
    }
    return { list, snapshot: r, root: f.url }
  }
  const fs = await import('node:fs/promises')
  const path = await import('node:path')
  const { pathToFileURL, fileURLToPath } = await import('node:url')
  const root = f.path
  const local = (p) => path.join(root, ...p.split('/'))
  const outside = (p, what) => (p.startsWith('/') ? { file: p, what } : locate(p, true, what, null, null, fileURLToPath))
  const io = await localDeltaIO(root, (p, owner, format) =>
    localSource(format === 'iceberg' ? deleteFile(p, owner, (q, what) => ({ file: local(q), what }), outside) : logFile(p, owner, null, local, fileURLToPath), owner, sc, opts), sc)
  io.getAbsolute = absoluteGetter(outside, sc, opts)
  const abs = path.resolve(root).split(path.sep).join('/')
  const rootURL = pathToFileURL(path.resolve(root)).href.replace(/\/?$/, '/')
  const r = await discover(inst, { path: root, abs, rootURL, ...o }, io, signal)
  if (r.format === 'files') {
    const list = (r.files ?? []).map((e) => ({ file: path.join(r.dir || root, ...e.key.split('/')) }))
    return { list: await inScope(sc, list, root), snapshot: null, root: '' }
  }
  const exists = (p) => fs.stat(p).then((s) => s.isFile(), () => false)
  if (r.format === 'iceberg') {
    const t = await icebergFiles(r, root, (p) => ({ file: local(p) }), outside, sc)
    for (const it of t.list) {
      // As the Go host: a data file the manifests name but the folder lacks fails now, naming it.
      if (!(await exists(it.file))) throw new PqscanError('source', `pqscan: ${root}: Iceberg snapshot ${r.versionText}: a manifest names ${it.file}, which does not exist`, { file: it.file })
    }
    return t
  }
  const list = []
  for (const i of r.paths.keys()) {
    const at = deltaFile(r, i, null, local, fileURLToPath)
    if (at.url != null) {
      sc?.check(at.url, at.what)
      list.push({ url: at.url })
      continue
    }
    await sc?.checkLocal(at.file, at.what)
    list.push({ file: at.file })
  }
  for (const it of list) {
    // As the Go host: a data file the log names but the folder lacks fails now, naming it.
    if (it.file != null && !(await exists(it.file))) {
      throw new PqscanError('source', `pqscan: ${root}: version ${r.version}: the Delta log names ${it.file}, which does not exist`, { file: it.file })
    }
  }
  return { list, snapshot: r, root }
}

// The folder URL as the module takes it: absolute (a page's relative URL resolved).
function absoluteURL(u) {
  return new URL(u, typeof location !== 'undefined' ? location.href : undefined).href
}

// An Iceberg table's data files, each where at(path, escaped) says (under the table root), or
// outside(path, what) for one the snapshot marks absolute, checked against the scope.
async function icebergFiles(snapshot, root, at, outside, sc) {
  snapshot.iceberg = true
  const list = []
  for (const [i, p] of snapshot.paths.entries()) {
    const what = `the Iceberg snapshot ${snapshot.versionText}'s data file ${JSON.stringify(p)}`
    const it = snapshot.absolute?.[i] ? outside(p, what) : at(p, snapshot.table.files[i].path)
    if (it.url != null) sc?.check(it.url, what)
    else await sc?.checkLocal(it.file, what)
    list.push(it.url != null ? { url: it.url, size: snapshot.table.files[i].size } : { file: it.file })
  }
  return { list, snapshot, root }
}

// The getAbsolute of an Iceberg table's io: a manifest list or manifest outside the table
// location, resolved by outside, checked against the scope, then read whole (null: missing).
function absoluteGetter(outside, sc, http) {
  return async (p, entry, signal) => {
    const what = `the Iceberg table's ${entry}`
    const at = outside(p, what)
    if (at.url != null) {
      sc?.check(at.url, what)
      return getObject(at.url, { ...http, signal, maxBytes: 256 << 20 })
    }
    await sc?.checkLocal(at.file, what)
    const fs = await import('node:fs/promises')
    return fs.readFile(at.file).then((b) => new Uint8Array(b), (e) => {
      if (e?.code === 'ENOENT') return null
      throw new PqscanError('source', `pqscan: ${at.file}: ${e.message}`, { cause: e })
    })
  }
}

// Where an Iceberg delete file the session reads by range is (a Puffin file holding the
// deletion vector of data file owner, or a position or equality delete file): under the table
// root (at), or outside its location (outside), as written.
function deleteFile(p, owner, at, outside) {
  const what = owner ? `the Iceberg deletion vector file ${JSON.stringify(p)} of data file ${owner}` : `the Iceberg delete file ${JSON.stringify(p)}`
  return p.startsWith('/') || /^[A-Za-z0-9+.-]+:/.test(p) ? outside(p, what) : at(p, what)
}

// The range source of a table log's file (at: a local file or a URL), checked against the
// scope first; a vector file's errors name its data file (owner).
async function localSource(at, owner, sc, opts) {
  if (at.url != null) {
    sc?.check(at.url, at.what)
    return ownedBy(new HttpSource(at.url, opts), owner)
  }
  await sc?.checkLocal(at.file, at.what)
  const s = new BlobSource(await nodeFileReader(at.file).catch((e) => {
    throw owner ? new PqscanError('source', `pqscan: ${at.file} (the deletion vector of ${owner}): ${e.message}`, { cause: e, file: at.file }) : e
  }))
  s.label = at.file
  return ownedBy(s, owner)
}

// Where the i-th file of a Delta snapshot is read, and the log entry that names it (locate).
function deltaFile(snapshot, i, urlRoot, local, toPath) {
  const p = snapshot.paths[i]
  const what = `the Delta log (version ${snapshot.version}) add action ${JSON.stringify(p)}`
  if (!snapshot.absolute?.[i] && urlRoot != null) return { url: urlRoot + snapshot.table.files[i].path, what }
  return locate(p, !!snapshot.absolute?.[i], what, urlRoot, local, toPath)
}

// Where a file of the Delta session's table is read: a checkpoint, or the deletion vector
// file of data file owner (absolute when it has a URI scheme, as the engine's IsAbsolute).
function logFile(p, owner, urlRoot, local, toPath) {
  const what = owner ? `the Delta log's deletion vector ${JSON.stringify(p)} of data file ${owner}` : `the Delta log's checkpoint file ${p}`
  return locate(p, /^[A-Za-z0-9+.-]+:/.test(p), what, urlRoot, local, toPath)
}

// Where a path a Delta log names is read: relative to the table root (urlRoot + the path over
// HTTP; local(path) in Node), or an absolute URI as Delta allows: an http(s) URL, or a file:
// URL (a local path through toPath; for a remote table it is refused by the caller). The
// caller checks it against the open's scope before anything is fetched.
function locate(p, abs, what, urlRoot, local, toPath) {
  if (!abs) return urlRoot != null ? { url: urlRoot + p, what } : { file: local(p), what }
  const scheme = p.slice(0, p.indexOf(':')).toLowerCase()
  if (scheme === 'http' || scheme === 'https') return { url: p, what }
  if (scheme === 'file') return { file: toPath ? toPath(p) : p, what }
  throw new PqscanError('unsupported', `pqscan: ${what} names the URI scheme ${scheme}:, which this reader does not fetch`)
}

// A deletion vector file's source: the errors fetchFiles gives name its data file too.
function ownedBy(s, owner) {
  if (owner) s.owner = owner
  return s
}

// The walk follows symbolic links: each file it found is checked (its real path) against the
// open's scope, so a link out of the named folder is refused unless its target is allowed.
async function inScope(sc, list, named) {
  if (sc) for (const it of list) await sc.checkLocal(it.file, `the walk of ${named}`)
  return list
}

