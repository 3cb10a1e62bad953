// Types of the `pqscan` package (hand-written; the implementation is src/*.js).
import type { Schema, RecordBatch, Table } from 'apache-arrow'

/** Error codes: the Go host's sentinels as strings. */
export type ErrorCode =
  | 'http' | 'bad-content-range' | 'cors' | 'file-changed' | 'encoding' | 'short-body'
  | 'too-large' | 'out-of-range' | 'scan' | 'trap' | 'abi' | 'closed' | 'options'
  /** A ListObjectsV2 page that is not a complete listing (malformed, an <Error>, truncated, looping). */
  | 'listing'
  /** A source that cannot be opened or read: not a URL, path, Blob, buffer or AsyncBuffer; a missing or unreadable local file; an AsyncBuffer whose slice failed. */
  | 'source'
  /** The engine asked again for the ranges it had just been given, without progress. */
  | 'stalled'
  /** A Delta log the engine cannot replay: malformed or truncated commits, a version gap, a version that does not exist. The message names the log object. */
  | 'delta'
  /** An Iceberg table's metadata the engine cannot read: malformed metadata JSON, a manifest list or manifest, a snapshot that does not exist, a time before the first snapshot, a missing metadata file, manifest list or manifest, a file outside the table location. The message names the file. */
  | 'iceberg'
  /** A Delta or Iceberg table that needs a feature this reader does not implement (an unknown Delta reader feature; Iceberg deletes this build does not apply, ORC or Avro data files); the message names the feature or file. */
  | 'unsupported'
  /** A table's metadata (a Delta log entry), a listed key or a redirect named a location outside the open's scope (the sources named and `allow`); the message names the entry. Nothing was requested from it. */
  | 'scope'
  /** The engine's errors, coded as the native Go engine's sentinels (pqscan.ErrCorrupt, …; internal/protocol): a file whose metadata contradicts itself or the file, or a page whose CRC contradicts its bytes (`noVerifyCrc` reads it). Any other engine failure (a `where` that does not parse, a column that does not exist) is 'scan'. */
  | 'corrupt'
  /** The bytes are not a Parquet file (no PAR1 magic, an impossible footer). */
  | 'not-parquet'
  /** The file uses Parquet Modular Encryption, which pqscan does not read. */
  | 'encrypted'
  /** A page, dictionary, footer or batch would exceed the engine's `memoryCap`. */
  | 'memory-cap'
  /** A dataset file's column cannot be read as the table's (a type that does not widen into the table's); the message names the file and the column. */
  | 'schema-mismatch'
  /** The lean module met a page codec it leaves out (BROTLI, LZ4) and the full module could not be loaded (the bridge otherwise reruns the query in it). */
  | 'needs-full-module'

export class PqscanError extends Error {
  readonly name: 'PqscanError'
  readonly code: ErrorCode
  /** HTTP status, for HTTP errors. */
  readonly status?: number
  /** The file the error comes from (its URL, or a Blob's or local file's path), for errors of one of a dataset's files: its HTTP errors, and the engine's errors about it (a corrupt footer, a schema that does not match the table's); absent for errors of the table as a whole. */
  readonly file?: string
}

/**
 * Where the module comes from: a URL (relative URLs resolve against the page; in Node also a
 * path or file: URL), bytes, an already-compiled module (e.g. `await WebAssembly.compileStreaming(fetch(u))`,
 * kept across engines), or a Response / a promise of one. A response served as application/wasm
 * is compiled with WebAssembly.compileStreaming (Chromium then caches the compiled code).
 */
export type WasmSource = string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module | Response | PromiseLike<Response>

/**
 * A random-access source as hyparquet defines it (`asyncBufferFromUrl`, `cachedAsyncBuffer`,
 * `asyncBufferFromFile`, or your own): its size and a slice of it. The bytes must not change
 * while the file is open. In Worker mode the slices run in the calling thread.
 */
export interface AsyncBuffer {
  byteLength: number
  slice(start: number, end?: number): ArrayBuffer | ArrayBufferView | PromiseLike<ArrayBuffer | ArrayBufferView>
}

