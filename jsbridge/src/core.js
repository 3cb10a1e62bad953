// Core drives scans: it owns one module instance (recreated after a trap, retired when its
// memory grew large), one HttpSource per opened file, and runs the NeedRanges → fetch → Push
// loop of wasm/ABI.md (drive.js, the bridge's one loop). It runs wherever it is created:
// inside the Worker (the default) or in the calling thread ({worker: false}). It yields Arrow
// IPC bytes; it never imports apache-arrow.

import { HttpSource, Limiter, httpDefaults } from './http.js'
import { BlobSource, blobReader, asyncBufferReader } from './blob.js'
import { nodeFileReader } from './node-file.js'
import { Slot, defaultModules } from './slot.js'
import { drive, nameFile } from './drive.js'
import { ipcRows } from './ipc-rows.js'
import { PqscanError, abortReason } from './errors.js'
import { engineOptions } from './options.js'
import { resolveFolder } from './folder.js'
import { HTTP_MAX_GAP, fileKey, tableOptions, pathOf, blobPath, datasetLabel, keepNew, sumStats, diff, scoped, namedSources } from './core-files.js'
import { openTighten, closeTighten } from './tighten.js'
import { mark, startMarks } from './marks.js'
import { prefetchTail, warmReport, warmQuery } from './startup.js'
import { FileMeta, metaCacheOf, reopenStale, datasetTails, cacheReport } from './tailcache.js'
import { warmDefaultStore } from './metacache-stores.js'

export { engineOptions }

export { HTTP_MAX_GAP }

export class Core {
  /**
   * @param {{wasm?: any, wasmFull?: any, retireBytes?: number}} opts wasm: the module single
   *   files open in (see compileModule; by default the package's lean module); wasmFull: the
   *   full module, for datasets, tables and files that need it (by default the package's;
   *   none when wasm is given alone: that module does everything);
   *   retireBytes: an idle instance whose memory grew past this is dropped (wasm memory never
   *   shrinks).
   *   createInstance (testing): an async function returning an Instance-like object, used in
   *   place of Instance.create(compiled module). proxyReader (the Worker): makes the reader of
   *   a {proxy} source, whose bytes the calling thread reads.
   */
  constructor(opts = {}) {
    this.proxyReader = opts.proxyReader
    // Two modules (slot.js): single files open in the first (by default the lean module), and
    // datasets, tables and files with a codec it leaves out in the full one, compiled on
    // demand. One module given (wasm without wasmFull, or a test's createInstance) does all.
    let { wasm, wasmFull } = opts
    if (wasm == null && !opts.createInstance) {
      const d = defaultModules()
      wasm = d.lean
      wasmFull ??= d.full
    }
    this.first = new Slot(wasm, { fallback: wasmFull, create: opts.createInstance })
    this.full = wasmFull != null ? new Slot(wasmFull, { name: 'full' }) : this.first
    this.retireBytes = opts.retireBytes ?? 1 << 30
    this.files = new Map()
    this.nextId = 1
    this.active = 0
    this.calls = 0 // opens and scans asked so far: the warm-up stops at the next one
    this.warmup = opts.warmup ?? true
  }

  /** Instances created so far, of both modules (tests check recreation after traps). */
  get instances() {
    return this.first.instances + (this.full !== this.first ? this.full.instances : 0)
  }

  /** The instance of the first module, or of the full one. */
  instance(full = false) {
    if (!this.first.live) warmDefaultStore() // IndexedDB opens while the module compiles (tailcache.js)
    return (full ? this.full : this.first).instance()
  }

  // Ends a session opened with this.active++: closes h, and drops the instance when idle and large.
  release(inst, h) {
    this.active--
    try {
      inst.close(h)
    } catch {}
    this.maybeRetire()
  }

  maybeRetire() {
    if (this.active !== 0) return
    this.first.maybeRetire(this.retireBytes)
    this.full.maybeRetire(this.retireBytes)
  }

