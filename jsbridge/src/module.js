// Instance wraps one instance of the pqscan module (wasm/ABI.md, version 1). It is the only
// file that knows the ABI: pointers, packed i64 buffers, status codes, stale memory views. The
// step kinds below are internal/protocol/protocol.go's (internal/protocol/jsbridge_test.go
// checks them: keep the `export const NAME = n` form).
//
// Hazards handled here: every i64 arrives as a BigInt; pointers are unsigned; memory views go
// stale after any call (memory may grow), so views are taken right before use and module-owned
// buffers are copied out before the next call. A trap (or proc_exit) poisons the instance:
// `dead` is set, the error has code "trap", and the owner must instantiate a new one.

import { WASI, WASIProcExit, ConsoleStdout } from '@bjorn3/browser_wasi_shim'
import { PqscanError, ERROR_KINDS } from './errors.js'
import { hostImports } from './zstd.js'
import { mark } from './marks.js'
import { parseExact, stringifyExact } from './exact-json.js'

export const ABI_VERSION = 1
export const NEED_RANGES = 1
export const BATCH = 2
export const DONE = 3
export const ERROR = 4
// The footer is decoded (pq_open option "metadata": true): pq_metadata and pq_schema answer.
// Returned once, before any other step; only by modules that export pq_metadata.
export const METADATA = 5
// Table sessions (pq_open_table): the engine asks for (file, off, len) triples.
export const NEED_DATA = 6
// A Delta session (pq_open_delta) wants whole log objects: pq_objects, then pq_push_object each.
export const NEED_OBJECTS = 7
// NeedRanges whose bytes may be pushed as they arrive, calling pq_next after each: the engine
// filters what is complete and asks again for the rest, the ranges in flight included.
export const NEED_RANGES_AS_ARRIVED = 8
// The kinds of the objects a NeedObjects step asks for (pq_objects' "kind"), as
// internal/protocol/protocol.go defines them: get and list (table logs), page, walk and stat
// (a discovery: a listing page, a local folder's files, a local path's type).
export const OBJECT_GET = 'get'
export const OBJECT_LIST = 'list'
export const OBJECT_PAGE = 'page'
export const OBJECT_WALK = 'walk'
export const OBJECT_STAT = 'stat'

const FAIL64 = -1n
const enc = new TextEncoder()
const dec = new TextDecoder()

/** The default location of the module: pqscan.wasm at the package root. */
export function defaultWasmURL() {
  return new URL('../pqscan.wasm', import.meta.url).href
}

const isNode = typeof process !== 'undefined' && process.versions?.node != null && typeof window === 'undefined'

/**
 * Compiles the module from a WebAssembly.Module, bytes, a Response (or a promise of one), or a
 * URL (http(s), a relative URL in browsers, file: or a path in Node). A response served as
 * application/wasm is compiled while it downloads (WebAssembly.compileStreaming), which also
 * lets Chromium cache the compiled code for the next page load; any other response is
 * compiled from its bytes.
 * @returns {Promise<WebAssembly.Module>}
 */
export async function compileModule(src) {
  if (typeof src?.then === 'function') src = await src
  if (src instanceof WebAssembly.Module) return src
  if (src == null) src = defaultWasmURL()
  if (src instanceof ArrayBuffer || ArrayBuffer.isView(src)) return WebAssembly.compile(src)
  if (typeof Response !== 'undefined' && src instanceof Response) return compileResponse(src)
  const s = String(src)
  if (isNode && (s.startsWith('file:') || !/^[a-z][a-z0-9+.-]*:/i.test(s))) {
    const { readFile } = await import('node:fs/promises')
    return WebAssembly.compile(await readFile(s.startsWith('file:') ? new URL(s) : s))
  }
  mark('module.fetch')
  const resp = await fetch(s)
  mark('module.response')
  if (!resp.ok) throw new PqscanError('http', `pqscan: cannot load the module from ${s}: HTTP ${resp.status}`, { status: resp.status })
  return compileResponse(resp)
}

async function compileResponse(resp) {
  if (!resp.ok) throw new PqscanError('http', `pqscan: cannot load the module from ${resp.url}: HTTP ${resp.status}`, { status: resp.status })
  if (WebAssembly.compileStreaming && (resp.headers.get('Content-Type') ?? '').startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(resp).then(compiled)
  }
  return WebAssembly.compile(await resp.arrayBuffer()).then(compiled)
}

