// Delta tables in the bridge. The log replay is the module's (pq_open_delta, wasm/ABI.md
// "Delta sessions"): this file only moves bytes for it — whole log objects (GET, 404 means
// missing; a `_delta_log/` listing where the server lists) and the byte ranges of checkpoint
// Parquet files and deletion vector files, which the module reads itself — and turns the snapshot it ends
// with into the dataset's files and table options. Nothing of the replay is re-implemented
// here, so the Go host, the wazero host and JS read a table the same way.
import { NEED_OBJECTS, NEED_DATA, DONE, ERROR } from './module.js'
import { fetchFiles } from './drive.js'
import { PqscanError, abortReason } from './errors.js'
import { listDataset } from './listing.js'
import { getObject } from './http-object.js'
import { cachedObject, metaCacheOf } from './tailcache.js'
import { readDir } from './node-dir.js'

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
  // The replayed state of the latest version a metadata cache keeps (io.cache): a reopen
  // reads only the commits after it; the module checks it against the log.
  const mc = !ice && o.version == null && o.asOf == null ? io.cache : null
  if (mc) {
    opts.keepState = true
    const st = await mc.deltaState(io.label)
    if (st) opts.resume = dec.decode(st) // base64, as the module's JSON gives it
  }
  const h = ice ? inst.openIceberg({ ...opts, snapshotId: o.snapshotId }) : inst.openDelta(opts)
  const srcs = []
  // The sources of the file table's new entries; a deletion vector file's is told the data
  // file it serves, which its errors name.
  const addSources = async () => {
    const files = inst.deltaFiles(h)
    if (srcs.length === files.length) return
    const owners = inst.deltaOwners(h) ?? [] // null: no vector file yet
    while (srcs.length < files.length) srcs.push(await io.source(files[srcs.length], owners[srcs.length] || ''))
  }
  try {
    for (;;) {
      if (signal?.aborted) throw abortReason(signal)
      const k = inst.next(h)
      if (k === NEED_OBJECTS) {
        const objs = inst.objects(h)
        // The checkpoint ranges of the same log round, if any (a checkpoint and the commits
        // after it): fetched with the objects, so that the round costs one round trip.
        const reqs = ice ? [] : inst.dataRanges(h)
        if (reqs.length > 0) await addSources()
        const [got] = await Promise.all([
          Promise.all(objs.map(async (ob) => (ob.kind === 'list' ? enc.encode(JSON.stringify(await io.list(ob.path, signal))) : ob.absolute ? getAbsolute(io, ob, signal) : io.get(ob.path, signal, ob.entry)))),
          reqs.length > 0 ? fetchFiles(inst, h, srcs, reqs, signal) : null,
        ])
        objs.forEach((ob, i) => inst.pushObject(h, ob.path, got[i] ?? new Uint8Array(0), got[i] != null))
      } else if (k === NEED_DATA) {
        await addSources()
        await fetchFiles(inst, h, srcs, inst.dataRanges(h), signal)
      } else if (k === DONE) {
        const snap = inst.snapshot(h)
        if (mc && snap.state && snap.state !== opts.resume) mc.putDeltaState(io.label, enc.encode(snap.state))
        delete snap.state
        return snap
      } else if (k === ERROR) {
        // Coded by the kind the module gives ('unsupported' for a feature this reader does not
        // implement, 'corrupt' for a checkpoint's bad page, …); 'delta' (or 'iceberg') for
        // any other refusal.
        throw new PqscanError(inst.errorCode(h, kind.toLowerCase()), `pqscan: ${io.label}: ${inst.error(h) || `the ${kind} table's metadata read failed`}`)
      } else {
        throw new PqscanError('abi', `pqscan: the ${kind} session returned step ${k}: ${inst.error(h)}`)
      }
    }
  } finally {
    if (!inst.dead) inst.close(h)
  }
}

/**
 * Decides what an http(s) folder URL (ending in '/') holds, cheaply: a ListObjectsV2 listing
 * of `_delta_log/` first (one request; its entries are then the Delta session's listing);
 * where the server does not list, GET `_delta_log/_last_checkpoint`, then version 0's commit.
 * @returns {Promise<{delta: false} | {delta: true, listing?: Array<{name, size}>, prefetched: object}>}
 */