  /**
   * Opens a file: reads the footer (one tail request, or one suffix request when the size is
   * unknown) and keeps the fetched bytes so that scans do not fetch them again.
   *
   * A module with the metadata step (pq_metadata) is opened with {metadata: true, fileKey}:
   * the loop stops at that step, and the engine keeps the decoded footer and tail under the
   * file's key, so scans (which pass the same key) neither ask for the tail nor decode the
   * footer again. A module without it: pq_schema is polled after every push.
   * @returns {Promise<{id: number, schemaIPC: Uint8Array, metadata: object}>}
   */
  async openFile(url, opts = {}, signal) {
    this.calls++
    const opts0 = opts
    const url0 = url
    const local = await this.localSource(url)
    if (!local) opts = await scoped(opts, [{ src: url?.url ?? url }])
    const src = local ?? new HttpSource(url?.url ?? url, opts)
    url = local ? src.label : url?.url ?? url
    const id = this.nextId++
    mark('open.start')
    // The metadata cache (tailcache.js): a stored tail pins the source and holds the bytes
    // the open would fetch, looked up while the module compiles.
    const mc = local ? null : metaCacheOf(opts)
    const cold = !this.first.live
    if (mc && cold) this.instance().catch(() => {})
    const stored = mc ? await mc.tail(url) : null
    const fm = mc ? new FileMeta(mc, url, stored) : null
    if (stored) fm.pin(src)
    // A query (open and scan in one, query.js): what its scan read last time leaves now.
    if (stored && opts.replay != null) fm.replay(src, opts.replay, signal)
    // The first open of an engine that is still starting: the tail is fetched while the module
    // compiles and the Go runtime starts, instead of after (the lazy path of a cold page).
    const early = !local && !stored && cold ? prefetchTail(src, opts.tailSize, signal, (off, b) => keepNew(src, off, b)) : null
    early?.catch(() => {}) // awaited below; its error is the open's
    let full = false
    let r
    try {
      try {
        r = await this.readFooter(await this.instance(), src, url, opts, signal, early)
      } catch (e) {
        if (!this.needsFull(e)) throw e
        // A codec the first module leaves out (codec.ErrNotInModule, at the footer): the same
        // open in the full module, from the bytes the source kept.
        full = true
        r = await this.readFooter(await this.instance(true), src, url, opts, signal, null)
      }
    } catch (e) {
      if (!stored || signal?.aborted) throw e
      // A stored tail that does not open (a file replaced, an entry from another build):
      // dropped, and the file read.
      mc.dropTail(url)
      return this.openFile(url, { ...opts0, metadataCache: false, metaCacheRetry: mc }, signal)
    }
    const { inst, meta, report, schemaIPC } = r
    const fmeta = fm ?? (opts.metaCacheRetry ? new FileMeta(opts.metaCacheRetry, url, null) : null)
    fmeta?.stored(src, meta?.indexStart)
    // desc: a local source's descriptor, which the scan pool's Workers open themselves (core-units.js).
    this.files.set(id, { src, url, full, fm: fmeta, opts: opts0, desc: local ? url0 : null, schemaIPC: fmeta && schemaIPC.slice() }) // a copy: the Worker transfers schemaIPC
    warmReport(inst)
    this.warmIdle(inst)
    const metadata = {
      url,
      fileSize: src.size,
      numRowGroups: meta ? meta.rowGroups?.length ?? 0 : report.rowGroupsTotal,
      numRows: meta ? meta.numRows : report.rowsTotal,
      etag: src.validators?.etag || undefined,
      lastModified: src.validators?.lastModified || undefined,
      http: { ...(src.replayBase ?? src.stats) }, // a query's prefetch is its scan's
    }
    if (meta?.createdBy) metadata.createdBy = meta.createdBy
    if (Array.isArray(meta?.keyValue)) metadata.keyValue = meta.keyValue
    return { id, schemaIPC, metadata }
  }

