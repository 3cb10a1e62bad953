// A file's link to the metadata cache (metacache.js) while it is open in Core: the stored
// tail an open starts from (no request: the HTTP source is pinned to the stored size and
// validator and holds the stored bytes, so the first response of a replaced file is
// "file-changed" and Core reads the file again before any row is returned), the page-index
// bytes its scans fetch, and the scan report's metadataFromCache, requestsSaved and
// roundTripsSaved.

import { MetaCache, addPiece, covers } from './metacache.js'
import { PqscanError } from './errors.js'
import { resolveStore } from './metacache-stores.js'
import { planId } from './options.js'

// A plan is kept when its ranges are at most this many bytes and requests: what a returning
// query fetches at once, before the engine has asked, and holds until its scan takes it.
export const PLAN_MAX_BYTES = 16 << 20
export const PLAN_MAX_RANGES = 512


const caches = new WeakMap() // store → MetaCache, so writes of one store are chained

/** The MetaCache of an open's metadataCache option, or null. */
export function metaCacheOf(opts) {
  const store = resolveStore(opts.metadataCache)
  if (!store) return null
  let mc = caches.get(store)
  if (!mc) caches.set(store, (mc = new MetaCache(store)))
  return mc
}

/**
 * A table log object read through the metadata cache when it is immutable by its name (an
 * Iceberg metadata file named by a UUID, manifest list or manifest: never rewritten), so a reopened table
 * reads only what is new; anything else (_last_checkpoint, a version hint, a Delta commit,
 * whose name a table written again reuses: a Delta table resumes from its stored state, in
 * delta.js) is always asked again, so "latest" never comes from the store. get() fetches it
 * (null: none); fromCache, when given, gets the path of an object the store gave.
 */
export async function cachedObject(opts, url, path, get, fromCache) {
  const mc = immutableObject(path) ? metaCacheOf(opts) : null
  const hit = mc && (await mc.object(url))
  if (hit) {
    fromCache?.push(path)
    return hit
  }
  const b = await get()
  if (b && mc) await mc.putObject(url, b)
  return b
}

// The Go host's immutableObject (internal/tablehost/objects.go): an Iceberg metadata file named
// by a UUID, a manifest list or manifest; never a Delta commit nor a Hadoop-style
// vN.metadata.json, whose names a table re-created under the same path reuses.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i
function immutableObject(path) {
  const base = path.slice(path.lastIndexOf('/') + 1)
  return !path.startsWith('_delta_log/') && (base.endsWith('.avro') || (base.endsWith('.metadata.json') && UUID.test(base)))
}

/**
 * A dataset's files through the metadata cache (the Go host's metacache.NewHTTP): a stored tail
 * of the size and ETag a listing gives a file (or, for a table snapshot's data files,
 * immutable by the table's protocol, of the size its log gives) is given to the file's source
 * (no request for it; the source is pinned to its validators); another version's is dropped,
 * and a listed file without an ETag is read as without a cache. Returns the drive's onBytes for
 * the dataset's sessions (file, off, bytes), which stores the tail a scan fetches of a file
 * with none (a range that ends at the file's end), or null without a cache. use gets the
 * open metadata's tailsFromCache and requestsSaved (cacheReport).
 * @param {Array<object>} srcs the dataset's sources; isHTTP says which are HttpSources
 * @param {Array<{etag?: string}>} list the dataset's items, by source
 */
export async function datasetTails(opts, srcs, list, isHTTP, immutable, use = {}) {
  const mc = metaCacheOf(opts)
  if (!mc) return null
  const files = srcs.map((s, i) => i).filter((i) => isHTTP(srcs[i]) && srcs[i].size > 0 && (immutable || list[i]?.etag))
  const stored = await Promise.all(files.map((i) => mc.tail(srcs[i].url)))
  const fresh = new Set()
  files.forEach((i, k) => {
    const t = stored[k]
    const etag = list[i]?.etag
    if (t && t.size === srcs[i].size && (immutable || t.etag.replace(/^"(.*)"$/, '$1') === etag)) {
      use.tailsFromCache = (use.tailsFromCache ?? 0) + 1
      use.requestsSaved = (use.requestsSaved ?? 0) + t.requests
      return new FileMeta(mc, srcs[i].url, t).pin(srcs[i])
    }
    if (t) mc.dropTail(srcs[i].url)
    fresh.add(i)
  })
  return (file, off, b) => {
    const src = srcs[file]
    const v = src.validators ?? {}
    if (!fresh.has(file) || off + b.length !== src.size || !(v.etag || v.lastModified)) return
    fresh.delete(file)
    const e = { size: src.size, etag: v.etag ?? '', lastModified: v.lastModified ?? '', requests: 1, roundTrips: 1, pieces: [] }
    addPiece(e, off, b.slice())
    mc.putTail(src.url, e)
  }
}

