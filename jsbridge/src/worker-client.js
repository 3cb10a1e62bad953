// WorkerEngine runs a Core in a Worker (browser module Worker or Node worker_threads) and offers
// the same methods as Core: openFile, openDataset, scan (an async generator of {type, ...}), closeFile. See
// worker.js for the protocol. A custom `fetch` cannot cross into a Worker, so when a file was
// opened with one, the Worker sends its requests here and this side runs them (proxied fetch).

import { engineOptions } from './options.js'
import { deserializeError, serializeError, abortReason, PqscanError } from './errors.js'
import { waitOrAbort } from './http-body.js'
import { blobReader, asyncBufferReader } from './blob.js'
import { compileModule } from './module.js'
import { defaultModules } from './slot.js'
import { openTighten, closeTighten } from './tighten.js'
import { mark, startMarks } from './marks.js'
import { spawnWorker, cloneable, hrefOf } from './worker-spawn.js'
import { runFetch, runRead, runStore } from './worker-proxy.js'
import { scanPooled, splittable, defaultWorkers, addHttp } from './worker-pool.js'

export class WorkerEngine {
  /** @param {{wasm?: string|ArrayBuffer|Uint8Array|WebAssembly.Module, workerURL?: string|URL, retireBytes?: number, afterCompile?: () => void}} opts */
  constructor(opts = {}) {
    this.opts = opts
    this.w = null
    this.ready = null
    this.nextId = 1
    this.calls = new Map() // id → {resolve, reject} for open / trap
    this.scans = new Map() // id → {push(m)}
    this.fetchers = new Map() // open/file id → fetch function of proxied files
    this.inflight = new Map() // rid → AbortController
    this.readers = new Map() // sid → reader of a source the Worker cannot take (proxied reads)
    this.stores = new Map() // id → custom metadata store (metadataCache: {get, put, delete}) the Worker asks
    this.storeIds = new Map() // store → id
    this.readersOf = new Map() // file id → its sids
    this.nextSid = 1
    this.pending = 0
    this.helpers = [] // the scan pool's other Workers (worker-pool.js), started on the first split scan
    this.adopted = new Map() // in a pool's Worker: the engine Worker's file id → this Worker's
  }

  async start() {
    if (this.ready) return this.ready
    this.ready = (async () => {
      mark('worker.new')
      // The module compiles on this thread while the Worker fetches and evaluates its bundle,
      // instead of after it (BENCHMARKS.md "Where a cold start goes"); the compiled
      // WebAssembly.Module is then posted to the Worker, which takes it as is.
      const wasmP = this.moduleForWorker()
      this.compiled = wasmP // the module the pool's Workers get too
      wasmP.catch(() => {}) // awaited below, after the Worker is up; never an unhandled rejection
      // Work for this thread that should not compete with the compile for the cores (index.js:
      // apache-arrow's import), done while the Worker instantiates and opens the first file.
      if (this.opts.afterCompile) wasmP.finally(this.opts.afterCompile).catch(() => {})
      const url = this.opts.workerURL ?? new URL('./worker.js', import.meta.url)
      const { w, node } = await spawnWorker(url, {
        onMessage: (m) => this.onMessage(m),
        onCrash: (e) => this.onCrash(e),
        onBlob: (u) => (this.trampoline = u),
      })
      this.node = node
      this.w = w
      const ready = new Promise((resolve, reject) => (this.calls.set(0, { resolve, reject })))
      this.hold(+1)
      try {
        await ready
      } finally {
        this.hold(-1)
        if (this.trampoline) URL.revokeObjectURL(this.trampoline) // loaded (or failed) by now
        this.trampoline = null
      }
      // init goes at once, so that a first open (the lazy path) reaches the Worker and starts
      // fetching its tail while the module still compiles here; the module follows.
      this.post({ t: 'init', wasmLater: true, wasmFull: this.fullForWorker(), retireBytes: this.opts.retireBytes, warmup: this.opts.warmup })
      const sendModule = (wasm) => this.w === w && this.post({ t: 'module', wasm })
      wasmP.then(sendModule, (e) => this.w === w && this.post({ t: 'module', error: serializeError(e) }))
    })()
    return this.ready
  }

  // What the Worker's init message carries: a promise of the compiled module. A Response (or a
  // promise of one) cannot cross into the Worker and is compiled here; a URL or bytes are too,
  // so that compilation overlaps the Worker's start. If compiling here fails, the Worker is
  // given the URL or bytes and tries itself: its attempt reports the error (and a failed
  // start is retried) as if nothing had been compiled here, at the cost of a second fetch of a module that
  // failed once.
  async moduleForWorker() {
    let wasm = this.opts.wasm
    if (typeof wasm?.then === 'function' || (typeof Response !== 'undefined' && wasm instanceof Response)) return compileModule(wasm)
    if (wasm instanceof WebAssembly.Module) return wasm
    if (wasm == null) wasm = defaultModules().lean
    else wasm = hrefOf(wasm)
    try {
      return await compileModule(wasm)
    } catch {
      return wasm
    }
  }