/**
 * What openParquet opens: a URL (read with HTTP range requests); in Node a path (relative to
 * the working directory, or absolute) or a file: URL, read by ranges with FileHandle.read; a
 * Blob / File (also Node's `fs.openAsBlob`), an ArrayBuffer or typed array, or an AsyncBuffer,
 * read by slices.
 */
export type ParquetSource = string | URL | Blob | ArrayBuffer | ArrayBufferView | AsyncBuffer

export interface EngineOptions {
  /** Run the module in a Worker (default true). false runs it in the calling thread: its WASI shim busy-waits, so avoid that on a page's main thread. */
  worker?: boolean
  /** The module single files open in; default: the lean pqscan-lean.wasm next to the package (single files, no BROTLI decoder), with pqscan.wasm as wasmFull. Given alone, it is the only module (it must be the full one for datasets and BROTLI files). */
  wasm?: WasmSource
  /** The full module (datasets, Delta, Iceberg, every codec), compiled when a query needs it; default: pqscan.wasm next to the package when wasm is not given. A URL, bytes or a WebAssembly.Module (what a Worker can be sent). */
  wasmFull?: string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module
  /** Alias of wasm. */
  wasmURL?: string | URL
  /** URL of the worker script; default: worker.js next to the bridge's index (src/ or dist/). */
  workerURL?: string | URL
  /** An idle instance whose memory grew past this many bytes is dropped (wasm memory never shrinks); default 1 GiB. */
  retireBytes?: number
  /** Workers a scan of a single file may spread over (worker: true only): the engine's Worker plans the scan and, when at least two units of 1 MiB of compressed data are left after pruning, runs its units on this many Workers, batches in file order. Default: one less than navigator.hardwareConcurrency (Node: os.availableParallelism()), the calling thread keeping a core to take the batches, capped at 4; 1 (one Worker, no pool) on two cores or fewer. The other Workers start on the first scan worth splitting. A dataset's scan runs in runs of whole files, a file of two units or more in runs of its rows (an offset/limit only over a Delta or Iceberg table, whose log gives the files' rows, in whole files). Scans with count, minMax, orderBy, explain, or where with offset/limit run as one session. */
  workers?: number
  /** An engine started ahead of its first query (init(), engine.ready), or whose first open is not followed at once by a scan, that goes unused for 200 ms then scans a small embedded file twice, one engine call per task, stopping at the first real call, so that V8 has compiled the code a first query runs (it compiles each function at its first call). Default true; false leaves an idle engine idle. An engine started by its first query never warms up. */
  warmup?: boolean
}

export interface Engine {
  readonly worker: boolean
  /** Resolves once the Worker (if any) runs and the module is compiled and instantiated; the first access starts that. A failed start rejects, and the next access tries again. */
  readonly ready: Promise<void>
  openParquet(url: ParquetSource, opts?: OpenOptions): Promise<ParquetFile>
  /** query() on this engine. */
  query(url: ParquetSource, opts?: OpenOptions & ScanOptions & { raw?: false }): Scan<RecordBatch>
  query(url: ParquetSource, opts: OpenOptions & ScanOptions & { raw: true }): Scan<Uint8Array>
  openDataset(sources: DatasetSource[] | string | URL, opts?: DatasetOptions): Promise<Dataset>
  /** Terminates the Worker (if any). Files opened with this engine stop working. */
  terminate(): void
}

/** A store of the metadata cache: values by key (get gives null for a missing key); it may drop any value at any time. Values are checksummed entries: anything else is ignored. */
export interface MetadataStore {
  get(key: string): Promise<Uint8Array | null> | Uint8Array | null
  put(key: string, value: Uint8Array): Promise<void> | void
  delete(key: string): Promise<void> | void
}