/**
 * What of a dataset's metadata its open took from the store, in the names of the Go host's
 * Dataset.Metadata (internal/protocol DatasetMetadata): a Delta snapshot's version and resume,
 * the table log objects and the files' tails (use, from datasetTails).
 */
export function cacheReport(snapshot, use) {
  const out = {}
  if (snapshot && !snapshot.iceberg) {
    const d = (out.delta = { version: snapshot.version })
    const n = snapshot.commitsRead ?? 0 // the module's: the state's version is version - commitsRead
    if (snapshot.resumed) Object.assign(d, { resumed: true, resumedFrom: snapshot.version - n }, n > 0 ? { commitsRead: n } : {})
  }
  if (use.tailsFromCache) out.tailsFromCache = use.tailsFromCache
  const objects = snapshot?.objectsFromCache ?? []
  if (objects.length > 0) out.objectsFromCache = objects
  const saved = (use.requestsSaved ?? 0) + objects.length
  if (saved > 0) out.requestsSaved = saved
  return out
}

export class FileMeta {
  /**
   * @param {MetaCache} mc
   * @param {string} url
   * @param {object|null} stored the entry an open started from (null: the file was read)
   */
  constructor(mc, url, stored) {
    this.mc = mc
    this.url = url
    this.entry = stored
    this.fromStore = !!stored
    this.confirmed = !stored
    this.dirty = false
    this.indexStart = 0
    this.plansKept = new Map() // plan key → the bytes its stored plan covers (coverage)
  }

  /**
   * Pins src to the stored version and gives it the stored bytes. The server answered this
   * file's range requests with 206 when the entry was made, so its first requests need not go
   * one at a time (http.js gate): a returning scan's first round is one round trip. A server
   * that has since stopped honouring Range is still handled (http.js readWhole: one body is
   * read, the others dropped), at the cost of those dropped bodies.
   */
  pin(src) {
    const e = this.entry
    src.size = e.size
    src.rangeKnown = true
    src.validators = { etag: e.etag, lastModified: e.lastModified }
    for (const p of e.pieces) src.keep(p.off, p.bytes)
  }

  /** Makes the entry of a file just read (its source's size, validators and kept bytes) and stores it. */
  stored(src, indexStart) {
    this.indexStart = indexStart > 0 ? indexStart : 0
    if (this.fromStore) return
    const v = src.validators ?? {}
    const e = { size: src.size, etag: v.etag ?? '', lastModified: v.lastModified ?? '', requests: src.stats.requests, roundTrips: src.stats.roundTrips, pieces: [] }
    for (const p of src.pieces) if (p.off >= 0 && p.off + p.bytes.length <= e.size) addPiece(e, p.off, p.bytes)
    this.entry = e
    this.write()
  }

  write() {
    const e = { ...this.entry, pieces: this.entry.pieces.slice() }
    this.mc.putTail(this.url, e)
  }

  /**
   * The hooks of one scan of src: onBytes keeps what it fetches of the metadata region (from
   * the footer's indexStart on: bloom filters, page index) and counts its requests, onRanges
   * counts the rounds that ask for nothing else (round trips a returning visit saves), settle
   * ends the count and stores a grown entry.
   */
  watch(src) {
    const start = this.indexStart
    if (!(start > 0)) return null
    let before = -1
    const settle = () => {
      if (before < 0) return
      const n = src.stats.requests - before
      before = -1
      if (n > 0) {
        this.entry.roundTrips++
        this.dirty = true
      }
    }
    return {
      onRanges: (ranges) => {
        settle()
        if (ranges.every((r) => r.off >= start)) before = src.stats.requests
      },
      onBytes: (off, b) => {
        const end = off + b.length
        if (end <= start || end > this.entry.size) return
        const whole = off >= start // a request of metadata alone: one a returning visit saves
        if (off < start) {
          b = b.subarray(start - off)
          off = start
        }
        if (covers(this.entry, off, end)) return
        addPiece(this.entry, off, b.slice())
        if (whole) this.entry.requests++
        this.dirty = true
      },
      settle: () => {
        settle()
        if (this.dirty) {
          this.dirty = false
          this.write()
        }
      },
    }
  }

  /**
   * Before the first row of a scan from the stored tail: a response must have shown that the
   * file is still that version (every response is checked against it), else a one-byte
   * request does.
   */
  async confirm(src, signal) {
    if (this.confirmed) return
    if (src.validated === 0) await src.revalidate(signal)
    this.confirmed = true
  }