  // The full module, for the Worker to compile when a query needs it (slot.js): the package's
  // when no module was given (the lean one is then compiled here), opts.wasmFull when given
  // (a URL, bytes or a compiled module: what postMessage can carry), none when opts.wasm alone
  // was given.
  fullForWorker() {
    const { wasm, wasmFull } = this.opts
    if (wasmFull != null) return hrefOf(wasmFull)
    return wasm == null ? defaultModules().full : undefined
  }

  // Node: keep the process alive only while something waits on the worker.
  hold(d) {
    this.pending += d
    if (this.node && this.w) {
      if (this.pending > 0) this.w.ref()
      else this.w.unref()
    }
  }

  post(m, transfer = []) {
    this.w.postMessage(m, transfer)
  }

  onCrash(err) {
    if (!this.w) return
    this.w = null
    this.ready = null
    const e = new PqscanError('trap', err.message, { cause: err })
    for (const c of this.calls.values()) c.reject(e)
    this.calls.clear()
    for (const s of this.scans.values()) s.push({ t: 'error', error: serializeError(e) })
  }

  onMessage(m) {
    switch (m.t) {
      case 'ready':
        mark('worker.ready')
        this.calls.get(0)?.resolve()
        this.calls.delete(0)
        return
      case 'opened':
      case 'stats':
      case 'trapped': {
        const c = this.calls.get(m.id)
        this.calls.delete(m.id)
        c?.resolve(m)
        return
      }
      case 'error': {
        const c = this.calls.get(m.id)
        if (c) {
          this.calls.delete(m.id)
          c.reject(deserializeError(m.error))
          return
        }
        this.scans.get(m.id)?.push(m)
        return
      }
      case 'batch':
      case 'done':
      case 'units':
      case 'planned':
      case 'progress':
      case 'tightened':
        this.scans.get(m.id)?.push(m)
        return
      case 'fetch':
        runFetch(this, m)
        return
      case 'read':
        runRead(this, m)
        return
      case 'store':
        runStore(this, m)
        return
      case 'warmed': {
        const c = this.calls.get(m.id)
        this.calls.delete(m.id)
        c?.resolve(m)
        return
      }
      case 'fetchAbort':
        this.inflight.get(m.rid)?.abort()
        this.inflight.delete(m.rid)
        return
    }
  }

  /** Starts the Worker and has it compile and instantiate the module (init / engine.ready). */
  async warm() {
    await this.start()
    const id = this.nextId++
    this.hold(+1)
    try {
      await this.call({ t: 'warm', id })
    } finally {
      this.hold(-1)
    }
  }

  call(m, transfer) {
    return new Promise((resolve, reject) => {
      this.calls.set(m.id, { resolve, reject })
      try {
        this.post(m, transfer)
      } catch (e) {
        this.calls.delete(m.id)
        reject(new PqscanError('source', `pqscan: the Worker cannot take this input: ${e?.message ?? e}`, { cause: e }))
      }
    })
  }

  // A source descriptor the Worker can take: an AsyncBuffer, or a Blob that cannot be cloned
  // (Node's fs.openAsBlob), becomes {proxy: {sid, size, label}}, read through this thread.
  transferable(d, sids) {
    const blob = typeof Blob !== 'undefined' && d instanceof Blob ? d : d?.blob
    let reader = null
    if (d?.asyncBuffer != null) reader = asyncBufferReader(d.asyncBuffer)
    else if (blob != null && !cloneable(blob)) reader = blobReader(blob)
    if (!reader) return d
    const sid = this.nextSid++
    this.readers.set(sid, reader)
    sids.push(sid)
    const proxy = { sid, size: reader.size, label: reader.label }
    return d === blob ? { proxy } : { proxy, ...(d.path != null ? { path: d.path } : {}) }
  }

  dropReaders(sids) {
    for (const sid of sids) this.readers.delete(sid)
  }

  async openFile(url, opts = {}, signal) {
    const sids = []
    return this.open({ t: 'open', url: this.transferable(url, sids) }, opts, signal, sids)
  }

  /** Core.openDataset in the Worker: the same reply as open (opened {file, schemaIPC, metadata}). */
  async openDataset(sources, opts = {}, signal) {
    const sids = []
    return this.open({ t: 'openDataset', sources: sources.map((d) => this.transferable(d, sids)) }, opts, signal, sids)
  }

