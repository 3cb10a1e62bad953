// A usage file for the types (index.d.ts, worker.d.ts): every exported function and class,
// every option (Required<…> below makes leaving one out an error, so an option added to the
// types must be exercised here), every source kind, the ./worker export. Checked with
// `tsc --noEmit --strict` (make test-types); test/types.test.js checks that the names
// exported at run time are the ones the types declare.
import * as pq from 'pqscan'
import {
  openParquet, query, openDataset, createEngine, init, terminateDefaultEngines, listDataset, PqscanError,
  ParquetFile, Dataset, Scan,
  type AsyncBuffer, type ListedFile, type DatasetSource, type DatasetOptions, type Engine, type EngineOptions,
  type EngineScanOptions, type ErrorCode, type FileMetadata, type DatasetMetadata, type FileReport,
  type HttpStats, type OpenOptions, type ParquetSource, type Progress, type Report,
  type ScanOptions, type WasmSource,
} from 'pqscan'
import 'pqscan/worker'
import type {} from 'pqscan/worker'
import type { RecordBatch, Table, Schema } from 'apache-arrow'

// Every runtime export, named once: adding an export to the types without a line here fails.
export const exportsUsed: { [K in keyof typeof pq]: true } = {
  openParquet: true, query: true, openDataset: true, createEngine: true, init: true, terminateDefaultEngines: true, listDataset: true,
  PqscanError: true, ParquetFile: true, Dataset: true, Scan: true,
}

declare const blob: Blob
declare const nodeBlob: Blob // await fs.openAsBlob(path)
declare const module: WebAssembly.Module
declare const signal: AbortSignal

const mine: AsyncBuffer = {
  byteLength: 1024,
  slice: (start, end) => new Uint8Array(1024).slice(start, end).buffer,
}
const asyncMine: AsyncBuffer = { byteLength: 8, slice: async () => new ArrayBuffer(8) }
const sources: ParquetSource[] = ['https://x/a.parquet', new URL('https://x/a.parquet'), './a.parquet', '/abs/a.parquet', 'file:///abs/a.parquet', new URL('file:///abs/a.parquet'), blob, nodeBlob, new ArrayBuffer(8), new Uint8Array(8), mine, asyncMine]
const wasms: WasmSource[] = ['/pqscan.wasm', new URL('https://cdn/pqscan.wasm'), new ArrayBuffer(8), new Uint8Array(8), module, fetch('/pqscan.wasm'), new Response(new Uint8Array(8))]

const engineOptions: Required<EngineOptions> = { worker: true, wasm: '/pqscan-lean.wasm', wasmFull: wasms[0] as string, wasmURL: '/pqscan-lean.wasm', workerURL: new URL('https://cdn/worker.js'), retireBytes: 1 << 30, workers: 2, warmup: true }

