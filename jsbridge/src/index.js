// pqscan: query remote Parquet files from browsers and Node with HTTP range requests.
//
//   const file = await openParquet(url)
//   for await (const batch of file.scan({ columns: ['a'], where: 'x > 3', limit: 100 })) …
//
//   const ds = await openDataset([url1, url2])     // several files as one table (Hive key=value
//   for await (const batch of ds.scan({ where: "year = 2024" })) …   // directories: columns)
//
// The engine is the pqscan WebAssembly module (wasm/ABI.md), run in a Worker by default (the
// WASI shim busy-waits in poll_oneoff, so the calling thread must not host it) or in the
// calling thread with {worker: false}. Results are apache-arrow RecordBatches (a peer
// dependency, imported when the engine starts: arrow.js) decoded from the Arrow IPC streams the
// engine produces.

import { arrow, preloadArrow } from './arrow.js'
import { Core } from './core.js'
import { WorkerEngine } from './worker-client.js'
import { PqscanError, abortReason } from './errors.js'
import { tightenVia, closeTighten } from './tighten.js'
import { httpDefaults } from './http.js'
import { isAsyncBuffer } from './blob.js'
import { localPath } from './node-file.js'
import { resolvePathMap } from './pathmap.js'
import { QueryTarget } from './query.js'
import { absoluteURL, datasetSource, folderSource } from './sources.js'

export { PqscanError }
export { listDataset } from './listing.js'

/**
 * Creates an engine: one module instance (in a Worker unless worker: false) shared by the
 * files opened with it. openParquet uses a shared default engine per (worker, wasm) unless
 * given one. Call terminate() to release it.
 */
export function createEngine(opts = {}) {
  const worker = opts.worker ?? true
  const o = { wasm: opts.wasm ?? opts.wasmURL, wasmFull: opts.wasmFull, retireBytes: opts.retireBytes, warmup: opts.warmup }
  // apache-arrow is needed once the first open answers: a Worker engine imports it after the
  // page's compile of the module (not beside it: on two busy cores its evaluation slowed the
  // compile), while the Worker instantiates and reads the footer; an in-thread one at once.
  const impl = worker ? new WorkerEngine({ ...o, workers: opts.workers, unitMinBytes: opts.unitMinBytes, workerURL: opts.workerURL, afterCompile: preloadArrow }) : new Core(o)
  if (!worker) preloadArrow()
  let ready = null
  const engine = {
    worker,
    impl,
    /** Resolves once the module is compiled and instantiated (starting that on first use). */
    get ready() {
      if (!ready) {
        ready = impl.warm()
        ready.catch(() => (ready = null)) // a failed start is tried again on the next use
      }
      return ready
    },
    openParquet: (url, o = {}) => openParquet(url, { ...o, engine }),
    query: (url, o = {}) => query(url, { ...o, engine }),
    openDataset: (sources, o = {}) => openDataset(sources, { ...o, engine }),
    terminate: () => impl.terminate?.(),
  }
  return engine
}

const defaults = new Map()
const defaultsByObject = new WeakMap()

function defaultEngine(opts) {
  const worker = opts.worker ?? true
  const wasm = opts.wasm ?? opts.wasmURL
  const make = () => createEngine({ worker, wasm, wasmFull: opts.wasmFull, workerURL: opts.workerURL, workers: opts.workers, warmup: opts.warmup })
  if (wasm != null && typeof wasm === 'object' && !(wasm instanceof URL)) {
    let m = defaultsByObject.get(wasm)
    if (!m) defaultsByObject.set(wasm, (m = new Map()))
    const k = `${worker}|${opts.workers ?? ''}`
    if (!m.has(k)) m.set(k, make())
    return m.get(k)
  }
  const key = `${worker}|${wasm == null ? '' : String(wasm)}|${opts.wasmFull == null ? '' : String(opts.wasmFull)}|${opts.workerURL ?? ''}|${opts.workers ?? ''}`
  if (!defaults.has(key)) defaults.set(key, make())
  return defaults.get(key)
}

