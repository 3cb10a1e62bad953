// Delta and Iceberg tables, and the discovery of what a folder is, in the bridge. The log
// replays and the discovery are the module's (pq_open_delta, pq_open_iceberg, pq_open_discover;
// wasm/ABI.md): this file only moves bytes for them — whole objects (GET, 404 means missing),
// listing pages, local walks, stats and listings, and the byte ranges of checkpoint, deletion
// vector and delete files, which the module reads itself. Nothing of the replay or of the
// discovery is re-implemented here, so the Go host, the wazero host and JS read a table the
// same way.
import { NEED_OBJECTS, NEED_DATA, DONE, ERROR, OBJECT_LIST, OBJECT_PAGE, OBJECT_WALK, OBJECT_STAT } from './module.js'
import { fetchFiles } from './drive.js'
import { PqscanError, abortReason } from './errors.js'
import { getPage } from './listing.js'
import { getObject } from './http-object.js'
import { cachedObject, metaCacheOf } from './tailcache.js'
import { readDir, walkFiles } from './node-dir.js'

const MAX_LOG_OBJECT = 256 << 20 // as the Go host (delta_http.go): a larger log object is refused
const enc = new TextEncoder()
const dec = new TextDecoder()

/**
 * Runs the module's Delta session to the snapshot.
 * @param {import('./module.js').Instance} inst
 * @param {{get(path, signal): Promise<Uint8Array|null>, list?: (path, signal) => Promise<Array<{name: string, size: number, modTime?: number}>>, source(path, owner): Promise<object>, label: string}} io
 *   get: a whole object (null: it does not exist); list: the objects under a prefix (only
 *   where the host can list; modTime, ms since the epoch, dates commits for asOf); source: a
 *   range source for a file of the session's table (a checkpoint, or the deletion vector file
 *   of data file owner: a path relative to the root, or an absolute URI the host resolves
 *   like an absolute data file path, within the open's scope)
 * @param {{version?: number, asOf?: number, tailSize?: number, root?: string}} o (asOf: ms since the epoch; root: the table root as an absolute URL ending in '/', https: or file:)
 * @returns {Promise<{version: number, table: object, paths: string[]}>}
 */