export async function main(): Promise<void> {
  const started: Engine = await init()
  const engine: Engine = createEngine(engineOptions)
  await engine.ready
  const again: Engine = await init({ engine, worker: false, wasm: module })
  const ok: boolean = started.worker && again.worker

  const open: Required<OpenOptions> = {
    ...engineOptions,
    fetch: (url: string, init: RequestInit) => fetch(url, init),
    headers: { Authorization: 'Bearer x' },
    signal,
    fileSize: 1234,
    concurrency: 6,
    maxRetries: 4,
    backoffMs: 100,
    maxBackoffMs: 5000,
    maxRetryAfterMs: 10000,
    tailSize: 65536,
    maxWholeBody: 256 << 20,
    allow: ['https://example.com/shared/'],
    redirectOrigins: ['https://cdn.example.com'],
    strictRedirects: false,
    metadataCache: false,
    engine,
  }
  for (const s of sources) {
    const f: ParquetFile = await openParquet(s, open)
    const g: ParquetFile = await engine.openParquet(s)
    g.close()
    const schema: Schema = f.schema
    const meta: FileMetadata = f.metadata
    const counts: HttpStats = meta.http
    const kv: string | undefined = meta.keyValue?.[0]?.value
    void [schema, counts, kv, meta.createdBy, meta.etag, meta.lastModified, meta.url, meta.fileSize, meta.numRowGroups, meta.numRows]

    const engineScan: Required<EngineScanOptions> = {
      columns: ['a', 'b.c'], where: 'x > 3', limit: 10, offset: 2, batchRows: 65536, memoryCap: 256 << 20, tailSize: 65536,
      dictionaryArrays: false, roundTripBytes: 256 << 10, maxGap: 8 << 10, explain: false, noPrune: false, lateMaterializationThreshold: 20, disable: ['bloom', 'pageIndex'], count: false, minMax: '', rowIndex: '_row', orderBy: 'x DESC NULLS LAST, a', noVerifyCrc: false, variantJSON: false,
    }
    const scanOpts: Required<Omit<ScanOptions, 'raw'>> = { ...engineScan, signal, onProgress: (p: Progress) => void [p.phase, p.bytesPlanned, p.bytesFetched, p.requests, p.roundTrips, p.batches, p.rowsReturned, p.fileSize, p.filesRead] }
    const scan: Scan<RecordBatch> = f.scan(scanOpts)
    scan.addEventListener('progress', () => {})
    for await (const batch of scan) void batch.numRows
    const report: Report | null = scan.report
    const mm: { min: unknown; max: unknown; report: Report } = await f.minMax('x', { where: 'x > 3' })
    void [mm.min, mm.max, mm.report.rowGroupsFromMetadata]
    const http: HttpStats | null = scan.http
    const progress: Progress | null = scan.progress
    void [report?.rowsReturned, http?.bytes, progress?.phase]
    const raw: Scan<Uint8Array> = f.scan({ raw: true })
    for await (const ipc of raw) void ipc.byteLength
    const table: Table = await f.scan({ where: 'x > 1' }).toTable()
    const done: Report = await f.scan().done()
    const plan: Report = await f.explain({ where: 'x = 1', signal })
    f.scan().cancel(new Error('stop'))
    const tightened: Promise<void> = f.scan({ where: 'x > 1' }).tighten('y IN (1, 2, 3)')
    void [tightened, done.runtimeFilters, done.rowGroupsSkippedRuntime, done.rowsSkippedRuntime]
    const unchecked: Report = await f.scan({ noVerifyCrc: true }).done()
    void unchecked.pagesCrcUnverified
    void [table.numRows, done.rowsTotal, plan.explainDataBytes]
    f.close()
    // One call: openParquet's options and scan's together.
    const q: Scan<RecordBatch> = query(s, { ...open, ...scanOpts })
    for await (const batch of q) void batch.numRows
    const qRaw: Scan<Uint8Array> = query(s, { fileSize: 1234, where: 'x > 1', raw: true })
    const qEngine: Scan<RecordBatch> = engine.query(s, { columns: ['a'] })
    void qEngine
    void [q.report?.rowsReturned, await qRaw.done(), await query(s).toTable()]
  }

  const { fileSize, ...shared } = open // a dataset takes every option of a file but fileSize
  void fileSize
  const dsOpts: Required<DatasetOptions> = {
    ...shared,
    headers: new Headers(),
    root: 'https://x/events/',
    noHive: false,
    byPosition: false,
    unionSchema: true,
    version: 0,
    asOf: 0,
    snapshotId: 1n,
    pathMap: 's3://old/events=https://x/events/',
    pathStyle: false,
  }
  const list: DatasetSource[] = [
    ...sources,
    { url: 'https://x/day=1/a.parquet', size: 10 },
    { url: './day=2/b.parquet', path: 'day=2/b.parquet' },
    { blob, path: 'day=3/c.parquet' },
    { blob: mine, path: 'day=4/d.parquet' },
    { blob: nodeBlob },
  ]
  const ds: Dataset = await openDataset(list, dsOpts)
  const listed: ListedFile[] = await listDataset('https://bucket.example.com/events/', { pathStyle: false, fetch, headers: { a: 'b' }, signal, maxPages: 10 })
  const fromListing: Dataset = await openDataset(listed.map((f) => ({ url: f.url, size: f.size })))
  const etag: string | undefined = listed[0]?.etag
  const ds2: Dataset = await engine.openDataset(['/a/k=1/x.parquet', '/a/k=2/y.parquet'])
  // A folder (a Delta table or a Hive folder), an older Delta snapshot, a glob.
  const delta: Dataset = await openDataset('https://cdn.example.com/tables/events/', { version: 3, pathStyle: false })
  const asOf: Dataset = await openDataset('./tables/events/', { asOf: new Date('2024-05-01T00:00:00Z') })
  const deltaVersion: number | undefined = delta.metadata.delta?.version
  const globbed: Dataset = await engine.openDataset(new URL('https://bucket.example.com/events/day=*/*.parquet'))
  const code: ErrorCode[] = ['delta', 'unsupported']
  const iceberg: Dataset = await openDataset('./tables/ice/metadata/v5.metadata.json', { snapshotId: 7505300640432048841n })
  const iceId: string | undefined = iceberg.metadata.iceberg?.snapshotId
  const mapped: Dataset = await openDataset('./tables/ice/', { pathMap: { 's3://old/ice/data': 'https://cdn.example.com/ice-data/' } })
  const mappedText: Dataset = await openDataset('./tables/ice/', { pathMap: 's3://old/ice/data=./ice-data' })
  void [deltaVersion, globbed, code, asOf, iceId, mapped, mappedText]
  const dm: DatasetMetadata = ds.metadata
  const files: string[] = ds.files
  const dscan = ds.scan({ where: 'day = 2', orderBy: 'x DESC', limit: 10 })
  const r: Report = await dscan.done()
  const fr: FileReport[] | undefined = r.files
  const dsCount: { count: number; report: Report } = await ds.count({ where: 'day = 2' })
  const dsMinMax: { min: unknown; max: unknown; report: Report } = await delta.minMax('x', { where: 'day = 2' })
  void [dm.first?.url, dm.numFiles, files, fr?.[0]?.skippedBy, r.filesAfterPartitions, await ds2.explain(), ok, dsCount.report.rowsCountedFromMetadata, dsMinMax.min]
  try {
    await ds.scan({ columns: ['id'] }).toTable()
  } catch (e) {
    // An error of one of a dataset's files (the engine's scan error, or an HTTP one) names it.
    if (e instanceof PqscanError && (e.code === 'scan' || e.code === 'http')) {
      const bad: string | undefined = e.file
      void bad
    }
  }
  ds.close()

  try {
    await openParquet('./missing.parquet')
  } catch (e) {
    if (e instanceof PqscanError) {
      const code: ErrorCode = e.code
      const known = code === 'source' || code === 'file-changed' || code === 'http'
      void [known, e.status, e.file, e.name]
    }
  }
  engine.terminate()
  terminateDefaultEngines()
}

// Errors the types must catch: each line below is a compile error (an expect-error directive
// fails the check itself when its line compiles).
// @ts-expect-error a number is no source
void openParquet(42)
// @ts-expect-error an AsyncBuffer needs slice
void openParquet({ byteLength: 3 })
// @ts-expect-error unknown option
void openParquet('/a.parquet', { colums: ['a'] })
// @ts-expect-error where is a string
void (async () => (await openParquet('/a')).scan({ where: 3 }))()
// @ts-expect-error where is a string in query too
void query('/a.parquet', { where: 3 })
// @ts-expect-error not an error code
const badCode: ErrorCode = 'nope'
void badCode