/**
 * Starts an engine before its first query — the Worker, the module's compilation (streaming
 * when served as application/wasm, so Chromium caches the compiled code) and an instance —
 * and resolves to it. Without opts.engine it is the default engine that openParquet and
 * openDataset use for the same worker / wasm / workerURL options, so they find it started.
 * @param {import('../index.d.ts').EngineOptions & {engine?: object}} [opts]
 */
export async function init(opts = {}) {
  const eng = opts.engine?.impl ? opts.engine : defaultEngine(opts)
  await eng.ready
  return eng
}

/** Terminates the default engines (their Workers); later calls create new ones. */
export function terminateDefaultEngines() {
  for (const e of defaults.values()) e.terminate()
  defaults.clear()
}

// What Core.openFile takes for openParquet's input: a Blob, {asyncBuffer}, {file} (a Node
// path or file: URL) or an absolute URL string.
async function fileTarget(x) {
  if (typeof Blob !== 'undefined' && x instanceof Blob) return x
  if (x instanceof ArrayBuffer || ArrayBuffer.isView(x)) return new Blob([x])
  if (isAsyncBuffer(x)) return { asyncBuffer: x }
  const p = await localPath(x)
  if (p != null) return { file: p }
  if (typeof x !== 'string' && !(x instanceof URL)) {
    throw new PqscanError('source', `pqscan: cannot open ${x === null ? 'null' : typeof x}: a source is a URL, a path (Node), a Blob, an ArrayBuffer, a typed array or an AsyncBuffer`)
  }
  return absoluteURL(x)
}

function headerPairs(h) {
  if (h == null) return undefined
  return [...new Headers(h)]
}

/**
 * Opens a remote Parquet file: reads its footer (one request) and returns a ParquetFile.
 * A Blob or File (a file the user picked), an ArrayBuffer, a typed array or an AsyncBuffer
 * ({byteLength, slice}, as hyparquet defines it) is read in place of a URL: slices of it, as
 * ranges of a remote file would be fetched; in Node so is a path or file: URL (node-file.js).
 * @param {import('../index.d.ts').ParquetSource} url
 * @param {import('../index.d.ts').OpenOptions} [opts]
 * @returns {Promise<ParquetFile>}
 */
export async function openParquet(url, opts = {}) {
  const eng = opts.engine?.impl ? opts.engine : defaultEngine(opts)
  const impl = eng.impl
  const src = sourceOptions(opts, ['fileSize'])
  const target = await fileTarget(url)
  const { id, schemaIPC, metadata } = await impl.openFile(target, src, opts.signal)
  const { tableFromIPC } = await arrow()
  const schema = tableFromIPC(schemaIPC).schema
  return new ParquetFile(impl, id, schema, metadata)
}

/**
 * Opens a Parquet file and scans it, in one call: the scan that `(await openParquet(url,
 * opts)).scan(opts)` would run, returned at once (lazy, as scan()). With the engine in its
 * Worker the open and the scan go to the Worker together, so the scan's first request leaves
 * as soon as the footer is decoded there, without the trip of the schema to this thread and
 * of the scan message back (BENCHMARKS.md "One call"); the file is closed when the scan
 * ends. opts: openParquet's options and scan()'s.
 * @param {import('../index.d.ts').ParquetSource} url
 * @param {import('../index.d.ts').OpenOptions & import('../index.d.ts').ScanOptions} [opts]
 * @returns {Scan}
 */
export function query(url, opts = {}) {
  const eng = opts.engine?.impl ? opts.engine : defaultEngine(opts)
  return new Scan(new QueryTarget(eng.impl, () => fileTarget(url), sourceOptions(opts, ['fileSize'])), opts)
}

// The HTTP options of openParquet / openDataset as the Core takes them.
function sourceOptions(opts, extra) {
  const src = { headers: headerPairs(opts.headers) }
  for (const k of [...Object.keys(httpDefaults), ...extra]) if (opts[k] != null) src[k] = opts[k]
  if (opts.fetch) src.fetch = opts.fetch
  if (opts.allow != null) src.allow = [...opts.allow].map(String)
  if (opts.redirectOrigins != null) src.redirectOrigins = [...opts.redirectOrigins].map(String)
  if (opts.strictRedirects) src.strictRedirects = true
  if (opts.metadataCache !== undefined) src.metadataCache = opts.metadataCache // tailcache.js
  return src
}

