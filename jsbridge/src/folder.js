// Folders and globs as datasets (openDataset('https://host/table/'), openDataset('./table/')
// and local globs in Node): what a folder holds is decided here, once, at open. A folder with
// a `_delta_log/` is a Delta table, read by the module's Delta session (delta.js); one with
// an Iceberg `metadata/` (locally a folder; over HTTP a listed `*.metadata.json` or, where the
// server does not list, a `metadata/version-hint.text`), or a `*.metadata.json` named, is an
// Iceberg table, read by the module's Iceberg session the same way; any other folder is every `*.parquet` below it (hidden and `_`-prefixed names skipped, as Spark and
// Hive do) — over HTTP from a ListObjectsV2 listing (listing.js), in Node from the file system
// (node-dir.js: symbolic links followed, cycles and broken links skipped);
// a glob selects keys with the same matcher as listDataset. Local files' Hive key=value
// directories are parsed from their whole paths, as the CLI does.
import { PqscanError } from './errors.js'
import { listDataset, selector } from './listing.js'
import { readSnapshot, probeHTTPFolder, probeIcebergFolder, httpDeltaIO, localDeltaIO } from './delta.js'
import { HttpSource } from './http.js'
import { BlobSource } from './blob.js'
import { nodeFileReader } from './node-file.js'
import { walkFiles } from './node-dir.js'
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
  if (f.url != null) {
    if (f.glob) return { list: await httpList(f.url, http), snapshot: null, root: '' }
    const probe = f.metadata != null ? { delta: false } : await probeHTTPFolder(f.url, http)
    if (!probe.delta) {
      const ice = f.metadata != null ? { prefetched: {} } : await probeIcebergFolder(f.url, http)
      if (ice) {
        const outside = (p, what) => {
          const at = locate(p, true, what, f.url)
          if (at.file != null) throw new PqscanError('scope', `pqscan: ${what} names a local file, and the table is remote`)
          return at
        }
        const io = httpDeltaIO(f.url, http, (p, owner) => {
          const at = deleteFile(p, owner, (q, what) => ({ url: f.url + q, what }), outside)
          sc?.check(at.url, at.what)
          return ownedBy(new HttpSource(at.url, opts), owner)
        }, ice)
        io.getAbsolute = absoluteGetter(outside, sc, http)
        return icebergTable(inst, f, f.url, io, (p, esc) => ({ url: f.url + esc }), outside, sc, signal)
      }
      noTravel(f, f.url)
      return { list: await httpList(f.url, http), snapshot: null, root: f.url }
    }
    if (f.snapshotId != null) throw new PqscanError('options', `pqscan: ${f.url} is a Delta table: the snapshotId option reads an Iceberg one (give version)`)
    const io = httpDeltaIO(f.url, http, (p, owner) => {
      const at = logFile(p, owner, f.url)
      if (at.file != null) throw new PqscanError('scope', `pqscan: ${at.what} names a local file, and the table is remote`)
      sc?.check(at.url, at.what)
      return ownedBy(new HttpSource(at.url, opts), owner)
    }, probe)
    const snapshot = await readSnapshot(inst, io, { version: f.version, asOf: f.asOf, tailSize: opts.tailSize, root: f.url }, signal)
    const list = []
    for (const [i, x] of snapshot.table.files.entries()) {
      const at = deltaFile(snapshot, i, f.url)
      if (at.file != null) throw new PqscanError('scope', `pqscan: ${at.what} names a local file, and the table is remote`)
      sc?.check(at.url, at.what)
      list.push({ url: at.url, size: x.size })
    }
    return { list, snapshot, root: f.url }
  }
  const fs = await import('node:fs/promises')
  const path = await import('node:path')
  if (f.glob) return { list: await inScope(sc, await localGlob(path, f.path), f.path), snapshot: null, root: '' }
  const root = f.path
  const st = await fs.stat(root).catch((e) => {
    throw new PqscanError('source', `pqscan: ${root}: ${e.message}`, { cause: e })
  })
  if (!st.isDirectory()) throw new PqscanError('source', `pqscan: ${root} is not a folder`)
  const isDir = (d) => fs.stat(path.join(root, d)).then((s) => s.isDirectory(), () => false)
  const isDelta = f.metadata == null && (await isDir('_delta_log'))
  if (!isDelta && (f.metadata != null || (await isDir('metadata')))) {
    const { fileURLToPath } = await import('node:url')
    const outside = (p, what) => (p.startsWith('/') ? { file: p, what } : locate(p, true, what, null, null, fileURLToPath))
    const io = await localDeltaIO(root, (p, owner) => localSource(deleteFile(p, owner, (q, what) => ({ file: path.join(root, ...q.split('/')), what }), outside), owner, sc, opts), sc, 'the Iceberg table')
    io.getAbsolute = absoluteGetter(outside, sc, opts)
    const r = await icebergTable(inst, f, root, io, (p) => ({ file: path.join(root, ...p.split('/')) }), outside, sc, signal)
    for (const it of r.list) {
      // As the Go host: a data file the manifests name but the folder lacks fails now, naming it.
      if (!(await fs.stat(it.file).then((s) => s.isFile(), () => false))) {
        throw new PqscanError('source', `pqscan: ${root}: Iceberg snapshot ${r.snapshot.versionText}: a manifest names ${it.file}, which does not exist`, { file: it.file })
      }
    }
    return r
  }
  if (isDelta && f.snapshotId != null) throw new PqscanError('options', `pqscan: ${root} is a Delta table: the snapshotId option reads an Iceberg one (give version)`)
  if (!isDelta) {
    noTravel(f, root)
    const sel = selector('', true)
    const list = (await walkFiles(root)).filter((k) => sel.keep(k)).map((k) => ({ file: path.join(root, ...k.split('/')) }))
    return { list: await inScope(sc, list, root), snapshot: null, root: '' }
  }
  const { pathToFileURL, fileURLToPath } = await import('node:url')
  const io = await localDeltaIO(root, (p, owner) => localSource(logFile(p, owner, null, (q) => path.join(root, ...q.split('/')), fileURLToPath), owner, sc, opts), sc)
  const rootURL = pathToFileURL(path.resolve(root)).href.replace(/\/?$/, '/')
  const snapshot = await readSnapshot(inst, io, { version: f.version, asOf: f.asOf, tailSize: opts.tailSize, root: rootURL }, signal)
  const list = []
  for (const i of snapshot.paths.keys()) {
    const at = deltaFile(snapshot, i, null, (p) => path.join(root, ...p.split('/')), fileURLToPath)
    if (at.url != null) {
      sc?.check(at.url, at.what)
      list.push({ url: at.url })
      continue
    }
    await sc?.checkLocal(at.file, at.what)
    list.push({ file: at.file })
  }
  for (const it of list) {
    if (it.file == null) continue
    // As the Go host: a data file the log names but the folder lacks fails now, naming it.
    if (!(await fs.stat(it.file).then((s) => s.isFile(), () => false))) {
      throw new PqscanError('source', `pqscan: ${root}: version ${snapshot.version}: the Delta log names ${it.file}, which does not exist`, { file: it.file })
    }
  }
  return { list, snapshot, root }
}