export async function probeHTTPFolder(root, o = {}) {
  let listing = null
  try {
    // Every option but the scope, which listDataset would apply to the log's keys.
    const { scope, ...listOpts } = o
    const ents = await listDataset(root + '_delta_log/*', listOpts)
    listing = ents.map((e) => ({ name: e.key.slice(e.key.lastIndexOf('/') + 1), size: e.size, modTime: Date.parse(e.lastModified) || 0 }))
  } catch (e) {
    if (o.signal?.aborted) throw abortReason(o.signal)
    if (!(e instanceof PqscanError) || e.code === 'scope') throw e
  }
  if (listing) return listing.length > 0 ? { delta: true, listing, prefetched: {} } : { delta: false }
  const prefetched = {}
  for (const p of ['_delta_log/_last_checkpoint', '_delta_log/00000000000000000000.json']) {
    const b = await cachedObject(o, root + p, p, () => getObject(root + p, { ...o, maxBytes: MAX_LOG_OBJECT }))
    prefetched[p] = b
    if (b) return { delta: true, prefetched }
  }
  return { delta: false }
}

/**
 * Decides whether an http(s) folder URL (ending in '/') that is no Delta table is an Iceberg
 * one: a ListObjectsV2 listing of `metadata/` holding a `*.metadata.json` (its entries are
 * then the session's listing); where the server does not list, GET
 * `metadata/version-hint.text`.
 * @returns {Promise<null | {listing?: Array<{name, size}>, prefetched: object}>}
 */
export async function probeIcebergFolder(root, o = {}) {
  try {
    const { scope, ...listOpts } = o
    const ents = await listDataset(root + 'metadata/*', listOpts)
    const listing = ents.map((e) => ({ name: e.key.slice(e.key.lastIndexOf('/') + 1), size: e.size, modTime: Date.parse(e.lastModified) || 0 }))
    return listing.some((e) => /\.metadata\.json(\.gz)?$/.test(e.name)) ? { listing, prefetched: {} } : null
  } catch (e) {
    if (o.signal?.aborted) throw abortReason(o.signal)
    if (!(e instanceof PqscanError) || e.code === 'scope') throw e
  }
  const hint = 'metadata/version-hint.text'
  const b = await getObject(root + hint, { ...o, maxBytes: MAX_LOG_OBJECT })
  return b ? { prefetched: { [hint]: b } } : null
}

// An object the session names outside the table root (an Iceberg manifest list or manifest
// outside the table location), as written: the io resolves it and checks it against the
// open's scope before any request; an io that cannot is refused, never guessed at.
function getAbsolute(io, ob, signal) {
  if (!io.getAbsolute) throw new PqscanError('scope', `pqscan: ${io.label}: ${ob.entry || JSON.stringify(ob.path)} is outside the table, and this host reads none such`)
  return io.getAbsolute(ob.path, ob.entry || JSON.stringify(ob.path), signal)
}

/** The io of readSnapshot for a table over HTTP (prefetched: objects already read by the probe). */
export function httpDeltaIO(root, o, makeSource, probe) {
  const pre = new Map(Object.entries(probe.prefetched ?? {}))
  return {
    label: root,
    cache: metaCacheOf(o),
    get: async (path, signal) => {
      if (pre.has(path)) {
        const b = pre.get(path)
        pre.delete(path)
        return b
      }
      return cachedObject(o, root + path, path, () => getObject(root + path, { ...o, signal, maxBytes: MAX_LOG_OBJECT }))
    },
    list: probe.listing ? async () => probe.listing : undefined,
    source: async (path, owner) => makeSource(path, owner),
  }
}

/** The io of readSnapshot for a local table (Node): the folder is listed; sc, when given, checks every path first. */
export async function localDeltaIO(root, makeSource, sc, what = 'the Delta log') {
  const fs = await import('node:fs/promises')
  const { join } = await import('node:path')
  const at = (p) => join(root, ...p.split('/'))
  return {
    label: root,
    get: async (path, signal, entry) => {
      await sc?.checkLocal(at(path), entry ? `${what}'s ${entry}` : `${what}'s get of ${JSON.stringify(path)}`)
      try {
        return new Uint8Array(await fs.readFile(at(path)))
      } catch (e) {
        if (e?.code === 'ENOENT') return null
        throw new PqscanError('source', `pqscan: ${at(path)}: ${e.message}`, { cause: e })
      }
    },
    list: async (path) => {
      await sc?.checkLocal(at(path), `${what}'s list of ${JSON.stringify(path)}`)
      // Links followed (node-dir.js): a log of linked commits lists their targets' sizes.
      const out = []
      for (const e of await readDir(at(path))) {
        if (e.dir) continue
        const st = await fs.stat(at(path + e.name))
        out.push({ name: e.name, size: st.size, modTime: Math.floor(st.mtimeMs) })
      }
      return out
    },
    source: async (path, owner) => makeSource(path, owner),
  }
}