export interface OpenOptions extends EngineOptions {
  /** Keeps each http(s) file's footer and page index (and a table's immutable log objects) across page loads and processes, keyed by URL, size and ETag (else Last-Modified): a returning open makes no request, a returning scan with the same options fetches the data ranges it read last time at once (query(): while the engine starts), and a file replaced since is read again. Default: IndexedDB in browsers (page and Worker), none in Node; a string is a folder (Node); false turns it off. report.metadataFromCache says what came from it. */
  metadataCache?: boolean | string | MetadataStore
  /** fetch implementation; in Worker mode its calls are proxied to the calling thread. Default globalThis.fetch. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>
  /** Extra request headers (e.g. Authorization). Non-safelisted headers cost a CORS preflight. */
  headers?: HeadersInit
  /** Locations besides the sources named that a table's metadata, a listing or a redirect may make the bridge read (URL prefixes; in Node also local folders). Anything else fails with code 'scope' before a request is sent. A prefix ending in '/' is a folder; any other covers that object and the folder of its name. */
  allow?: string[]
  /** Origins ('https://cdn.example.com') a redirect may lead to outside the scope; by default redirects are followed only within it. In a browser the browser follows redirects and the final URL is checked on arrival (the request has left already): see strictRedirects. */
  redirectOrigins?: string[]
  /** In a browser, follow no redirect at all (fetch's redirect: 'error'), since the browser hides a redirect's target until it has been requested. Node checks each hop before requesting it whatever this says. */
  strictRedirects?: boolean
  /** Cancels opening (the footer read). */
  signal?: AbortSignal
  /** The file size when known: plain CORS-safelisted `bytes=a-b` requests, no probe. */
  fileSize?: number
  /** Parallel requests per scan (default 6). */
  concurrency?: number
  /** Retries of 5xx/429/network errors (default 4), with backoff (backoffMs 100, maxBackoffMs 5000; Retry-After capped at maxRetryAfterMs 10000). */
  maxRetries?: number
  backoffMs?: number
  maxBackoffMs?: number
  maxRetryAfterMs?: number
  /** Size of the first (footer) read, default 64 KiB (the engine's default tail). */
  tailSize?: number
  /** Cap of a whole-file body when the server ignores Range (default 256 MiB). */
  maxWholeBody?: number
  /** An engine from createEngine (default: a shared one per worker/wasm setting). */
  engine?: Engine
}

export interface FileMetadata {
  url: string
  fileSize: number
  numRowGroups: number
  numRows: number
  etag?: string
  lastModified?: string
  /** The writer (the footer's created_by), when the module reports file metadata. */
  createdBy?: string
  /** The footer's key-value metadata, when the module reports file metadata. */
  keyValue?: { key: string; value: string }[]
  /** HTTP counters of the footer read. */
  http: HttpStats
}

export interface HttpStats {
  requests: number
  bytes: number
  retries: number
  roundTrips: number
}

/**
 * The engine's options (scan.Options in internal/scan/options.go; src/options.js has the same
 * table). One `name?: type` a line with its `@default`: internal/scan/options_jsbridge_test.go
 * checks this interface against the Go definition.
 */