/**
 * Opens several Parquet files as one table, read in the given order: a URL each (string or
 * URL; in Node also a path or file: URL), or {url, size} (a known size saves the probe), a
 * Blob / File / AsyncBuffer, {blob, path} (the path gives a Blob or AsyncBuffer its Hive
 * directories), an ArrayBuffer or a typed array. Hive `key=value`
 * directories in the paths become columns after the file columns (noHive: off; root: the part
 * of every URL before its partition directories, when that part has '=' in it). Reads the
 * first file's footer only; the table schema is its columns plus the partition columns.
 * No listing: globs and folders are not expanded over HTTP (list the files yourself).
 * @param {import('../index.d.ts').DatasetSource[]} sources
 * @param {import('../index.d.ts').DatasetOptions} [opts]
 * @returns {Promise<Dataset>}
 */
export async function openDataset(sources, opts = {}) {
  const folder = Array.isArray(sources) ? null : await folderSource(sources, opts)
  if (folder?.file) sources = [folder.file]
  else if (!folder && (!Array.isArray(sources) || sources.length === 0)) throw new PqscanError('options', 'pqscan: openDataset needs a non-empty array of sources, or a folder or glob')
  const travel = opts.version != null ? 'version' : opts.snapshotId != null ? 'snapshotId' : opts.asOf != null ? 'asOf' : null
  if (travel && !folder?.folder) throw new PqscanError('options', `pqscan: the ${travel} option reads a Delta or Iceberg table: give its folder (a URL or path ending in "/") or Iceberg metadata file`)
  const eng = opts.engine?.impl ? opts.engine : defaultEngine(opts)
  const impl = eng.impl
  const list = folder?.folder ? [] : await Promise.all(sources.map((s, i) => datasetSource(s, i)))
  const src = sourceOptions(opts, [])
  if (folder?.folder) src.folder = folder.folder
  // An Iceberg path map: its bases are in the open's scope (pathmap.js).
  const pm = await resolvePathMap(opts.pathMap, absoluteURL)
  if (pm && src.folder) src.folder = { ...src.folder, pathMap: pm.map }
  if (pm) src.allow = [...(src.allow ?? []), ...pm.allow]
  const rootPath = list.some((s) => s.file != null) ? await localPath(opts.root) : null
  if (rootPath != null) src.root = rootPath // local files: a root path as the files' (absolute)
  else if (opts.root) {
    try {
      src.root = absoluteURL(opts.root) // the form of the files' URLs (a relative root resolves against the page)
    } catch {
      src.root = String(opts.root) // a Blob path prefix (Node: no base URL)
    }
  }
  if (opts.noHive) src.noHive = true
  if (opts.byPosition) src.byPosition = true
  if (opts.unionSchema) src.unionSchema = true
  const { id, schemaIPC, metadata } = await impl.openDataset(list, src, opts.signal)
  const { tableFromIPC } = await arrow()
  const schema = tableFromIPC(schemaIPC).schema
  return new Dataset(impl, id, schema, metadata)
}

// What ParquetFile and Dataset share: an opened id of the engine, its schema, scans.
class Opened {
  constructor(impl, id, schema, metadata, what) {
    this.impl = impl
    this.id = id
    this.schema = schema
    this.metadata = metadata
    this.closed = false
    Object.defineProperty(this, 'what', { value: what })
  }

  /**
   * Starts a scan lazily (on the first iteration, toTable() or done()).
   * @param {import('../index.d.ts').ScanOptions} [opts]
   */
  scan(opts = {}) {
    if (this.closed) throw new PqscanError('closed', `pqscan: the ${this.what} is closed`)
    return new Scan(this, opts)
  }