export async function readSnapshot(inst, io, o = {}, signal) {
  const ice = !!o.iceberg // an Iceberg table: pq_open_iceberg (NeedObjects, NeedData for its delete files)
  const kind = ice ? 'Iceberg' : 'Delta'
  if (!(ice ? inst.hasIceberg : inst.hasDelta)) throw new PqscanError('abi', `pqscan: this module has no ${kind} sessions (pq_open_${kind.toLowerCase()}); rebuild it (make wasm)`)
  const opts = { canList: !!io.list }
  if (o.version != null) opts.version = o.version
  if (o.asOf != null) opts.asOf = o.asOf
  if (o.tailSize && !ice) opts.tailSize = o.tailSize
  if (o.root && !ice) opts.root = o.root // absolute deletion vector paths under it are read
  if (o.metadata) opts.metadata = o.metadata // the Iceberg metadata file, relative to the root
  if (o.pathMap && ice) opts.pathMap = o.pathMap // prefix -> base URL (pathmap.js)
  const mc = ice ? null : await resumeFrom(io, o, opts)
  const h = ice ? inst.openIceberg({ ...opts, snapshotId: o.snapshotId }) : inst.openDelta(opts)
  const snap = await runSession(inst, h, io, kind.toLowerCase(), signal, (m) => `pqscan: ${io.label}: ${m || `the ${kind} table's metadata read failed`}`)
  return keepState(mc, io, opts, snap)
}

// The replayed state of the latest version a metadata cache keeps (io.cache), given to the
// Delta session as opts.resume: a reopen reads only the commits after it; the module checks
// it against the log. Time travel reads what it names, never a stored latest. Returns the
// cache the snapshot's own state goes to (keepState), or null.
async function resumeFrom(io, o, opts) {
  const mc = o.version == null && o.asOf == null && o.snapshotId == null ? io.cache : null
  if (!mc) return null
  opts.keepState = true
  const st = await mc.deltaState(io.label)
  if (st) opts.resume = dec.decode(st) // base64, as the module's JSON gives it
  return mc
}

function keepState(mc, io, opts, snap) {
  if (mc && snap.state && snap.state !== opts.resume) mc.putDeltaState(io.label, enc.encode(snap.state))
  delete snap.state
  return snap
}

/**
 * Runs the module's discovery (pq_open_discover, wasm/ABI.md): what a folder, glob or named
 * metadata file is, decided in the module, which asks io for listing pages (io.page), local
 * walks and stats (io.walk, io.stat), objects and ranges, and ends with discover.Result: a
 * Delta or Iceberg snapshot, or the data files.
 * @param {object} o discover.Options
 */
export async function discover(inst, o, io, signal) {
  if (!inst.hasDiscover) throw new PqscanError('abi', 'pqscan: this module has no discovery (pq_open_discover); rebuild it (make wasm)')
  const mc = o.list ? null : await resumeFrom(io, o, o)
  const h = inst.openDiscover(o)
  const r = await runSession(inst, h, io, 'source', signal, (m) => `pqscan: ${m}`)
  return keepState(mc, io, o, r)
}

// The steps of a snapshot session or a discovery: objects and ranges fetched through io until
// Done; an error is coded by the kind the module gives (fallback: the table format's code).
// A discovery's io.source and io.get are told the table format once the module knows it.
async function runSession(inst, h, io, fallback, signal, message) {
  const srcs = []
  let format = fallback === 'source' ? null : fallback
  const fmt = () => (format ??= inst.snapshot(h).format || null)
  // The sources of the file table's new entries; a deletion vector file's is told the data
  // file it serves, which its errors name.
  const addSources = async () => {
    const files = inst.deltaFiles(h)
    if (srcs.length === files.length) return
    const owners = inst.deltaOwners(h) ?? [] // null: no vector file yet
    while (srcs.length < files.length) srcs.push(await io.source(files[srcs.length], owners[srcs.length] || '', fmt()))
  }
  const answer = (ob) => {
    if (ob.kind === OBJECT_PAGE) return io.page(ob.path, !!ob.optional, signal)
    if (ob.kind === OBJECT_WALK) return io.walk(ob.path, !!ob.absolute)
    if (ob.kind === OBJECT_STAT) return io.stat(ob.path)
    if (ob.kind === OBJECT_LIST) return io.list(ob.path, signal, fmt()).then((l) => ({ data: enc.encode(JSON.stringify(l)) }))
    return (ob.absolute ? getAbsolute(io, ob, signal) : io.get(ob.path, signal, ob.entry, fmt())).then((b) => (b ? { data: b } : { found: false }))
  }
  try {
    for (;;) {
      if (signal?.aborted) throw abortReason(signal)
      const k = inst.next(h)
      if (k === NEED_OBJECTS) {
        const objs = inst.objects(h)
        // The checkpoint ranges of the same log round, if any (a checkpoint and the commits
        // after it): fetched with the objects, so that the round costs one round trip.
        const reqs = format === 'iceberg' ? [] : inst.dataRanges(h)
        if (reqs.length > 0) await addSources()
        const [got] = await Promise.all([Promise.all(objs.map(answer)), reqs.length > 0 ? fetchFiles(inst, h, srcs, reqs, signal) : null])
        objs.forEach((ob, i) => inst.pushObject(h, ob.path, got[i].data ?? new Uint8Array(0), got[i].found !== false))
      } else if (k === NEED_DATA) {
        await addSources()
        await fetchFiles(inst, h, srcs, inst.dataRanges(h), signal)
      } else if (k === DONE) {
        return inst.snapshot(h)
      } else if (k === ERROR) {
        // Coded by the kind the module gives ('unsupported' for a feature this reader does not
        // implement, 'corrupt' for a checkpoint's bad page, …); the table format's code for
        // any other refusal.
        throw new PqscanError(inst.errorCode(h, fallback), message(inst.error(h)))
      } else {
        throw new PqscanError('abi', `pqscan: the session returned step ${k}: ${inst.error(h)}`)
      }
    }
  } finally {
    if (!inst.dead) inst.close(h)
  }
}

// An object the session names outside the table root (an Iceberg manifest list or manifest
// outside the table location), as written: the io resolves it and checks it against the
// open's scope before any request; an io that cannot is refused, never guessed at.
function getAbsolute(io, ob, signal) {
  if (!io.getAbsolute) throw new PqscanError('scope', `pqscan: ${io.label}: ${ob.entry || JSON.stringify(ob.path)} is outside the table, and this host reads none such`)
  return io.getAbsolute(ob.path, ob.entry || JSON.stringify(ob.path), signal)
}

/**
 * The io of a discovery over HTTP: objects under the root (GET, 404 means missing; log objects
 * through the metadata cache), listing pages, and the range sources of the table's files
 * (sources[format](path, owner)).
 */
export function httpTableIO(root, o, sources) {
  const fromCache = [] // the objects the metadata cache gave (the open metadata's objectsFromCache)
  return {
    label: root,
    cache: metaCacheOf(o),
    fromCache,
    get: (path, signal) => cachedObject(o, root + path, path, () => getObject(root + path, { ...o, signal, maxBytes: MAX_LOG_OBJECT }), fromCache),
    page: (url, optional, signal) => getPage(url, o, optional, signal),
    source: async (path, owner, format) => sources[format](path, owner),
  }
}

/**
 * The io of readSnapshot or a discovery for a local table (Node): the folder is listed, walked
 * (node-dir.js: links followed) and its paths stat'ed; sc, when given, checks every path read
 * first. makeSource(path, owner, format) is the range source of a table file.
 */
export async function localDeltaIO(root, makeSource, sc, label) {
  const fs = await import('node:fs/promises')
  const { join } = await import('node:path')
  const at = (p) => join(root, ...p.split('/'))
  const name = (format) => label ?? (format === 'iceberg' ? 'the Iceberg table' : 'the Delta log')
  const failed = (e) => ({ found: false, data: enc.encode(e.message) })
  return {
    label: root,
    stat: (p) => fs.stat(at(p)).then((s) => ({ data: enc.encode(s.isDirectory() ? 'dir' : 'file') }), failed),
    walk: (p, abs) => walkFiles(abs ? p : at(p)).then((keys) => ({ data: enc.encode(JSON.stringify(keys)) }), failed),
    get: async (path, signal, entry, format) => {
      const what = name(format)
      await sc?.checkLocal(at(path), entry ? `${what}'s ${entry}` : `${what}'s get of ${JSON.stringify(path)}`)
      try {
        return new Uint8Array(await fs.readFile(at(path)))
      } catch (e) {
        if (e?.code === 'ENOENT') return null
        throw new PqscanError('source', `pqscan: ${at(path)}: ${e.message}`, { cause: e })
      }
    },
    list: async (path, signal, format) => {
      await sc?.checkLocal(at(path), `${name(format)}'s list of ${JSON.stringify(path)}`)
      // Links followed (node-dir.js): a log of linked commits lists their targets' sizes.
      const out = []
      for (const e of await readDir(at(path))) {
        if (e.dir) continue
        const st = await fs.stat(at(path + e.name))
        out.push({ name: e.name, size: st.size, modTime: Math.floor(st.mtimeMs) })
      }
      return out
    },
    source: async (path, owner, format) => makeSource(path, owner, format),
  }
}