export interface EngineScanOptions {
  /** Top-level names or dotted paths to nested fields; empty: all columns. @default [] */
  columns?: string[]
  /** A SQL WHERE subset, e.g. "x > 3 AND s = 'k'"; empty: no filter. @default '' */
  where?: string
  /** At most this many rows (after offset); 0: no limit. @default 0 */
  limit?: number
  /** Skip this many matching rows first. @default 0 */
  offset?: number
  /** Rows per batch. @default 65536 */
  batchRows?: number
  /** Bytes the engine may allocate for one page, dictionary or batch (256 MiB). @default 268435456 */
  memoryCap?: number
  /** Size of the first (footer) read (64 KiB); also the bridge's probe when the size is unknown. @default 65536 */
  tailSize?: number
  /** Emit dictionary-encoded string columns as Arrow dictionaries. @default false */
  dictionaryArrays?: boolean
  /** The cost of one more round trip in bytes (256 KiB), for late materialization and coalescing. @default 262144 */
  roundTripBytes?: number
  /** Requested ranges at most this far apart are fetched as one (8 KiB; 16 KiB for a file or dataset read over HTTP, where each request costs more than the bytes). @default 8192 */
  maxGap?: number
  /** Count the matching rows instead of returning them: one batch of one row, an int64 column "count" (what count() runs); statistics that prove every row of a row group or page matches answer for it (report.rowsCountedFromMetadata). @default false */
  count?: boolean
  /** SELECT min(c), max(c) for this flat column instead of rows: one batch of one row, columns "min" and "max" of its type (what minMax() runs); row groups that wholly match and have exact statistics answer from the footer (report.rowGroupsFromMetadata). @default '' */
  minMax?: string
  /** Add an int64 column of this name, first, with each row's position in the file (0-based), right after every level of skipping; a where on it prunes like a slice (only the pages holding those rows are read). @default '' */
  rowIndex?: string
  /** Sort the rows: 'col [ASC|DESC] [NULLS FIRST|LAST][, col2 ...]' over top-level primitive columns, in DuckDB's order (nulls last, NaN above every number, ties by position in the file). With a limit it is a top-k: pages and row groups that cannot beat the k-th row found so far are never fetched (report.topkSkipped); without one the result is sorted within memoryCap. Over a dataset each file's sorted rows are merged (ties by file, then position); with a limit files are visited best bound first (Delta statistics, else footers) and a file whose bound cannot beat the k-th row is skipped whole (before its footer when the Delta log bounds every file); a partition column as a key bounds its files exactly (no footer of an excluded file is read). @default '' */
  orderBy?: string
  /** Stop after planning: no batch, the report tells what a scan would skip and fetch (what explain() runs). @default false */
  explain?: boolean
  /** Disable every skipping level except limit/offset (testing). @default false */
  noPrune?: boolean
  /** Inside a page that holds matching rows, skip decoding runs of at least this many filtered-out rows (Impala's parquet_late_materialization_threshold); a negative value decodes whole pages (report.valuesSkipped). @default 20 */
  lateMaterializationThreshold?: number
  /** Switch single levels off, for debugging and measuring what each saves: any of 'statistics', 'dictionary', 'bloom', 'pageIndex', 'lateMaterialization'; the report lists them (levelsOff). @default [] */
  disable?: string[]
  /** Read pages without checking their CRCs. By default a stored CRC is checked and a mismatch is an error; a CRC of 0 is taken as not written (writers such as Parquet.jl write 0). report.pagesCrcUnverified counts the pages whose CRC went unchecked either way. @default false */
  noVerifyCrc?: boolean
  /** Return VARIANT columns (Parquet VARIANT, Delta and Iceberg `variant`) as their JSON text: a Utf8 column with the `arrow.json` extension, null where the variant is null (`JSON.parse` each value). By default a variant is the canonical `arrow.parquet.variant` extension, a struct of its `metadata` and `value` binaries, unshredded. @default false */
  variantJSON?: boolean
}

export interface ScanOptions extends EngineScanOptions {
  /** Yield raw Arrow IPC streams (Uint8Array) instead of RecordBatches. */
  raw?: boolean
  signal?: AbortSignal
  onProgress?: (p: Progress) => void
}

export interface Progress {
  phase: 'fetch' | 'decode' | 'batch' | 'done'
  /** Bytes of the ranges the engine asked for so far. */
  bytesPlanned: number
  /** Bytes received over HTTP so far (for the file; concurrent scans of one file share the count). */
  bytesFetched: number
  requests: number
  roundTrips: number
  batches: number
  rowsReturned: number
  /** The file size; for a dataset, the sum of the sizes known so far. */
  fileSize: number
  /** Datasets only: files whose scan started so far (the report's filesRead). */
  filesRead?: number
}