function compiled(m) {
  mark('module.compiled')
  return m
}

export class Instance {
  /**
   * @param {WebAssembly.Module} module
   * @param {{zstd?: import('./zstd.js').ZstdDecoder|{decompress: Function}|null}} [opts] zstd:
   *   the decoder behind the module's import pqscan_host.zstd_decompress (zstd.js); null or
   *   absent answers "not provided", and the module fails on ZSTD pages with an error saying so.
   */
  static async create(module, opts = {}) {
    const self = new Instance()
    const stderr = []
    self.stderr = stderr
    const keep = (line) => {
      if (stderr.length < 40) stderr.push(line)
    }
    // fd 0: nothing to read; 1 and 2: the Go runtime's crash messages, kept for trap errors.
    const wasi = new WASI([], [], [new ConsoleStdout(() => {}), ConsoleStdout.lineBuffered(keep), ConsoleStdout.lineBuffered(keep)], { debug: false })
    // pqscan_host.zstd_decompress is the module's only ZSTD decoder (wasm/ABI.md "Host
    // imports"): the C decoder of zstd.js, or "not provided" (ZSTD pages then fail).
    self.zstd = opts.zstd ?? null
    const pqscanHost = hostImports(self.zstd, () => self.x.memory)
    mark('instantiate.start')
    const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport, pqscan_host: pqscanHost })
    mark('instantiated')
    self.x = instance.exports
    self.dead = false
    self.scratch = 0 // a pq_alloc buffer reused for pushes
    self.scratchCap = 0
    self.guard(() => wasi.initialize(instance), '_initialize')
    mark('go.initialized')
    const v = self.guard(() => self.x.pq_abi_version(), 'pq_abi_version')
    mark('go.firstCall')
    if (v !== ABI_VERSION) {
      self.dead = true
      throw new PqscanError('abi', `pqscan: the module has ABI version ${v}, this bridge speaks ${ABI_VERSION}`)
    }
    return self
  }

  /** Runs one call into the module, turning a trap into a "trap" PqscanError. */
  guard(fn, name) {
    if (this.dead) throw new PqscanError('trap', 'pqscan: the module instance was discarded after a trap')
    try {
      return fn()
    } catch (e) {
      this.dead = true
      const exit = e instanceof WASIProcExit ? ` (exit code ${e.code})` : ''
      const detail = this.stderr.find((l) => l.startsWith('fatal error') || l.startsWith('panic') || l.startsWith('runtime:')) ?? this.stderr[0]
      throw new PqscanError('trap', `pqscan: the module trapped in ${name}${exit}: ${e?.message ?? e}${detail ? ` (${detail})` : ''}`, { cause: e })
    }
  }

  /** Whether the module has the metadata step (kind 5, pq_metadata) and the fileKey option. */
  get hasMetadata() {
    return typeof this.x.pq_metadata === 'function'
  }

  /** Whether the module runs table sessions (pq_open_table, kind 6 NeedData, pq_push_file). */
  get hasTables() {
    return typeof this.x.pq_open_table === 'function' && typeof this.x.pq_push_file === 'function'
  }

  /** Whether the module plans scan units (pq_units, the lean module: the Worker pool's plan). */
  get hasUnits() {
    return typeof this.x.pq_units === 'function'
  }

  /** Whether the module reads Delta logs (pq_open_delta, kind 7 NeedObjects, pq_snapshot). */
  get hasDelta() {
    return typeof this.x.pq_open_delta === 'function' && typeof this.x.pq_snapshot === 'function'
  }

  /** pq_open_delta with deltasession.Options ({version, canList}); returns a handle. */
  openDelta(options) {
    return this.openWith('pq_open_delta', options)
  }

  /** Whether the module reads Iceberg tables (pq_open_iceberg; the Delta session's steps). */
  get hasIceberg() {
    return typeof this.x.pq_open_iceberg === 'function' && this.hasDelta
  }

  /**
   * pq_open_iceberg with icebergsession.Options ({metadata, canList, snapshotId, asOf});
   * snapshotId is a decimal string, written into the JSON as a number (an int64 a JS number
   * cannot hold exactly).
   */
  openIceberg(options) {
    return this.openWithID('pq_open_iceberg', options)
  }

  /** Whether the module decides what a folder or glob is (pq_open_discover; the Delta session's steps). */
  get hasDiscover() {
    return typeof this.x.pq_open_discover === 'function' && this.hasIceberg
  }

  /** pq_open_discover with discover.Options (snapshotId as openIceberg's); returns a handle. */
  openDiscover(options) {
    return this.openWithID('pq_open_discover', options)
  }

  // openWith, the options' snapshotId (a decimal string) written into the JSON as a number.
  openWithID(fn, { snapshotId, ...options }) {
    const json = JSON.stringify(options)
    if (snapshotId == null) return this.openWith(fn, json)
    if (!/^-?\d+$/.test(String(snapshotId))) throw new PqscanError('options', `pqscan: snapshotId ${snapshotId}: not an integer`)
    return this.openWith(fn, `{"snapshotId":${snapshotId}${json === '{}' ? '' : ',' + json.slice(1, -1)}}`)
  }

  // A JSON result of a Delta session (pq_objects, pq_delta_files, pq_snapshot).
  deltaJSON(h, fn) {
    const b = this.take(this.guard(() => this.x[fn](h), fn))
    if (!b) throw this.fail(h, fn)
    const text = dec.decode(b)
    const v = parseExact(text)
    // An Iceberg snapshot id is an int64: kept exactly as text beside the parsed number.
    if (fn === 'pq_snapshot') v.versionText = /"version":(-?\d+)/.exec(text)?.[1] ?? String(v.version)
    return v
  }

  /** After NeedObjects: [{kind: 'get'|'list', path}] (paths relative to the table root). */
  objects(h) {
    return this.deltaJSON(h, 'pq_objects')
  }

  /** The Delta session's checkpoint file table: the path of each NeedData file index. */
  deltaFiles(h) {
    return this.deltaJSON(h, 'pq_delta_files')
  }

  /** By file index of deltaFiles: the data file whose deletion vector that file holds ('' for none). */
  deltaOwners(h) {
    return this.deltaJSON(h, 'pq_delta_owners')
  }

  /** After Done: {version, table (pq_open_table options), paths}. */
  snapshot(h) {
    return this.deltaJSON(h, 'pq_snapshot')
  }

  /** pq_push_object: the whole object at path (found false: it does not exist). */
  pushObject(h, path, bytes, found) {
    const pb = enc.encode(path)
    const pp = this.alloc(pb)
    let p = 0
    try {
      p = this.alloc(bytes)
      const rc = this.guard(() => this.x.pq_push_object(h, pp, pb.length, p, bytes.length, found ? 1 : 0), 'pq_push_object')
      if (rc !== 0) throw new PqscanError(this.errorCode(h, 'delta'), `pqscan: ${this.error(h) || 'pq_push_object failed'}`)
    } finally {
      if (!this.dead) {
        this.free(pp)
        if (p) this.free(p)
      }
    }
  }

  get memoryBytes() {
    return this.x.memory.buffer.byteLength
  }

  // Copies out a module-owned buffer v = ptr<<32|len; null for failure (-1).
  take(v) {
    if (v === FAIL64) return null
    if (v === 0n) return new Uint8Array(0)
    const u = BigInt.asUintN(64, v)
    const ptr = Number(u >> 32n)
    const len = Number(u & 0xffffffffn)
    return new Uint8Array(this.x.memory.buffer, ptr, len).slice()
  }

  /** Writes bytes into a module buffer; returns its pointer (caller frees, or the scratch). */
  alloc(bytes) {
    const p = this.guard(() => this.x.pq_alloc(bytes.length), 'pq_alloc') >>> 0
    if (p === 0) throw this.fail(0, 'pq_alloc')
    new Uint8Array(this.x.memory.buffer, p, bytes.length).set(bytes)
    return p
  }

  free(p) {
    this.guard(() => this.x.pq_free(p), 'pq_free')
  }

  error(h) {
    const b = this.take(this.guard(() => this.x.pq_error(h), 'pq_error'))
    return b ? dec.decode(b) : ''
  }

  /**
   * The code of handle h's latest failure (h not open: the module's latest): its error kind
   * (pq_error_kind, ERROR_KINDS), or fallback when it has none or the module does not say.
   */
  errorCode(h, fallback) {
    if (typeof this.x.pq_error_kind !== 'function') return fallback
    return ERROR_KINDS[this.guard(() => this.x.pq_error_kind(h), 'pq_error_kind')] ?? fallback
  }

  fail(h, fn) {
    return new PqscanError(this.errorCode(h, 'abi'), `pqscan: ${fn} failed: ${this.error(h) || 'no message'}`)
  }

  /** pq_open with scan.Options (an object); returns a handle. */
  open(options) {
    return this.openWith('pq_open', options)
  }

  /** pq_open_table with tablescan.Options (files, root, noHive and the scan options); returns a handle. */
  openTable(options) {
    if (!this.hasTables) throw new PqscanError('abi', 'pqscan: this module has no table sessions (pq_open_table); rebuild it (make wasm)')
    return this.openWith('pq_open_table', options)
  }

  // options: an object, or its JSON text already written.
  openWith(fn, options) {
    const bytes = enc.encode(typeof options === 'string' ? options : stringifyExact(options))
    const p = this.alloc(bytes)
    let h
    try {
      h = this.guard(() => this.x[fn](p, bytes.length), fn)
    } finally {
      if (!this.dead) this.free(p)
    }
    if (h <= 0) {
      const msg = this.error(0)
      throw new PqscanError(this.errorCode(0, 'options'), `pqscan: ${msg || `${fn} failed`}`)
    }
    return h
  }

  next(h) {
    return this.guard(() => this.x.pq_next(h), 'pq_next')
  }

  /** After NeedRanges: [{off, len}], off < 0 meaning a suffix of -off bytes. */
  ranges(h) {
    return this.packed(h, ['off', 'len'])
  }

  /** After NeedData: [{file, off, len}], off < 0 meaning a suffix of -off bytes of that file. */
  dataRanges(h) {
    return this.packed(h, ['file', 'off', 'len'])
  }

  // pq_ranges as objects: little-endian i64 tuples, one field per name.
  packed(h, names) {
    const b = this.take(this.guard(() => this.x.pq_ranges(h), 'pq_ranges'))
    if (!b) throw this.fail(h, 'pq_ranges')
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength)
    const w = 8 * names.length
    const out = []
    for (let i = 0; i + w <= b.length; i += w) {
      const r = {}
      names.forEach((n, j) => (r[n] = Number(dv.getBigInt64(i + 8 * j, true))))
      out.push(r)
    }
    return out
  }

  ipc(h) {
    const b = this.take(this.guard(() => this.x.pq_ipc(h), 'pq_ipc'))
    if (!b) throw this.fail(h, 'pq_ipc')
    return b
  }

  /** A schema-only IPC stream, or null before the footer has been read. */
  schema(h) {
    return this.take(this.guard(() => this.x.pq_schema(h), 'pq_schema'))
  }

  /** After METADATA: {fileSize, numRows, createdBy, version, keyValue, rowGroups} (pq_metadata). */
  metadata(h) {
    const b = this.take(this.guard(() => this.x.pq_metadata(h), 'pq_metadata'))
    if (!b) throw this.fail(h, 'pq_metadata')
    return JSON.parse(dec.decode(b))
  }

  /** After Done of a planUnits session: its units, [[rowGroup, start, end, bytes], ...]. */
  units(h) {
    const b = this.take(this.guard(() => this.x.pq_units(h), 'pq_units'))
    if (!b) throw this.fail(h, 'pq_units')
    return JSON.parse(dec.decode(b))
  }

  /**
   * A table session's whole schema (file columns, then partition columns) once its first
   * footer is read: pq_table_fields, tablescan.Options.Table as JSON (null before). Given back
   * as `table` to later sessions of the same files, every scan keeps the open's schema,
   * whichever files its predicate skips. Null when the module has no such export.
   */
  tableFields(h) {
    if (typeof this.x.pq_table_fields !== 'function') return null
    const b = this.take(this.guard(() => this.x.pq_table_fields(h), 'pq_table_fields'))
    if (!b) throw this.fail(h, 'pq_table_fields')
    return JSON.parse(dec.decode(b))
  }

  report(h) {
    const b = this.take(this.guard(() => this.x.pq_report(h), 'pq_report'))
    if (!b) throw this.fail(h, 'pq_report')
    return JSON.parse(dec.decode(b))
  }

  push(h, off, bytes) {
    const CHUNK = 16 << 20
    if (this.x.pq_push_owned) {
      // Each chunk (at most 16 MiB) goes into its own module buffer, which the engine keeps
      // without copying (wasm/ABI.md, pq_push_owned); the module frees it, not us.
      for (let i = 0; i < bytes.length; i += CHUNK) {
        const part = bytes.subarray(i, Math.min(bytes.length, i + CHUNK))
        const p = this.guard(() => this.x.pq_alloc(part.length), 'pq_alloc') >>> 0
        if (p === 0) throw this.fail(0, 'pq_alloc')
        new Uint8Array(this.x.memory.buffer, p, part.length).set(part)
        const rc = this.guard(() => this.x.pq_push_owned(h, BigInt(off + i), p, part.length), 'pq_push_owned')
        if (rc !== 0) throw this.fail(h, 'pq_push_owned')
      }
      return
    }
    // A module without pq_push_owned: chunks through one reused buffer (pq_push copies).
    this.pushCopied(h, bytes, 'pq_push', (i, p, n) => this.x.pq_push(h, BigInt(off + i), p, n))
  }

  /** pq_push_file: bytes of file `file` of a table session at off (copied by the module). */
  pushFile(h, file, off, bytes) {
    this.pushCopied(h, bytes, 'pq_push_file', (i, p, n) => this.x.pq_push_file(h, file, BigInt(off + i), p, n))
  }

  // Pushes bytes in chunks of at most 16 MiB through one reused module buffer; call(i, ptr, n)
  // makes the copying push of the chunk at i.
  pushCopied(h, bytes, name, call) {
    const CHUNK = 16 << 20
    for (let i = 0; i < bytes.length || (i === 0 && bytes.length === 0); i += CHUNK) {
      const part = bytes.subarray(i, Math.min(bytes.length, i + CHUNK))
      if (this.scratchCap < part.length || this.scratch === 0) {
        if (this.scratch) this.free(this.scratch)
        this.scratch = 0
        const cap = Math.max(part.length, 1 << 20)
        this.scratch = this.guard(() => this.x.pq_alloc(cap), 'pq_alloc') >>> 0
        if (this.scratch === 0) throw this.fail(0, 'pq_alloc')
        this.scratchCap = cap
      }
      new Uint8Array(this.x.memory.buffer, this.scratch, part.length).set(part)
      const rc = this.guard(() => call(i, this.scratch, part.length), name)
      if (rc !== 0) throw this.fail(h, name)
      if (bytes.length === 0) break
    }
  }

  /**
   * pq_tighten: ANDs the WHERE text to the running scan's predicate (a runtime filter). A
   * refused conjunct throws an "options" PqscanError; the scan goes on unchanged.
   */
  tighten(h, where) {
    if (typeof this.x.pq_tighten !== 'function') throw new PqscanError('abi', 'pqscan: this module has no runtime filters (pq_tighten); rebuild it (make wasm)')
    const bytes = enc.encode(where)
    const p = this.alloc(bytes)
    let rc
    try {
      rc = this.guard(() => this.x.pq_tighten(h, p, bytes.length), 'pq_tighten')
    } finally {
      if (!this.dead) this.free(p)
    }
    if (rc !== 0) throw new PqscanError(this.errorCode(h, 'options'), `pqscan: ${this.error(h) || 'pq_tighten failed'}`)
  }

  setSize(h, n) {
    const rc = this.guard(() => this.x.pq_set_size(h, BigInt(n)), 'pq_set_size')
    if (rc !== 0) throw this.fail(h, 'pq_set_size')
  }

  /** pq_set_file_size: the size of file `file` of a table session listed without one. */
  setFileSize(h, file, n) {
    const rc = this.guard(() => this.x.pq_set_file_size(h, file, BigInt(n)), 'pq_set_file_size')
    if (rc !== 0) throw this.fail(h, 'pq_set_file_size')
  }

  close(h) {
    if (this.dead) return
    this.guard(() => this.x.pq_close(h), 'pq_close')
  }

  /** Testing only (ABI pq_debug): 1 panic, 2 allocate arg bytes, 3 loop forever. */
  debug(kind, arg = 0) {
    return this.guard(() => this.x.pq_debug(kind, BigInt(arg)), 'pq_debug')
  }
}