  // The open's session in inst: reads up to the metadata step (or, from a module without it,
  // the schema) and returns what it found.
  async readFooter(inst, src, url, opts, signal, early) {
    mark('open.instance')
    if (early) await early
    const withMeta = inst.hasMetadata
    // The key must name the version the source reads: an unknown size is probed first (the
    // same suffix request the engine would ask for, its bytes kept), which also gives the
    // validators; the engine then asks for the tail at its offset and gets it from memory.
    if (withMeta && !(src.size >= 0) && src.getSize) {
      if (signal?.aborted) throw abortReason(signal)
      await src.getSize(signal)
    }
    const sizeGiven = src.size >= 0
    const o = { explain: true }
    if (sizeGiven) o.fileSize = src.size
    if (opts.tailSize) o.tailSize = opts.tailSize
    if (withMeta) {
      src.fileKey = fileKey(url, src)
      o.metadata = true
      o.fileKey = src.fileKey
    }
    const h = inst.open(o)
    this.active++
    let schemaIPC = null
    let report = null
    let meta = null
    const keep = (off, b) => keepNew(src, off, b)
    try {
      for await (const st of drive(inst, h, src, { signal, label: url, sizeKnown: sizeGiven, onBytes: keep })) {
        if (st.type === 'ranges') mark('open.ranges')
        if (st.type === 'metadata') {
          mark('open.metadata')
          if (!withMeta) throw new PqscanError('abi', 'pqscan: the module gave a metadata step it was not asked for')
          meta = inst.metadata(h)
          schemaIPC = inst.schema(h)
          if (!schemaIPC) throw new PqscanError('abi', 'pqscan: the module gave no schema at the metadata step')
          break
        }
        if (st.type === 'pushed' && !withMeta) {
          schemaIPC = inst.schema(h)
          if (schemaIPC) {
            report = inst.report(h)
            break
          }
        } else if (st.type === 'batch' || st.type === 'done') {
          if (withMeta) throw new PqscanError('abi', `pqscan: the module gave a ${st.type} step before the metadata step`)
          schemaIPC = inst.schema(h)
          report = inst.report(h)
          if (!schemaIPC) throw new PqscanError('abi', 'pqscan: the module gave no schema after reading the footer')
          break
        }
      }
    } finally {
      this.release(inst, h)
    }
    return { inst, meta, report, schemaIPC }
  }

  // Whether err is the first module's "this file needs the full module" and there is one.
  needsFull(err) {
    return err?.code === 'needs-full-module' && this.full !== this.first
  }

  /** Compiles the module and instantiates it (the preload of init() / engine.ready), then warms it up when idle. */
  async warm() {
    this.warmIdle(await this.instance())
  }

  // Warms inst up (startup.js warmQuery) once nothing is asked of the engine: after its start
  // ahead of a query, and after a first open not followed at once by a scan.
  warmIdle(inst) {
    if (!this.warmup) return
    const calls = this.calls
    warmQuery(inst, () => this.calls === calls && this.active === 0)
  }

  /**
   * The source of a local input, or null for a URL: a Blob, or a descriptor {blob}, {file}
   * (a Node path), {asyncBuffer} or {proxy} (a reader in the calling thread, worker.js).
   */
  async localSource(d) {
    if (typeof Blob !== 'undefined' && d instanceof Blob) return new BlobSource(d)
    if (d == null || typeof d !== 'object') return null
    if (typeof Blob !== 'undefined' && d.blob instanceof Blob) return new BlobSource(blobReader(d.blob))
    if (d.file != null) return new BlobSource(await nodeFileReader(String(d.file)))
    if (d.asyncBuffer != null) return new BlobSource(asyncBufferReader(d.asyncBuffer))
    if (d.proxy != null) {
      if (!this.proxyReader) throw new PqscanError('source', 'pqscan: a proxied source outside the Worker')
      return new BlobSource(this.proxyReader(d.proxy))
    }
    return null
  }

  closeFile(id) {
    this.files.delete(id)
  }