/** The engine's report (internal/scan/report.go). */
export interface Report {
  fileSize: number
  rowGroupsTotal: number
  rowGroupsAfterSlice: number
  rowGroupsAfterStats: number
  rowGroupsAfterDictionary: number
  rowGroupsAfterBloom: number
  pagesTotal: number
  pagesAfterPageIndex: number
  pagesAfterLateMaterialization: number
  rowsTotal: number
  rowsScanned: number
  rowsMatched: number
  rowsReturned: number
  /** count: the matching rows counted from row counts (footer, offset index) without reading data. */
  rowsCountedFromMetadata?: number
  /** minMax: the row groups whose min and max came from their statistics without reading data. */
  rowGroupsFromMetadata?: number
  /** What of the file's metadata came from the metadata cache (['tail']: the footer and page index; 'plan': the data ranges a scan with the same options read last time, fetched at once before the engine asked), and the requests and round trips reading the tail cost the visit that stored it. */
  metadataFromCache?: string[]
  requestsSaved?: number
  roundTripsSaved?: number
  /** The metadata store's last error (a quota, a full disk): never a failed scan. */
  metadataCacheError?: string
  bytesRequested: number
  bytesPushed: number
  requests: number
  roundTrips: number
  explainDataBytes?: number
  explainDataRequests?: number
  dictionariesLazy: number
  lateMaterialization?: string
  /** The levels switched off with the disable option. */
  levelsOff?: string[]
  phasesMs?: Record<string, number>
  log?: string[]
  /** Datasets: the files listed. */
  filesTotal?: number
  /** Datasets: the files left after the partition values (Hive directories) were checked against the WHERE. */
  filesAfterPartitions?: number
  /** Datasets: the files whose footer was read. */
  filesRead?: number
  /** Datasets: the files read whose scan evaluated no filter (partition values, file statistics or a missing column decided it for every row). */
  filesNoResidual?: number
  /** Row groups whose statistics proved every row matches: returned without the filter. */
  rowGroupsAllMatch?: number
  /** Rows of filtered row groups whose pages' column index proved a full match: the filter skipped them. */
  rowsAllMatch?: number
  /** orderBy with a limit: key pages (or row groups) the runtime bound skipped, unfetched, as unable to beat the k-th row found so far. */
  topkSkipped?: number
  /** Runtime filters (scan.tighten) the scan accepted. */
  runtimeFilters?: number
  /** Row groups (or row-group parts) runtime filters excluded before they were requested. */
  rowGroupsSkippedRuntime?: number
  /** Candidate rows runtime filters removed before their pages were requested. */
  rowsSkippedRuntime?: number
  /** Pages decoded whose CRC was not checked: a CRC of 0 (a writer's placeholder), or every CRC with noVerifyCrc. */
  pagesCrcUnverified?: number
  /** Datasets: one line per file, in table order. */
  files?: FileReport[]
  /** One line per row group (files with at most 10,000 row groups). */
  rowGroups?: RowGroupReport[]
  /** A scan spread over Workers (EngineOptions.workers): the units it ran and the Workers they ran on. */
  units?: number
  threads?: number
  /** A scan spread over Workers: the most bytes its units running (their compressed bytes) and the batches waiting for their turn held at once; within memoryCap but for the unit the output waits for. */
  peakBytes?: number
  [key: string]: unknown
}

/** One row group of a report (internal/scan/report.go RowGroupReport). */
export interface RowGroupReport {
  index: number
  rows: number
  /** 'slice', 'statistics', 'bloom', 'dictionary', 'pageIndex' or 'filter'; absent when rows were returned. */
  skippedBy?: string
  pagesTotal: number
  pagesRead: number
  rowsMatched: number
  /** Per column read that has an offset index: one letter per data page, in file order: 'R' read, 'I' skipped by the page index, 'L' by late materialization, 'S' by offset/limit (or not reached), 'P' planned (explain), 'T' excluded by a runtime filter (scan.tighten) before it was requested. */
  columns?: { column: string; pages: string }[]
}