  /**
   * A returning file's scan with plan key fp: the data ranges a scan with the same key read
   * last time (stored for this size and validator) are fetched at once, before the engine
   * asks for them (src.prefetch; what the engine asks for and the plan does not hold is
   * requested as always, and what it holds that the engine does not ask for is dropped).
   * Once per source (the first scan's options); the stats before it are kept for the scan's
   * report (replayBase).
   */
  replay(src, fp, signal) {
    if (!this.fromStore || fp == null) return Promise.resolve()
    // The first call looks the plan up; a scan waits for that look-up (a store read), so
    // that its engine asks after the prefetch is under way, never beside it for the same bytes.
    src.replaying ??= (async () => {
      const p = await this.mc.plan(this.url, fp)
      const e = this.entry
      if (!p || p.size !== e.size || p.etag !== e.etag || p.lastModified !== e.lastModified || signal?.aborted) return
      this.planUsed = true
      this.plansKept.set(fp, coverage(p.ranges))
      src.replayBase = { ...src.stats }
      src.prefetch(p.ranges, signal).catch(() => {})
    })().catch(() => {})
    return src.replaying
  }

  /**
   * The plan of one scan of src with options o0: replays the stored one (replay) and records
   * what the scan asks (onRanges, with every round's ranges), kept at its end (keep).
   */
  async plan(src, o0, signal) {
    const fp = planId(o0)
    await this.replay(src, fp, signal)
    const asked = []
    return {
      onRanges: (ranges) => {
        if (asked.length <= PLAN_MAX_RANGES) asked.push(...ranges) // past it no plan is kept
      },
      keep: () => this.keepPlan(src, fp, asked),
    }
  }

  /**
   * Stores the data ranges (the engine's requests past the stored bytes) a complete scan with
   * plan key fp read, when they are few enough and differ from the plan it started from.
   */
  keepPlan(src, fp, asked) {
    const v = src.validators ?? {}
    if (fp == null || !(v.etag || v.lastModified) || !(src.size > 0)) return
    const ranges = asked.filter((r) => r.off >= 0 && r.len > 0 && !(this.entry && covers(this.entry, r.off, r.off + r.len)))
    const bytes = ranges.reduce((n, r) => n + r.len, 0)
    if (ranges.length === 0 || ranges.length > PLAN_MAX_RANGES || bytes > PLAN_MAX_BYTES) return
    const key = coverage(ranges)
    if (key === this.plansKept.get(fp)) return
    this.plansKept.set(fp, key)
    this.mc.putPlan(this.url, fp, { size: src.size, etag: v.etag ?? '', lastModified: v.lastModified ?? '', ranges: ranges.map((r) => ({ off: r.off, len: r.len })) })
  }

  /** Adds the cache's lines to a scan report. */
  report(rep) {
    if (this.fromStore) {
      rep.metadataFromCache = this.planUsed ? ['tail', 'plan'] : ['tail']
      rep.requestsSaved = this.entry.requests
      rep.roundTripsSaved = this.entry.roundTrips
    }
    if (this.mc.err) rep.metadataCacheError = this.mc.err
    return rep
  }
}

// The bytes ranges cover, as a string: a scan that read the same bytes in other pieces (a
// round's ranges are cut by what is in flight) stores no new plan (Go: tailcache planKey).
function coverage(ranges) {
  const out = []
  for (const r of ranges.slice().sort((a, b) => a.off - b.off)) {
    const l = out.at(-1)
    if (l && r.off <= l[1]) l[1] = Math.max(l[1], r.off + r.len)
    else out.push([r.off, r.off + r.len])
  }
  return JSON.stringify(out)
}

/**
 * Reads a file of core whose stored tail turned out stale again (dropping the entry) and puts
 * it in the place of f under id; a file whose columns changed is "file-changed" (the caller
 * has the old schema).
 */
export async function reopenStale(core, id, f, signal) {
  f.fm.mc.dropTail(f.url)
  const r = await core.openFile(f.url, { ...f.opts, metadataCache: false, metaCacheRetry: f.fm.mc }, signal)
  const nf = core.files.get(r.id)
  core.files.delete(r.id)
  const same = nf.schemaIPC?.length === f.schemaIPC?.length && nf.schemaIPC.every((x, i) => x === f.schemaIPC[i])
  if (!same) throw new PqscanError('file-changed', `pqscan: the file changed since its metadata was stored, and its columns with it (${f.url})`)
  core.files.set(id, nf)
}