  /**
   * Opens a dataset: several Parquet files read as one table (a table session, pq_open_table),
   * in the given order. Every file gets its own source (HttpSource, or BlobSource for a Blob),
   * kept for the dataset's life so that each file's validators stay pinned across scans; the
   * sources share one Limiter of `concurrency` slots. Opening reads the first file's footer
   * only (a size probe when its size is unknown, then the session with limit 1 stops at the
   * metadata step): the table schema is the first file's columns plus the Hive partition
   * columns of the paths. The other files get no request until a scan needs them.
   * @param {Array<{url?: string, size?: number, blob?: Blob, file?: string, asyncBuffer?: object, proxy?: object, path?: string}>} list
   * @param {object} opts the HTTP options of openFile plus root, noHive, byPosition, unionSchema
   * @returns {Promise<{id: number, schemaIPC: Uint8Array, metadata: object}>}
   */
  async openDataset(list, opts = {}, signal) {
    this.calls++
    const given = opts
    opts = await scoped(opts, namedSources(list, opts.folder))
    let snapshot = null
    if (opts.folder) {
      // A folder or glob (folder.js): a Delta table's snapshot, or the files it lists.
      const r = await resolveFolder(await this.instance(true), opts.folder, opts, signal)
      ;({ list, snapshot } = r)
      if (r.root && !snapshot) opts = { ...opts, root: opts.root || r.root }
    }
    // An empty Delta snapshot (every file removed) is an empty table with the log's schema.
    if (!snapshot && (!Array.isArray(list) || list.length === 0)) throw new PqscanError('options', 'pqscan: a dataset needs at least one file')
    const inst = await this.instance(true)
    if (!inst.hasTables) throw new PqscanError('abi', 'pqscan: this module has no table sessions (pq_open_table); rebuild it (make wasm)')
    const limiter = new Limiter(opts.concurrency ?? httpDefaults.concurrency)
    const srcs = []
    for (const [i, it] of list.entries()) {
      const local = await this.localSource(it)
      const src = local ?? new HttpSource(it.url, { ...opts, fileSize: it.size > 0 ? it.size : undefined, limiter })
      src.path = local ? it.path ?? (it.blob ? blobPath(it.blob, i) : it.file ?? `source-${i}`) : pathOf(it.url)
      src.tableVersion = local ? src.reader.key : null
      if (local) src.url = src.path
      srcs.push(src)
    }
    const ds = { kind: 'dataset', srcs, root: opts.root || '', noHive: !!opts.noHive, byPosition: !!opts.byPosition, unionSchema: !!opts.unionSchema, label: datasetLabel(srcs), delta: snapshot?.table ?? null }
    const use = {}
    Object.assign(ds, { items: list, given }) // what the scan pool's Workers open it from (core-units.js)
    ds.keepTail = await datasetTails(opts, srcs, list, (s) => s instanceof HttpSource, !!snapshot, use) // tailcache.js
    const first = srcs[0]
    if (first && !(first.size >= 0) && first.getSize) {
      if (signal?.aborted) throw abortReason(signal)
      try {
        await first.getSize(signal)
      } catch (e) {
        throw nameFile(e, first)
      }
    }
    const o = { ...tableOptions(ds), metadata: true, limit: 1 }
    if (opts.tailSize) o.tailSize = opts.tailSize
    const h = inst.openTable(o)
    this.active++
    let schemaIPC = null
    const keep = (file, off, b) => (keepNew(srcs[file], off, b), ds.keepTail?.(file, off, b))
    try {
      for await (const st of drive(inst, h, srcs, { signal, label: ds.label, onBytes: keep })) {
        if (st.type === 'metadata') {
          schemaIPC = inst.schema(h)
          if (!ds.delta) ds.table = inst.tableFields(h) // every scan's schema (tableOptions)
          break
        }
        if (st.type === 'batch' || st.type === 'done') throw new PqscanError('abi', `pqscan: the table session gave a ${st.type} step before the metadata step`)
      }
    } finally {
      this.release(inst, h)
    }
    if (!schemaIPC) throw new PqscanError('abi', 'pqscan: the table session gave no schema at the metadata step')
    const id = this.nextId++
    this.files.set(id, ds)
    const metadata = {
      files: srcs.map((s) => s.url),
      numFiles: srcs.length,
      first: first && { url: first.url, fileSize: first.size, etag: first.validators?.etag || undefined, lastModified: first.validators?.lastModified || undefined },
      http: sumStats(srcs), // only the first file was read: its round trips are the dataset's
    }
    if (snapshot?.iceberg) metadata.iceberg = { snapshotId: snapshot.versionText }
    Object.assign(metadata, cacheReport(snapshot, use)) // delta, and what came from the metadata cache
    return { id, schemaIPC, metadata }
  }