/** One file of a dataset scan's report (internal/scan/report.go FileReport). */
export interface FileReport {
  /** The file as the engine knows it: its URL without query and fragment, or a Blob's path. */
  path: string
  /** Set when the file gave no row: 'partition' (its partition values cannot match, no byte was requested), or what left it without a matching row after its footer was read ('statistics', 'bloom', 'dictionary', 'filter', or 'schema': the WHERE compares a column the file lacks, so no row of it can match and its data is not read). */
  skippedBy?: string
  /** Rows of the file, from its footer (0 when the footer was not read). */
  rows: number
  bytesRequested: number
  rowsReturned: number
  /** The file's row groups, once its scan ended (a dataset keeps 10,000 lines at most). */
  rowGroups?: RowGroupReport[]
}

export class ParquetFile {
  readonly schema: Schema
  readonly metadata: FileMetadata
  scan(opts?: ScanOptions & { raw?: false }): Scan<RecordBatch>
  scan(opts: ScanOptions & { raw: true }): Scan<Uint8Array>
  /** The plan without data pages: the engine's explain mode (footer, page indexes, bloom filters, dictionaries, then stop). */
  explain(opts?: Omit<ScanOptions, 'raw' | 'onProgress'>): Promise<Report>
  /** SELECT count(*) … WHERE opts.where: row groups and pages whose statistics decide are counted from metadata, only the others read the predicate columns; without a where, the footer alone. Offset and limit apply to the count. */
  count(opts?: Omit<ScanOptions, 'raw' | 'onProgress' | 'count' | 'columns'>): Promise<{ count: number; report: Report }>
  /** SELECT min(column), max(column) … WHERE opts.where (null when no matching row has a value; NaN sorts above every float): row groups that wholly match and whose statistics are exact answer from the footer, the others read the column's candidate pages. Values are as apache-arrow returns them (bigint for 64-bit integers). */
  minMax(column: string, opts?: Omit<ScanOptions, 'raw' | 'onProgress' | 'count' | 'columns' | 'minMax' | 'limit' | 'offset' | 'rowIndex'>): Promise<{ min: unknown; max: unknown; report: Report }>
  close(): void
}

/** Emits 'progress' and 'done' events (Event with a `detail` field). Iterable once. */
export class Scan<T = RecordBatch> extends EventTarget implements AsyncIterable<T> {
  /** The engine's report, after completion. */
  readonly report: Report | null
  /** HTTP counters of this scan, after completion. */
  readonly http: HttpStats | null
  readonly progress: Progress | null
  [Symbol.asyncIterator](): AsyncIterator<T>
  toTable(): Promise<Table>
  /** Runs to completion without keeping rows; resolves to the report. */
  done(): Promise<Report>
  cancel(reason?: unknown): void
  /**
   * A runtime filter: ANDs `where` (a range, an IN list of up to ~100k keys such as a join's
   * build side) to the running scan's predicate, from its next round of requests: row groups
   * and pages it excludes are never requested, rows not yet read are filtered exactly; batches
   * already yielded (and the round in flight) stay. Rejects with a PqscanError (code "options")
   * when the conjunct does not parse or bind, or on a count/minMax/orderBy scan under way or a
   * dataset scan; the scan then goes on unchanged. After the scan ended it does nothing.
   */
  tighten(where: string): Promise<void>
}

/**
 * A file of a dataset: a URL (http(s); relative URLs resolve against the page; in Node also a
 * path or file: URL, whose directories give the Hive columns), a URL with its size when known
 * (no size probe), a Blob / File / AsyncBuffer, one with the path that gives its Hive
 * directories (e.g. `year=2024/part-0.parquet`), an ArrayBuffer or a typed array.
 */
export type DatasetSource =
  | ParquetSource
  | { url: string | URL; size?: number; path?: string }
  | { blob: Blob | AsyncBuffer; path?: string }