  async open(msg, opts, signal, sids = []) {
    await this.start()
    if (signal?.aborted) throw abortReason(signal)
    this.hold(+1)
    try {
      return await waitOrAbort(this.sendOpen(msg, opts, sids).opened, signal)
    } finally {
      this.hold(-1)
    }
  }

  // Posts an open message; opened resolves to {id, schemaIPC, metadata} once the Worker
  // answers, with the file's proxied fetch and readers kept under its id (dropped on failure).
  sendOpen(msg, opts, sids) {
    const id = this.nextId++
    const o = { ...opts }
    if (typeof o.fetch === 'function') {
      this.fetchers.set(id, o.fetch)
      o.proxyFetch = true
    }
    delete o.fetch
    delete o.onBytes
    const store = o.metadataCache
    if (store && typeof store === 'object' && typeof store.get === 'function') {
      // A custom metadata store stays in this thread; the Worker asks it by messages.
      if (!this.storeIds.has(store)) {
        this.storeIds.set(store, this.storeIds.size + 1)
        this.stores.set(this.storeIds.size, store)
      }
      o.metadataCache = { proxyStore: this.storeIds.get(store) }
    }
    const opened = this.call({ ...msg, id, opts: o }).then(
      (r) => {
        if (o.proxyFetch) this.fetchers.set(r.file, this.fetchers.get(id))
        if (sids.length > 0) this.readersOf.set(r.file, sids)
        return { id: r.file, schemaIPC: r.schemaIPC, metadata: r.metadata }
      },
      (e) => {
        this.dropReaders(sids)
        throw e
      },
    )
    return { id, opened }
  }

  /**
   * openFile and scan in one (index.js query): both messages go to the Worker at once and the
   * Worker starts the scan as soon as its open is done, without the trip of the schema here
   * and of the scan message back (the first gap of a query, BENCHMARKS.md "One call").
   * Yields {type:'opened', schemaIPC, metadata} first, then scan's messages; the file is
   * closed when the iteration ends, however it ends.
   */
  async *query(url, opts, scanOpts, hooks = {}) {
    await this.start()
    if (hooks.signal?.aborted) throw abortReason(hooks.signal)
    const sids = []
    const { id, opened } = this.sendOpen({ t: 'open', url: this.transferable(url, sids), scanFollows: true }, opts, sids)
    opened.catch(() => {}) // awaited below; a failed open fails the scan in the Worker too
    // scan() sets posted when its message leaves; if it never does (an abort before), the
    // Worker is told to forget the open it keeps for that scan (worker.js opens).
    const target = { open: id, posted: false }
    const it = this.scan(target, scanOpts, hooks)
    const first = it.next() // runs up to the scan message's post: now, not after the open
    first.catch(() => {})
    try {
      const r = await waitOrAbort(opened, hooks.signal)
      yield { type: 'opened', schemaIPC: r.schemaIPC, metadata: r.metadata }
      for (let n = await first; !n.done; n = await it.next()) yield n.value
    } finally {
      await it.return().catch(() => {})
      if (!target.posted && this.w) this.post({ t: 'dropOpen', open: id })
      opened.then((r) => this.closeFile(r.id), () => {})
    }
  }

  closeFile(file) {
    for (const h of this.helpers) h.dropAdopted(file)
    this.fetchers.delete(file)
    this.dropReaders(this.readersOf.get(file) ?? [])
    this.readersOf.delete(file)
    if (this.w) this.post({ t: 'closeFile', file })
  }

  /**
   * A scan of an opened file or dataset (or {open} of query): spread over the pool's Workers
   * when the engine has more than one and the scan can be split (worker-pool.js), else one
   * session in the engine's Worker.
   */
  async *scan(file, opts = {}, hooks = {}) {
    this.poolSize ??= this.opts.workers != null ? Math.max(1, Math.floor(this.opts.workers) || 1) : await defaultWorkers()
    if (this.poolSize > 1 && splittable(opts)) yield* scanPooled(this, file, opts, hooks, this.poolSize)
    else yield* this.scanOne(file, opts, hooks)
  }

