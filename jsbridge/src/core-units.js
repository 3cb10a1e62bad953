// The Worker side of a scan spread over a pool of Workers (worker-pool.js): the plan, run by
// the Worker that opened the file, and the adoption of that file by the pool's other Workers.
//
// The plan is a session of the scan with "planUnits" (wasm/ABI.md pq_units): it stops after
// the index round and cuts what is left into units, runs of rows each scanned by its own
// session ("rowsFrom", "rowsTo"), whose outputs in order are the single scan's. The bytes it
// fetched (tail, indexes, dictionaries) stay in the file's source and go with the share to
// the other Workers, so no unit fetches them again.

import { HttpSource, Limiter, httpDefaults } from './http.js'
import { drive } from './drive.js'
import { engineOptions } from './options.js'
import { PqscanError } from './errors.js'
import { HTTP_MAX_GAP, keepNew, diff, scoped, datasetLabel, sumStats } from './core-files.js'
import { mergeUnits } from './worker-pool.js'

/**
 * Plans the scan of opened file id with options o0 in units of about minBytes compressed
 * bytes. Returns null when the pool cannot take the file (a file under two units' size, a
 * stale stored tail, a source only this Worker can read, a module without pq_units, a
 * dataset planDataset leaves); else {units, report, http, share}: units as pq_units gives
 * them (a dataset's: planDataset's), the plan's report and HTTP counters (none for a
 * dataset), and what another Worker needs to open the file (adoptFile) without a request.
 */
export async function planUnits(core, id, o0, minBytes, signal) {
  const f = core.files.get(id)
  if (!f) return null
  if (f.kind === 'dataset') return planDataset(core, f, o0, minBytes, signal)
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
  const inst = await core.instance(f.full) // GZIP, BROTLI and LZ4 files open in the full module
  if (!inst.hasUnits) return null
  const src = f.src
  const o = { ...engineOptions(o0), fileSize: src.size, planUnits: minBytes }
  if (src.fileKey && inst.hasMetadata) o.fileKey = src.fileKey
  const p = await planSession(core, inst, src, o, f.url, signal)
  // A returning query's prefetch (tailcache.js replay) still in flight: its bytes go to the
  // units with the rest, rather than being fetched again by another Worker.
  if (src.ahead?.length) await Promise.all(src.ahead.map((a) => a.settled))
  share.pieces = piecesOf(src)
  return { ...p, share }
}