export interface DatasetOptions extends Omit<OpenOptions, 'fileSize'> {
  /** Parallel requests of a scan over all the dataset's files together (default 6). */
  concurrency?: number
  /** The part of every file's URL (or Blob path) before its Hive key=value directories; needed only when that part itself has a segment with '='. Default: none (every directory segment with '=' is a partition). */
  root?: string | URL
  /** No Hive partition columns from the paths. */
  noHive?: boolean
  /** Match each file's columns to the table's by position instead of by name (for files whose writer renamed columns). */
  byPosition?: boolean
  /** The table schema is the union of all files' columns (each typed by the widest of its types) instead of the first file's; opening then reads every footer. */
  unionSchema?: boolean
  /** With a Delta table's folder: the snapshot version to read (default: the latest). */
  version?: number
  /** With a Delta table's folder: read the snapshot committed at or before this time (a Date, an ISO string or milliseconds since the epoch) instead: by inCommitTimestamp where the table enables it, else by the commit files' modification times (a local file's, or the LastModified of a listing; a server that does not list cannot answer it). With an Iceberg table: the snapshot current at this time (the metadata's snapshot-log; before the first snapshot is an error). Not with `version` or `snapshotId`. */
  asOf?: Date | string | number
  /** With an Iceberg table (a folder holding metadata/, or a `*.metadata.json` path or URL): the snapshot id to read (default: the current one); a bigint or a decimal string, as ids pass 2^53. A snapshot other than the current reads with its own schema. */
  snapshotId?: bigint | string | number
  /** With an Iceberg table: read the files its metadata names under a prefix (as written: `s3://…`, `hdfs://…`) from a base (an http(s) URL; in Node also a local folder or file: URL; in a browser a relative URL resolves against the page), the longest prefix at a '/' boundary winning. `{prefix: base}`, or the CLI's text form `"PREFIX=BASE,…"`. Each base is in the open's scope as an `allow` prefix is; a malformed map fails with code 'options'. */
  pathMap?: Record<string, string> | string
  /** Listing a folder or glob over HTTP: path-style bucket URLs (`<origin>/<bucket>/<key>`), as listDataset. */
  pathStyle?: boolean
}

export interface DatasetMetadata {
  /** The files (URLs, or Blob paths), in table order. */
  files: string[]
  numFiles: number
  /** The first file, whose footer gave the schema (absent for an empty Delta snapshot, whose schema is the log's). */
  first?: { url: string; fileSize: number; etag?: string; lastModified?: string }
  /** HTTP counters of the open (the first file's footer read). */
  http: HttpStats
  /** Set when the source was a Delta table: the snapshot version read; resumed when its log was replayed from the metadata cache's state of version resumedFrom (only the commitsRead commits after it read). */
  delta?: { version: number; resumed?: boolean; resumedFrom?: number; commitsRead?: number }
  /** Set when the source was an Iceberg table: the snapshot id read (decimal text: an int64). */
  iceberg?: { snapshotId: string }
  /** The files whose tail (footer, page indexes) came from the metadata cache instead of a request. */
  tailsFromCache?: number
  /** The table log objects (Iceberg metadata files named by a UUID, manifest lists, manifests) the metadata cache gave, by path. */
  objectsFromCache?: string[]
  /** The requests those cost the reader that stored them. */
  requestsSaved?: number
}

/**
 * Several Parquet files read as one table (openDataset). Scans read the files in the given order;
 * a WHERE on a partition column skips files before any byte of them is read; the footers of
 * the surviving files are requested in one round; with a limit or offset the files are read one
 * after the other and the scan stops as soon as the limit is met. Each file's source (and so its
 * ETag / Last-Modified, sent back as If-Match / If-Unmodified-Since) is kept for the dataset's life.
 */