  /**
   * The plan without reading data: runs the engine with `explain: true`, which reads the footer,
   * page indexes, bloom filters and dictionaries it needs, then stops before the data pages.
   * The report tells what a real scan would skip (row groups and pages per level) and fetch
   * (explainDataBytes, explainDataRequests).
   * @returns {Promise<object>} the engine's report
   */
  async explain(opts = {}) {
    const s = this.scan({ ...opts, explain: true, raw: true })
    for await (const _ of s) void _
    return s.report
  }

  /** @internal The engine's messages of one scan of this file or dataset (Scan). */
  iterate(opts, hooks) {
    return this.impl.scan(this.id, opts, hooks)
  }

  close() {
    if (this.closed) return
    this.closed = true
    this.impl.closeFile(this.id)
  }

  /**
   * SELECT count(*) … WHERE opts.where, in the engine's count mode: row groups and pages whose
   * statistics prove every row matches are counted from their row counts, those that prove
   * none are skipped, and only the others read the predicate columns (without a where: the
   * footer alone). report.rowsCountedFromMetadata says how many rows needed no data. Over a
   * dataset the files' counts are summed: files the partition values or Delta statistics
   * rule out cost nothing, a file they prove all-match is counted from the Delta log's
   * numRecords (no request) or its footer.
   * @returns {Promise<{count: number, report: object}>}
   */
  async count(opts = {}) {
    const s = this.scan({ ...opts, columns: undefined, count: true, raw: true })
    const { tableFromIPC } = await arrow()
    let count = null
    for await (const b of s) {
      const t = tableFromIPC(b)
      if (t.numRows === 1) count = Number(t.getChild('count').get(0))
    }
    if (count === null) throw new PqscanError('scan', 'pqscan: the count scan returned no count')
    return { count, report: s.report }
  }

  /**
   * SELECT min(column), max(column) … WHERE opts.where, in the engine's minMax mode: row
   * groups that wholly match and whose statistics are exact give their bounds from the footer,
   * the others read the column's candidate pages. min and max are null when no matching row
   * has a value; report.rowGroupsFromMetadata says how many row groups needed no data. Over a
   * dataset the files' answers are folded: a file needing no residual predicate is answered
   * from the Delta log's exact minValues/maxValues (not strings, which may be truncated, nor
   * floats) or its partition value without a request (report.rowsCountedFromMetadata).
   * @returns {Promise<{min: unknown, max: unknown, report: object}>}
   */
  async minMax(column, opts = {}) {
    const s = this.scan({ ...opts, columns: undefined, minMax: column, raw: true })
    const { tableFromIPC } = await arrow()
    let out = null
    for await (const b of s) {
      const t = tableFromIPC(b)
      if (t.numRows === 1) out = { min: t.getChild('min').get(0), max: t.getChild('max').get(0) }
    }
    if (out === null) throw new PqscanError('scan', 'pqscan: the min/max scan returned no answer')
    return { ...out, report: s.report }
  }
}

/**
 * Several Parquet files read as one table (openDataset). scan() is ParquetFile's; the report
 * adds filesTotal, filesAfterPartitions, filesRead and one line per file (files). explain()
 * runs over every file a scan would read.
 */
export class Dataset extends Opened {
  /** @internal */
  constructor(impl, id, schema, metadata) {
    super(impl, id, schema, metadata, 'dataset')
    // schema: the table's (the first file's columns, then the partition columns).
    // metadata: { files, numFiles, first: {url, fileSize, etag, lastModified}, http } of the open.
    /** The files' URLs (or Blob paths), in table order. */
    this.files = metadata.files
  }
}

export class ParquetFile extends Opened {
  /** @internal */
  constructor(impl, id, schema, metadata) {
    // schema: apache-arrow Schema of the whole file, as scans return it.
    // metadata: { url, fileSize, numRowGroups, numRows, etag, lastModified, createdBy?, keyValue?, http }
    super(impl, id, schema, metadata, 'file')
  }
}

