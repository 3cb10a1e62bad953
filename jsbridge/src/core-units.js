// The Worker side of a scan spread over a pool of Workers (worker-pool.js): the plan, run by
// the Worker that opened the file, and the adoption of that file by the pool's other Workers.
//
// The plan is a session of the scan with "planUnits" (wasm/ABI.md pq_units): it stops after
// the index round and cuts what is left into units, runs of rows each scanned by its own
// session ("rowsFrom", "rowsTo"), whose outputs in order are the single scan's. The bytes it
// fetched (tail, indexes, dictionaries) stay in the file's source and go with the share to
// the other Workers, so no unit fetches them again.

import { HttpSource } from './http.js'
import { drive } from './drive.js'
import { engineOptions } from './options.js'
import { PqscanError } from './errors.js'
import { HTTP_MAX_GAP, keepNew, diff, scoped } from './core-files.js'

/**
 * Plans the scan of opened file id with options o0 in units of about minBytes compressed
 * bytes. Returns null when the pool cannot take the file (a dataset, a file in the full
 * module or under two units' size, a stale stored tail, a source only this Worker can read,
 * a module without pq_units); else {units, report, http, share}: units as pq_units gives them, the
 * plan's report and HTTP counters, and what another Worker needs to open the file
 * (adoptFile) without a request.
 */
export async function planUnits(core, id, o0, minBytes, signal) {
  const f = core.files.get(id)
  if (!f || f.kind === 'dataset' || f.full) return null
  if (!(f.src.size >= 2 * minBytes)) return null // never two units' worth: no plan at all
  if (f.fm?.fromStore) {
    // A stored tail (tailcache.js): the pool's Workers pin its version, so it is confirmed
    // first; a stale one is left to the one-session scan, which reads the file again.
    try {
      await f.fm.confirm(f.src, signal)
    } catch {
      return null
    }
  }
  const share = shareOf(f)
  if (!share) return null
  const inst = await core.instance()
  if (!inst.hasUnits) return null
  const src = f.src
  const o = { ...engineOptions(o0), fileSize: src.size, planUnits: minBytes }
  if (o.maxGap == null && src instanceof HttpSource) o.maxGap = HTTP_MAX_GAP
  if (src.fileKey && inst.hasMetadata) o.fileKey = src.fileKey
  const base = { ...src.stats }
  const h = inst.open(o)
  core.active++
  try {
    for await (const st of drive(inst, h, src, { signal, label: f.url, onBytes: (off, b) => keepNew(src, off, b) })) {
      if (st.type === 'batch') throw new PqscanError('abi', 'pqscan: a unit plan gave a batch')
      if (st.type === 'done') {
        share.pieces = src.pieces.map((p) => ({ off: p.off, bytes: p.bytes }))
        return { units: inst.units(h), report: inst.report(h), http: diff(src.stats, base), share }
      }
    }
  } finally {
    core.release(inst, h)
  }
  throw new PqscanError('abi', 'pqscan: a unit plan ended without a done step')
}

// What another Worker needs to open file f as this one did, or null when it cannot: a URL
// with the open's options (not a custom fetch, which only the calling thread runs), or a
// local source it can open itself (a Node path, a Blob that can be posted).
function shareOf(f) {
  const src = f.src
  const base = { url: f.url, size: src.size, validators: src.validators, fileKey: src.fileKey }
  if (src instanceof HttpSource) {
    if (f.opts?.proxyFetch || typeof f.opts?.fetch === 'function') return null
    const { fetch, scope, metadataCache, onBytes, ...opts } = f.opts ?? {}
    return { ...base, opts }
  }
  const d = f.desc
  if (d?.file != null) return { ...base, desc: { file: d.file } }
  if (typeof Blob !== 'undefined' && (d instanceof Blob || d?.blob instanceof Blob)) return { ...base, desc: { blob: d.blob ?? d } }
  return null
}

/**
 * Opens a file another Worker planned (planUnits' share): its size and validators pinned and
 * the bytes it fetched kept, so the units' sessions ask only for their own pages. Returns the
 * file's id in this Core.
 */
export async function adoptFile(core, share) {
  let src
  if (share.desc) src = await core.localSource(share.desc)
  else src = new HttpSource(share.url, await scoped({ ...share.opts, metadataCache: false }, [{ src: share.url }]))
  src.size = share.size
  if (share.validators) src.validators = share.validators
  src.fileKey = share.fileKey
  for (const p of share.pieces ?? []) keepNew(src, p.off, p.bytes)
  const id = core.nextId++
  core.files.set(id, { src, url: share.url, full: false, fm: null, opts: share.opts ?? {} })
  return id
}

/** More pieces for a file adopted earlier (a later plan fetched more indexes). */
export function keepShared(core, id, pieces) {
  const f = core.files.get(id)
  if (f) for (const p of pieces ?? []) keepNew(f.src, p.off, p.bytes)
}

/**
 * Whether units are worth a pool: at least two, holding at least two units' worth of bytes
 * (below that, a unit's session start and index decode cost more than a core saves).
 */
export function worthSplitting(units, minBytes) {
  return units.length >= 2 && units.reduce((n, u) => n + u[3], 0) >= 2 * minBytes
}