export class Dataset {
  /** The table schema: the first file's columns, then the partition columns. */
  readonly schema: Schema
  /** The files (URLs, or Blob paths), in table order. */
  readonly files: string[]
  readonly metadata: DatasetMetadata
  scan(opts?: ScanOptions & { raw?: false }): Scan<RecordBatch>
  scan(opts: ScanOptions & { raw: true }): Scan<Uint8Array>
  /** The plan without data pages, over every file a scan would read. */
  explain(opts?: Omit<ScanOptions, 'raw' | 'onProgress'>): Promise<Report>
  /** SELECT count(*) over the table … WHERE opts.where: the files' counts summed. Files the partition values or Delta statistics rule out cost nothing; a file they prove all-match is counted from the Delta log's numRecords (no request) or its footer; the others as ParquetFile.count. report.rowsCountedFromMetadata says how many rows needed no data. Offset and limit apply to the sum. */
  count(opts?: Omit<ScanOptions, 'raw' | 'onProgress' | 'count' | 'columns'>): Promise<{ count: number; report: Report }>
  /** SELECT min(column), max(column) over the table (a top-level or partition column): the files' answers folded. A file needing no residual predicate is answered from the Delta log's exact minValues/maxValues (never strings, which writers truncate, nor floats) or its partition value, with no request; the others as ParquetFile.minMax. */
  minMax(column: string, opts?: Omit<ScanOptions, 'raw' | 'onProgress' | 'count' | 'columns' | 'minMax' | 'limit' | 'offset' | 'rowIndex'>): Promise<{ min: unknown; max: unknown; report: Report }>
  close(): void
}

/**
 * Opens several Parquet files as one table, in the given order, reading the first file's footer.
 * A single string or URL may be a folder (ending in '/'): a Delta table when it has a
 * `_delta_log/` (its log is replayed inside the module; `version` reads an older snapshot),
 * otherwise every `*.parquet` below it (over HTTP from a ListObjectsV2 listing; in Node from
 * the file system); or a glob (`*`, `**`, `[...]`; in Node `?` too).
 */
export function openDataset(sources: DatasetSource[] | string | URL, opts?: DatasetOptions): Promise<Dataset>

/**
 * Opens a Parquet file: a URL (read with HTTP range requests), a local path or file: URL in
 * Node, or a Blob / File / ArrayBuffer / typed array / AsyncBuffer (read by slices; the HTTP
 * options do not apply).
 */
export function openParquet(url: ParquetSource, opts?: OpenOptions): Promise<ParquetFile>
/**
 * Opens a Parquet file and scans it in one call: `(await openParquet(url, opts)).scan(opts)`
 * as one lazy Scan, the file closed when the scan ends. With the engine in its Worker the open
 * and the scan reach the Worker together, so the scan starts there as soon as the footer is
 * decoded (no trip of the schema to the calling thread and of the scan back).
 */
export function query(url: ParquetSource, opts?: OpenOptions & ScanOptions & { raw?: false }): Scan<RecordBatch>
export function query(url: ParquetSource, opts: OpenOptions & ScanOptions & { raw: true }): Scan<Uint8Array>
export function createEngine(opts?: EngineOptions): Engine
/**
 * Starts an engine before the first query (the Worker, the module's compilation, an instance)
 * and resolves to it: without `engine`, the default engine that openParquet / openDataset use
 * for the same worker, wasm and workerURL options.
 */
export function init(opts?: EngineOptions & { engine?: Engine }): Promise<Engine>
export function terminateDefaultEngines(): void

/** One file of a listing: its URL, object key, size and ETag (unquoted) from ListObjectsV2. */
export interface ListedFile { url: string; key: string; size: number; etag?: string }

/**
 * Lists a folder (a URL ending in '/': every *.parquet below it, hidden and `_` names skipped)
 * or a glob over keys (`*`, `?` written %3F, `[...]`, `**`) with S3 ListObjectsV2, following
 * continuation tokens; virtual-hosted, or path style (the first path segment is the bucket).
 * The result goes to openDataset as is (the sizes save a probe per file). Each page is retried
 * as a range request is (maxRetries, backoffMs, maxBackoffMs, maxRetryAfterMs, with
 * OpenOptions' defaults).
 */
export function listDataset(url: string | URL, opts?: { pathStyle?: boolean; fetch?: typeof fetch; headers?: HeadersInit; signal?: AbortSignal; maxPages?: number; maxRetries?: number; backoffMs?: number; maxBackoffMs?: number; maxRetryAfterMs?: number; /** The module that lists (its pages are parsed in the engine); default: the package's pqscan.wasm. */ wasmFull?: string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module }): Promise<ListedFile[]>