// Runs a plan session (options o with planUnits) over src in inst to its Done step: {units,
// report, http}. The bytes it fetches stay in src, for the units' sessions.
async function planSession(core, inst, src, o, label, signal) {
  if (o.maxGap == null && src instanceof HttpSource) o.maxGap = HTTP_MAX_GAP
  const base = { ...src.stats }
  const h = inst.open(o)
  core.active++
  try {
    for await (const st of drive(inst, h, src, { signal, label, onBytes: (off, b) => keepNew(src, off, b) })) {
      if (st.type === 'batch') throw new PqscanError('abi', 'pqscan: a unit plan gave a batch')
      if (st.type === 'done') return { units: inst.units(h), report: inst.report(h), http: diff(src.stats, base) }
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
  const base = { url: f.url, size: src.size, validators: src.validators, fileKey: src.fileKey, full: f.full }
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
  core.files.set(id, { src, url: share.url, full: !!share.full, fm: null, opts: share.opts ?? {} })
  return id
}

/** More pieces for a file or dataset adopted earlier (a later plan fetched more bytes). */
export function keepShared(core, id, share) {
  const f = core.files.get(id)
  if (!f) return
  if (f.kind !== 'dataset') for (const p of share.pieces ?? []) keepNew(f.src, p.off, p.bytes)
  else share.sources.forEach((s, i) => s.pieces?.forEach((p) => f.srcs[i] && keepNew(f.srcs[i], p.off, p.bytes)))
}

/** The bytes src keeps, for another Worker to keep too (posted, so copied there). */
const piecesOf = (src) => src.pieces.map((p) => ({ off: p.off, bytes: p.bytes }))

/**
 * The units of a dataset's scan (the table session's filesFrom/filesTo: runs of whole files,
 * each scanned by a session that returns what the whole scan returns for them), with the
 * share another Worker opens the dataset from. Runs of about minBytes; a file of at least two
 * units' size is cut into runs of its rows (its own plan session, without the scan's
 * predicate, which names table columns: its rows are cut at row groups and page starts of
 * every column). Null when the pool cannot take the dataset: a source only this Worker can
 * read, or an offset or a limit over files whose rows the table's log does not give (a Delta
 * or Iceberg snapshot gives them; such a scan's units are whole files).
 */
async function planDataset(core, ds, o, minBytes, signal) {
  const share = shareDataset(ds)
  if (!share) return null
  const size = (s) => (s.size > 0 ? s.size : minBytes) // a file listed without its size
  const files = ds.srcs.map((s, i) => ({ i, bytes: size(s) }))
  const sliced = o.offset > 0 || o.limit > 0
  if (sliced) {
    // Without a where (worker-pool.js splittable), each file returns its rows, which the log
    // gives without the deleted ones (tablescan File.Rows; 0: unknown): the slice is cut per
    // file, and files outside it are left out.
    const dfiles = ds.delta?.files
    if (!dfiles || dfiles.some((d) => !(d.rows > 0))) return null
    let at = 0
    const from = o.offset > 0 ? o.offset : 0
    const to = o.limit > 0 ? from + o.limit : Infinity
    for (const f of files) {
      const live = dfiles[f.i].rows
      f.live = live
      f.lo = Math.max(at, from) - at
      f.hi = Math.min(at + live, to) - at
      at += live
    }
  }
  const inst = sliced ? null : await core.instance(true)
  const base = sumStats(ds.srcs)
  if (inst?.hasUnits) {
    const big = files.filter((f) => ds.srcs[f.i].size >= 2 * minBytes)
    await Promise.all(
      big.map(async (f) => {
        const src = ds.srcs[f.i]
        const p = await planSession(core, inst, src, { fileSize: src.size, planUnits: minBytes }, src.url, signal)
        if (p.units.length >= 2) f.rows = mergeUnits(p.units, minBytes)
      }),
    )
  }
  // Runs of files: a run's session skips its first file's offset and stops at its limit,
  // so every file inside a run is whole (the slice cuts at most the first and the last).
  const units = []
  let cur = null
  for (const f of files) {
    if (sliced && f.hi <= f.lo) continue
    if (f.rows) {
      for (const r of f.rows) units.push({ from: f.i, to: f.i + 1, bytes: r.bytes, span: [r.start, r.end] })
      cur = null
      continue
    }
    if (cur && cur.to === f.i && cur.bytes + f.bytes <= minBytes * 1.25 && (!sliced || (cur.full && f.lo === 0))) {
      cur.to++
      cur.bytes += f.bytes
    } else {
      cur = { from: f.i, to: f.i + 1, bytes: f.bytes, offset: 0, rows: 0 }
      if (sliced) cur.offset = f.lo
      units.push(cur)
    }
    if (sliced) {
      cur.rows += f.hi - f.lo
      cur.full = f.hi === f.live
    }
  }
  const slice = (u) => ({ ...(u.offset > 0 ? { offset: u.offset } : {}), ...(o.limit > 0 ? { limit: u.rows } : {}) })
  return { units: units.map((u) => ({ files: [u.from, u.to], bytes: u.bytes, ...(u.span ? { rows: u.span } : slice(u)) })), report: null, http: diff(sumStats(ds.srcs), base), share }
}

// What another Worker needs to open dataset ds as this one did (adoptDataset): its files
// (URLs with the open's options, or local descriptors it can open itself), their sizes,
// validators and kept bytes, and the table's options; null when a file is one only this
// Worker can read (a custom fetch, a source read through the calling thread).
function shareDataset(ds) {
  const given = ds.given ?? {}
  if (given.proxyFetch || typeof given.fetch === 'function') return null
  const sources = []
  for (const [i, src] of ds.srcs.entries()) {
    const it = ds.items[i]
    const s = { url: src.url, path: src.path, size: src.size, validators: src.validators, pieces: piecesOf(src) }
    if (src instanceof HttpSource) s.http = it.url
    else if (it?.file != null) s.desc = { file: it.file }
    else if (typeof Blob !== 'undefined' && (it instanceof Blob || it?.blob instanceof Blob)) s.desc = { blob: it.blob ?? it }
    else return null
    sources.push(s)
  }
  const { fetch, scope, metadataCache, onBytes, folder, ...opts } = given
  const { srcs, items, given: _, keepTail, ...table } = ds
  return { dataset: table, sources, opts }
}

/**
 * Opens a dataset another Worker planned (shareDataset): its files with their sizes and
 * validators pinned and the bytes that Worker kept, read by no request here. Returns its id.
 */
async function adoptDataset(core, share) {
  const opts = await scoped({ ...share.opts, metadataCache: false }, share.sources.filter((s) => s.http != null).map((s) => ({ src: s.http })))
  const limiter = new Limiter(opts.concurrency ?? httpDefaults.concurrency)
  const srcs = []
  for (const s of share.sources) {
    const src = s.http != null ? new HttpSource(s.http, { ...opts, fileSize: s.size > 0 ? s.size : undefined, limiter }) : await core.localSource(s.desc)
    if (s.size >= 0) src.size = s.size
    if (s.validators) src.validators = s.validators
    src.path = s.path
    src.tableVersion = s.http != null ? null : src.reader.key
    if (s.http == null) src.url = s.path
    for (const p of s.pieces ?? []) keepNew(src, p.off, p.bytes)
    srcs.push(src)
  }
  const id = core.nextId++
  core.files.set(id, { ...share.dataset, kind: 'dataset', srcs, label: datasetLabel(srcs) })
  return id
}

/** Opens what another Worker planned (a file's or a dataset's share); resolves to its id here. */
export function adopt(core, share) {
  return share.dataset ? adoptDataset(core, share) : adoptFile(core, share)
}

/**
 * Whether units are worth a pool: at least two, holding at least two units' worth of bytes
 * (below that, a unit's session start and index decode cost more than a core saves).
 */
export function worthSplitting(units, minBytes) {
  return units.length >= 2 && units.reduce((n, u) => n + (u.bytes ?? u[3]), 0) >= 2 * minBytes
}