export class Scan extends EventTarget {
  /** @internal */
  constructor(file, opts) {
    super()
    this.file = file
    this.opts = opts
    /** The engine's report (internal/scan/report.go) once the scan completed; null before. */
    this.report = null
    /** HTTP counters of this scan: requests, bytes, retries, roundTrips. */
    this.http = null
    /** Latest progress: phase, bytesPlanned, bytesFetched, requests, roundTrips, batches, rowsReturned. */
    this.progress = null
    this.started = false
    this.control = {} // runtime filters (tighten.js)
    this.ctrl = new AbortController()
    if (opts.signal) {
      if (opts.signal.aborted) this.ctrl.abort(abortReason(opts.signal))
      else opts.signal.addEventListener('abort', () => this.ctrl.abort(abortReason(opts.signal)), { once: true })
    }
  }

  /** Aborts the scan: in-flight requests are cancelled and the iteration throws the reason. */
  cancel(reason) {
    this.ctrl.abort(reason ?? new DOMException('The scan was aborted.', 'AbortError'))
  }

  /**
   * A runtime filter: ANDs `where` (WHERE syntax: a range, an IN list of up to ~100k keys such
   * as a join's build side) to the running scan's predicate. It applies from the scan's next
   * round of requests: the row groups and pages it excludes by statistics, dictionaries, bloom
   * filters or page index are never requested, and the rows not yet read are filtered exactly.
   * Batches already yielded, and those of the round in flight, stay as they were. Resolves
   * once the engine took it (before the first iteration: at its start); rejects with a
   * PqscanError (code "options") when the conjunct does not parse or bind, or for a count,
   * minMax or orderBy scan already under way, or a dataset scan; the scan goes on unchanged.
   * After the scan ended it does nothing.
   */
  tighten(where) {
    if (typeof where !== 'string' || where.trim() === '') return Promise.reject(new PqscanError('options', 'pqscan: tighten needs a WHERE string'))
    return tightenVia(this.control, where)
  }

  async *[Symbol.asyncIterator]() {
    if (this.started) throw new PqscanError('options', 'pqscan: a scan can be iterated once; call file.scan() again')
    this.started = true
    const onProgress = (p) => {
      this.progress = p
      try {
        this.opts.onProgress?.(p)
      } catch {}
      this.dispatchEvent(Object.assign(new Event('progress'), { detail: p }))
    }
    const it = this.file.iterate(this.opts, { signal: this.ctrl.signal, onProgress, control: this.control })
    try {
      yield* this.consume(it)
    } finally {
      closeTighten(this.control)
    }
  }

  async *consume(it) {
    // apache-arrow is imported at the first batch, not before the first pull: `it` starts the
    // engine (a lazy engine's Worker and module) only when pulled, and the engine starts the
    // import once its module is compiled (afterCompile), off the compile's CPU.
    let tableFromIPC = null
    for await (const m of it) {
      if (m.type === 'batch') {
        if (this.opts.raw) {
          yield m.ipc
        } else {
          tableFromIPC ??= (await arrow()).tableFromIPC
          const t = tableFromIPC(m.ipc)
          for (const b of t.batches) yield b
        }
      } else if (m.type === 'done') {
        this.report = m.report
        this.http = m.http
        this.dispatchEvent(Object.assign(new Event('done'), { detail: m.report }))
      }
    }
  }

  /** Reads every batch into one apache-arrow Table. */
  async toTable() {
    const batches = [] // apache-arrow: imported when the first batch needs it (consume)
    let schema = null
    for await (const b of this) {
      if (this.opts.raw) {
        const t = (await arrow()).tableFromIPC(b)
        batches.push(...t.batches)
        schema ??= t.schema
      } else {
        batches.push(b)
        schema ??= b.schema
      }
    }
    const { Table } = await arrow()
    if (batches.length > 0) return new Table(batches)
    return new Table(projectSchema(this.file.schema, this.opts.columns))
  }

  /** Runs the scan to completion without keeping the rows; resolves to the report. */
  async done() {
    for await (const _ of this) void _
    return this.report
  }
}

// The schema of an empty result: the selected top-level fields (a dotted path keeps its
// top-level field whole; the engine's own batches narrow structs).
function projectSchema(schema, columns) {
  if (!columns || columns.length === 0) return schema
  const names = [...new Set(columns.map((c) => String(c).split('.')[0]))]
  return schema.select(names)
}
