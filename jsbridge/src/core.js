// Core drives scans: it owns one module instance (recreated after a trap, retired when its
// memory grew large), one HttpSource per opened file, and runs the NeedRanges → fetch → Push
// loop of wasm/ABI.md. It runs wherever it is created: inside the Worker (the default) or in
// the calling thread ({worker: false}). It yields Arrow IPC bytes; it never imports apache-arrow.

import { HttpSource } from './http.js'
import { BlobSource } from './blob.js'
import { Instance, compileModule, NEED_RANGES, BATCH, DONE, ERROR } from './module.js'
import { PqscanError, abortReason } from './errors.js'
import { engineOptions } from './options.js'

export { engineOptions }


export class Core {
  /**
   * @param {{wasm?: any, retireBytes?: number}} opts wasm: see compileModule; retireBytes: an
   *   idle instance whose memory grew past this is dropped (wasm memory never shrinks).
   */
  constructor(opts = {}) {
    this.wasmSrc = opts.wasm
    this.retireBytes = opts.retireBytes ?? 1 << 30
    this.modulePromise = null
    this.inst = null
    this.instPromise = null
    this.files = new Map()
    this.nextId = 1
    this.active = 0
    this.instances = 0 // instances created so far (tests check recreation after traps)
  }

  module() {
    if (!this.modulePromise) {
      this.modulePromise = compileModule(this.wasmSrc)
      this.modulePromise.catch(() => (this.modulePromise = null))
    }
    return this.modulePromise
  }

  async instance() {
    if (this.inst && !this.inst.dead) return this.inst
    if (!this.instPromise) {
      this.instPromise = (async () => {
        const i = await Instance.create(await this.module())
        this.instances++
        this.inst = i
        return i
      })()
      this.instPromise.then(
        () => (this.instPromise = null),
        () => (this.instPromise = null),
      )
    }
    return this.instPromise
  }

  maybeRetire() {
    if (this.active === 0 && this.inst && (this.inst.dead || this.inst.memoryBytes > this.retireBytes)) this.inst = null
  }

  /**
   * Opens a file: reads the footer (one tail request, or one suffix request when the size is
   * unknown) and keeps the fetched bytes so that scans do not fetch them again.
   * @returns {Promise<{id: number, schemaIPC: Uint8Array, metadata: object}>}
   */
  async openFile(url, opts = {}, signal) {
    const isBlob = typeof Blob !== 'undefined' && url instanceof Blob
    const src = isBlob ? new BlobSource(url) : new HttpSource(url, opts)
    if (isBlob) url = src.label
    const id = this.nextId++
    const inst = await this.instance()
    const sizeGiven = src.size >= 0
    const o = { explain: true }
    if (sizeGiven) o.fileSize = src.size
    if (opts.tailSize) o.tailSize = opts.tailSize
    const h = inst.open(o)
    this.active++
    let schemaIPC = null
    let report = null
    let sizeSet = sizeGiven
    try {
      for (;;) {
        if (signal?.aborted) throw abortReason(signal)
        const k = inst.next(h)
        if (k === NEED_RANGES) {
          const rs = inst.ranges(h)
          await src.fetchRanges(rs, signal, (off, b) => {
            if (!sizeSet) {
              inst.setSize(h, src.size)
              sizeSet = true
            }
            if (!src.pieces.some((p) => p.off <= off && off + b.length <= p.off + p.bytes.length)) src.keep(off, b)
            inst.push(h, off, b)
          })
          schemaIPC = inst.schema(h)
          if (schemaIPC) {
            report = inst.report(h)
            break
          }
        } else if (k === DONE || k === BATCH) {
          schemaIPC = inst.schema(h)
          report = inst.report(h)
          if (!schemaIPC) throw new PqscanError('abi', 'pqscan: the module gave no schema after reading the footer')
          break
        } else if (k === ERROR) {
          throw new PqscanError('scan', `pqscan: ${inst.error(h) || 'scan failed'} (${url})`)
        } else {
          throw new PqscanError('abi', `pqscan: pq_next returned ${k}: ${inst.error(h)}`)
        }
      }
    } finally {
      this.active--
      try {
        inst.close(h)
      } catch {}
      this.maybeRetire()
    }
    this.files.set(id, { src, url })
    const metadata = {
      url,
      fileSize: src.size,
      numRowGroups: report.rowGroupsTotal,
      numRows: report.rowsTotal,
      etag: src.validators?.etag || undefined,
      lastModified: src.validators?.lastModified || undefined,
      http: { ...src.stats },
    }
    return { id, schemaIPC, metadata }
  }

  closeFile(id) {
    this.files.delete(id)
  }

  /**
   * Runs one scan of an opened file. Yields {type:'batch', ipc} for every batch and ends with
   * {type:'done', report, http}; throws PqscanError or the abort reason. Breaking out of the
   * iteration closes the scan.
   */
  async *scan(id, o = {}, { signal, onProgress } = {}) {
    const f = this.files.get(id)
    if (!f) throw new PqscanError('closed', 'pqscan: the file is closed')
    if (signal?.aborted) throw abortReason(signal)
    const src = f.src
    const inst = await this.instance()
    const h = inst.open({ ...engineOptions(o), fileSize: src.size })
    this.active++
    const base = { ...src.stats }
    const prog = { phase: 'scan', bytesPlanned: 0, bytesFetched: 0, requests: 0, roundTrips: 0, batches: 0, rowsReturned: 0, fileSize: src.size }
    const emit = (phase) => {
      if (!onProgress) return
      prog.phase = phase
      prog.bytesFetched = src.stats.bytes - base.bytes
      prog.requests = src.stats.requests - base.requests
      prog.roundTrips = src.stats.roundTrips - base.roundTrips
      try {
        onProgress({ ...prog })
      } catch {}
    }
    try {
      for (;;) {
        if (signal?.aborted) throw abortReason(signal)
        const k = inst.next(h)
        if (k === NEED_RANGES) {
          const rs = inst.ranges(h)
          for (const r of rs) prog.bytesPlanned += r.len
          emit('fetch')
          await src.fetchRanges(rs, signal, (off, b) => inst.push(h, off, b))
          emit('decode')
        } else if (k === BATCH) {
          const ipc = inst.ipc(h)
          prog.batches++
          prog.rowsReturned = inst.report(h).rowsReturned
          emit('batch')
          yield { type: 'batch', ipc }
        } else if (k === DONE) {
          const report = inst.report(h)
          emit('done')
          yield { type: 'done', report, http: diff(src.stats, base) }
          return
        } else if (k === ERROR) {
          throw new PqscanError('scan', `pqscan: ${inst.error(h) || 'scan failed'} (${f.url})`)
        } else {
          throw new PqscanError('abi', `pqscan: pq_next returned ${k}: ${inst.error(h)}`)
        }
      }
    } finally {
      this.active--
      try {
        inst.close(h)
      } catch {}
      this.maybeRetire()
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
}

function diff(a, b) {
  return { requests: a.requests - b.requests, bytes: a.bytes - b.bytes, retries: a.retries - b.retries, roundTrips: a.roundTrips - b.roundTrips }
}