  /**
   * Runs one scan of an opened file or dataset. Yields {type:'batch', ipc} for every batch and
   * ends with {type:'done', report, http}; throws PqscanError or the abort reason. Breaking out
   * of the iteration closes the scan.
   */
  async *scan(id, o0 = {}, { signal, onProgress, control, unit } = {}) {
    this.calls++
    const f = this.files.get(id)
    if (!f) throw new PqscanError('closed', 'pqscan: the file is closed')
    if (signal?.aborted) throw abortReason(signal)
    const inst = await this.instance(f.kind === 'dataset' || f.full)
    if (f.kind === 'dataset') {
      // A table session over the dataset's files, with the sizes and validators the sources
      // know by now (so the engine's footer cache finds the footers of earlier sessions).
      const srcs = f.srcs
      const o = { ...engineOptions(o0), ...tableOptions(f) }
      if (unit?.files) Object.assign(o, { filesFrom: unit.files[0], filesTo: unit.files[1], offset: unit.offset, limit: unit.limit, rowsFrom: unit.rows?.[0], rowsTo: unit.rows?.[1] }) // core-units.js
      if (o.maxGap == null && srcs.some((s) => s instanceof HttpSource)) o.maxGap = HTTP_MAX_GAP
      const h = inst.openTable(o)
      // Round trips: the NeedData steps that sent a request (a step spans several sources).
      let roundTrips = 0
      let before = 0
      const meter = {
        stats: () => ({ ...sumStats(srcs), roundTrips }),
        fileSize: () => srcs.reduce((n, s) => n + (s.size > 0 ? s.size : 0), 0),
        onRanges: () => (before = sumStats(srcs).requests),
        onPushed: () => sumStats(srcs).requests > before && roundTrips++,
      }
      yield* this.run(inst, h, srcs, { signal, onProgress, label: f.label, meter, control, onBytes: f.keepTail })
      return
    }
    const src = f.src
    const o = { ...engineOptions(o0), fileSize: src.size }
    if (unit) Object.assign(o, { rowsFrom: unit[0], rowsTo: unit[1] }) // one unit of a pooled scan (core-units.js)
    if (o.maxGap == null && src instanceof HttpSource) o.maxGap = HTTP_MAX_GAP
    if (src.fileKey && inst.hasMetadata) o.fileKey = src.fileKey
    mark('scan.start')
    const fm = unit ? null : f.fm // the plan's session stood for the scan in the metadata cache
    const w = fm?.watch(src)
    const plan = fm ? await fm.plan(src, o0, signal) : null // tailcache.js: replayed, recorded
    const base = src.replayBase // what the source had fetched before a prefetch for this scan
    src.replayBase = null
    const onRanges = (ranges) => (w?.onRanges(ranges), plan?.onRanges(ranges))
    const meter = { stats: () => ({ ...src.stats }), base, fileSize: () => src.size, onRanges }
    let rows = false
    let yielded = false
    try {
      const h = inst.open(o)
      for await (const ev of this.run(inst, h, src, { signal, onProgress, label: f.url, meter, control, onBytes: w?.onBytes })) {
        if (ev.type === 'batch' && !rows && fm) await fm.confirm(src, signal)
        if (ev.type === 'batch') rows = true
        if (ev.type === 'done' && fm) {
          w?.settle()
          plan.keep()
          fm.report(ev.report)
          // The entry is written before the scan ends: a page closed (or a Worker ended) at
          // the answer would lose a write still in flight. Only a grown entry waits (an
          // IndexedDB put of a page index: a few ms).
          await fm.mc.pending
        }
        yielded = true
        yield ev
      }
    } catch (e) {
      if (!yielded && !f.full && this.needsFull(e)) {
        // Options the first module cannot read (it has no encoding/json), or a file changed
        // since its open into one with a codec it leaves out: it fails at the open or at the
        // footer, before any row, and the scan runs again in the full module.
        f.full = true
        yield* this.scan(id, o0, { signal, onProgress, control, unit })
        return
      }
      // The stored tail is stale (the file was replaced since it was stored) and no row was
      // returned: read the file again and start over.
      if (e?.code !== 'file-changed' || !fm?.fromStore || rows || signal?.aborted) throw e
      await reopenStale(this, id, f, signal)
      yield* this.scan(id, o0, { signal, onProgress, control })
    } finally {
      // A unit is one of several sessions over src (core-units.js): the prefetched bytes stay
      // for the others until the file closes.
      if (!unit) src.dropAhead?.()
    }
  }