// An Iceberg table's snapshot (the metadata file f.metadata names, else the current one found
// by the session) and its data files, each where at(path) says, checked against the scope.
// at(path, escaped) places a data file under the table root; outside(path, what) resolves one
// the snapshot marks absolute (outside the table location), checked against the scope below.
async function icebergTable(inst, f, root, io, at, outside, sc, signal) {
  if (f.version != null) throw new PqscanError('options', `pqscan: ${root} is an Iceberg table: the version option reads a Delta one (give snapshotId or asOf)`)
  const snapshot = await readSnapshot(inst, io, { iceberg: true, metadata: f.metadata, snapshotId: f.snapshotId, asOf: f.asOf, pathMap: f.pathMap }, signal)
  snapshot.iceberg = true
  const list = []
  for (const [i, p] of snapshot.paths.entries()) {
    // at(path, its escaped form, as the table session names it over HTTP)
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

// The time travel options need a table.
function noTravel(f, root) {
  const o = f.version != null ? 'version' : f.snapshotId != null ? 'snapshotId' : f.asOf != null ? 'asOf' : null
  if (o) throw new PqscanError('options', `pqscan: ${root} is not a Delta or Iceberg table (no _delta_log/ nor metadata/): the ${o} option needs one`)
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

async function httpList(url, http) {
  const ents = await listDataset(url, http)
  if (ents.length === 0) throw new PqscanError('source', `pqscan: ${url}: no Parquet file there`)
  return ents.map((e) => ({ url: e.url, size: e.size, etag: e.etag })) // the ETag validates a stored tail (tailcache.js)
}

// A local glob ('/data/events/*/part-*.parquet', '**' for any depth): the matcher of
// listDataset over the files below the glob's fixed leading folder.
async function localGlob(path, glob) {
  const abs = path.resolve(glob).split(path.sep).join('/')
  const meta = abs.search(/[*?[]/)
  const base = abs.slice(0, abs.lastIndexOf('/', meta) + 1)
  const sel = selector(abs.slice(base.length), false)
  const keys = await walkFiles(base).catch((e) => {
    throw new PqscanError('source', `pqscan: ${glob}: ${e.message}`, { cause: e })
  })
  const list = keys.filter((k) => sel.keep(k)).map((k) => ({ file: path.join(base, ...k.split('/')) }))
  if (list.length === 0) throw new PqscanError('source', `pqscan: ${glob}: no file matches`)
  return list
}