  /**
   * One session's scan in this Worker. plan (worker-pool.js): the Worker plans units first
   * and, when they are worth a pool, yields {type: 'units', ...} and ends; unit: the rows
   * [from, to) of one unit.
   */
  async *scanOne(file, opts = {}, { signal, onProgress, control, plan, unit } = {}) {
    await this.start()
    if (signal?.aborted) throw abortReason(signal)
    const id = this.nextId++
    const tightens = new Map() // request id → {resolve, reject}
    const queue = []
    let wake = null
    let finished = false
    this.scans.set(id, {
      push: (m) => {
        if (m.t === 'tightened') {
          const p = tightens.get(m.rid)
          tightens.delete(m.rid)
          if (m.error) p?.reject(deserializeError(m.error))
          else p?.resolve()
          return
        }
        if (m.t === 'progress') {
          try {
            onProgress?.(m.progress)
          } catch {}
          return
        }
        queue.push(m)
        wake?.()
      },
    })
    const onAbort = () => {
      queue.push({ t: 'aborted' })
      wake?.()
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    let handedOff = false // the plan's units went to the pool, and the control with them
    let planHttp = null
    const openControl = () => {
      if (!control) return
      // The Worker's Core applies it between two calls into its module (core.js).
      openTighten(control, (where) => {
        if (finished || !this.w) return undefined
        const rid = this.nextId++
        return new Promise((resolve, reject) => {
          tightens.set(rid, { resolve, reject })
          this.post({ t: 'tighten', id, rid, where })
        })
      })
    }
    // Runtime filters given before the scan started go with its message, so that the
    // Worker's session takes them before its first round, as a session in this thread does;
    // the Worker answers each with a tightened message. A plan's scan opens its control once
    // it goes on as one session (planned); its units get them from the pool.
    const early = control?.pending?.splice(0) ?? []
    const tighten = early.map((p) => (tightens.set(this.nextId, p), { rid: this.nextId++, where: p.where }))
    this.hold(+1)
    try {
      try {
        this.post({ t: 'scan', id, file: file?.open != null ? { open: file.open } : file, opts: engineOptions(opts), progress: !!onProgress, plan, unit, tighten })
        if (file?.open != null) file.posted = true
      } catch (e) {
        finished = true
        throw new PqscanError('options', `pqscan: the Worker cannot take these scan options: ${e?.message ?? e}`, { cause: e })
      }
      if (!plan) openControl()
      for (;;) {
        while (queue.length === 0) await new Promise((r) => (wake = r))
        wake = null
        const m = queue.shift()
        if (m.t === 'batch') {
          yield { type: 'batch', ipc: m.ipc }
          if (this.w) this.post({ t: 'ack', id })
        } else if (m.t === 'planned') {
          planHttp = m.http
          openControl()
        } else if (m.t === 'units') {
          finished = handedOff = true
          for (const t of tighten) tightens.delete(t.rid)
          if (control) control.pending = [...early, ...(control.pending ?? [])] // for the units (worker-pool.js)
          yield { type: 'units', file: m.file, units: m.units, report: m.report, http: m.http, share: m.share }
          return
        } else if (m.t === 'done') {
          finished = true
          yield { type: 'done', report: m.report, http: addHttp(m.http, planHttp) }
          return
        } else if (m.t === 'error') {
          finished = true
          throw deserializeError(m.error)
        } else if (m.t === 'aborted') {
          throw abortReason(signal)
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort)
      if (control && !handedOff) closeTighten(control)
      for (const p of tightens.values()) p.resolve() // the scan ended first: nothing to tighten
      if (!finished && this.w) this.post({ t: 'cancel', id })
      this.scans.delete(id)
      this.hold(-1)
    }
  }

  /** Testing only: makes the Worker's instance trap; resolves to {code, instances}. */
  async debugTrap() {
    await this.start()
    const id = this.nextId++
    this.hold(+1)
    try {
      const r = await this.call({ t: 'trap', id })
      return { code: r.code, instances: r.instances }
    } finally {
      this.hold(-1)
    }
  }

  /** Testing only: the Worker's Core.debugStats(). */
  async debugStats() {
    await this.start()
    const id = this.nextId++
    this.hold(+1)
    try {
      // The start-up marks of this thread beside the Worker's (marks.js).
      return { ...(await this.call({ t: 'stats', id })).stats, pageMarks: startMarks() }
    } finally {
      this.hold(-1)
    }
  }

  /** The pool's other Workers, the first n (started as needed: worker-pool.js). */
  poolHelpers(n) {
    while (this.helpers.length < n) {
      this.helpers.push(new WorkerEngine({ ...this.opts, wasm: this.compiled ?? this.opts.wasm, wasmFull: this.fullForWorker(), workers: 1, afterCompile: undefined }))
    }
    return this.helpers.slice(0, Math.max(0, n))
  }

  /** In a pool's Worker: opens the engine Worker's file from its plan's share; resolves to its id here. */
  async adopt(file, share) {
    await this.start()
    const id = this.nextId++
    this.hold(+1)
    try {
      const r = await this.call({ t: 'adopt', id, share, file: this.adopted.get(file) })
      this.adopted.set(file, r.file)
      return r.file
    } finally {
      this.hold(-1)
    }
  }

  dropAdopted(file) {
    const f = this.adopted.get(file)
    this.adopted.delete(file)
    if (f != null && this.w) this.post({ t: 'closeFile', file: f })
  }

  terminate() {
    for (const h of this.helpers.splice(0)) h.terminate()
    const w = this.w
    this.w = null
    this.ready = null
    w?.terminate()
  }
}