  // Drives the open scan h to its end with progress events: meter.stats() are the HTTP
  // counters (diffed against the start), meter.fileSize() the size to show; onRanges and
  // onPushed see the fetch steps. Closes h whatever happens.
  async *run(inst, h, src, { signal, onProgress, label, meter, control, onBytes }) {
    this.active++
    // Runtime filters (scan.tighten): the module is only ever called from this thread, and
    // never re-entered, so a tighten goes straight in; it applies from the next round.
    if (control) openTighten(control, (where) => inst.tighten(h, where))
    const base = meter.base ?? meter.stats()
    const prog = { phase: 'scan', bytesPlanned: 0, bytesFetched: 0, requests: 0, roundTrips: 0, batches: 0, rowsReturned: 0, fileSize: meter.fileSize() }
    const emit = (phase, rep) => {
      if (!onProgress) return
      const now = meter.stats()
      prog.phase = phase
      prog.bytesFetched = now.bytes - base.bytes
      prog.requests = now.requests - base.requests
      prog.roundTrips = now.roundTrips - base.roundTrips
      prog.fileSize = meter.fileSize()
      if (rep?.filesRead !== undefined) prog.filesRead = rep.filesRead
      try {
        onProgress({ ...prog })
      } catch {}
    }
    try {
      for await (const st of drive(inst, h, src, { signal, label, onBytes })) {
        if (st.type === 'ranges') {
          mark('scan.ranges')
          for (const r of st.ranges) prog.bytesPlanned += r.off < 0 ? -r.off : r.len
          meter.onRanges?.(st.ranges)
          emit('fetch')
        } else if (st.type === 'pushed') {
          meter.onPushed?.()
          emit('decode')
        } else if (st.type === 'batch') {
          mark('scan.batch')
          prog.batches++
          if (onProgress) {
            // A file's rows come from the batch's own IPC headers (ipc-rows.js); the module's
            // report is a JSON encode of every row group's page letters, so only a table
            // session (whose progress has filesRead too) or an unreadable batch pays for it.
            const n = Array.isArray(src) ? -1 : ipcRows(st.ipc)
            if (n >= 0) {
              prog.rowsReturned += n
              emit('batch')
            } else {
              const rep = inst.report(h)
              prog.rowsReturned = rep.rowsReturned
              emit('batch', rep)
            }
          }
          yield { type: 'batch', ipc: st.ipc }
        } else if (st.type === 'done') {
          mark('scan.done')
          const report = inst.report(h)
          emit('done', report)
          yield { type: 'done', report, http: diff(meter.stats(), base) }
          return
        }
      }
    } finally {
      if (control) closeTighten(control) // the scan is over: a tighten does nothing
      this.release(inst, h)
    }
  }

  /**
   * Testing only: makes the current instance trap (ABI pq_debug 2 asking for a 4 GiB block,
   * which the Go runtime cannot get: "out of memory", a trap, without growing the memory).
   * @returns {Promise<string>} the error code ("trap")
   */
  async debugTrap() {
    const inst = await this.instance()
    try {
      inst.debug(2, 4 * 2 ** 30 - 1)
    } catch (e) {
      this.maybeRetire()
      return e.code
    }
    return 'no-trap'
  }

  /**
   * Testing only: {instances, fullInstances, hostZstd, hostZstdCalls}: the instances of the
   * full module (null when the engine has one module), whether the current instance has the
   * host's ZSTD decoder, and the pages this thread's decoder was asked for so far.
   */
  async debugStats() {
    const inst = await this.instance()
    const fullInstances = this.full === this.first ? null : this.full.instances
    return { instances: this.instances, fullInstances, hostZstd: inst.zstd != null, hostZstdCalls: inst.zstd?.calls ?? 0, startMarks: startMarks() }
  }
}
