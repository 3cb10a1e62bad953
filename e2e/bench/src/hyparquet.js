// hyparquet (+ hyparquet-compressors for zstd), on the page's thread: parquetQuery with a
// MongoDB-style filter and every pruning option it has (row-group statistics, bloom filters,
// column + offset index); parquetRead of one column for the sum; rowEnd for the first rows.
import { asyncBufferFromUrl, parquetMetadataAsync, parquetQuery, parquetRead } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { ALL, canon, checksum } from './check.js'
import { bboxFilter, geoAnswer, hits } from './geo.js'

export async function load() {}

// Timestamps stay int64 microseconds (the default makes Dates and drops the microseconds).
const parsers = { timestampFromMicroseconds: (us) => us }

export async function run(q, url, size) {
  const file = await asyncBufferFromUrl({ url, byteLength: size })
  const metadata = await parquetMetadataAsync(file, { parsers })
  const base = { file, metadata, compressors, parsers, useOffsetIndex: true, useBloomFilters: true, usePageIndex: true }
  if (q.name === 'Q3') {
    let sum = 0, rows = 0
    await parquetRead({ ...base, columns: ['value'], onChunk: ({ columnData }) => {
      for (let i = 0; i < columnData.length; i++) sum += columnData[i]
      rows += columnData.length
    } })
    return { rows, sum }
  }
  let opts
  if (q.name === 'Q1') opts = { columns: q.columns, filter: { tenant_id: { $eq: BigInt(q.tenant) }, event_time: { $gte: BigInt(q.lo), $lt: BigInt(q.hi) } } }
  else if (q.name === 'Q2') opts = { filter: { user_id: { $eq: BigInt(q.user) } } }
  else opts = { rowStart: 0, rowEnd: q.limit }
  const objs = await parquetQuery({ ...base, ...opts })
  const cols = q.columns ?? ALL
  const rows = objs.map((o) => cols.map((c) => canon(o[c])))
  return { rows: rows.length, checksum: checksum(rows) }
}

// The dataset workload (dataset.js): hyparquet reads one file, so the page loops over the
// listed files as its users do: D1 keeps the files whose path is of the day (the user's own
// partition pruning), then every file's footer is read and queried with parquetQuery (its
// row-group statistics, page index, bloom filters), all files at once (Promise.all; Chromium
// queues beyond 6 connections); D4 reads files in order until 100 rows.
export async function dataset(q, ctx) {
  let files = ctx.files
  if (q.name === 'D1') files = files.filter((f) => f.day === q.day)
  const cols = q.columns ?? ALL
  const open = async (f) => {
    const file = await asyncBufferFromUrl({ url: f.url, byteLength: f.size })
    const metadata = await parquetMetadataAsync(file, { parsers })
    return { file, metadata, compressors, parsers, useOffsetIndex: true, useBloomFilters: true, usePageIndex: true }
  }
  let objs = []
  if (q.limit) {
    for (const f of files) {
      const base = await open(f)
      objs.push(...(await parquetQuery({ ...base, rowStart: 0, rowEnd: q.limit - objs.length })))
      if (objs.length >= q.limit) break
    }
  } else {
    const T = BigInt(q.tenant), U = BigInt(q.user)
    const filter = {
      D1: { tenant_id: { $eq: T }, event_time: { $gte: BigInt(q.lo), $lt: BigInt(q.hi) } },
      D2: { tenant_id: { $eq: T } },
      D3: { user_id: { $eq: U } },
    }[q.name]
    const parts = await Promise.all(files.map(async (f) => parquetQuery({ ...(await open(f)), filter, columns: q.columns ?? undefined })))
    objs = parts.flat()
  }
  const rows = objs.map((o) => cols.map((c) => canon(o[c])))
  return { rows: rows.length, checksum: checksum(rows) }
}

// The viewport workload (geo.js): parquetQuery with the bbox conjuncts as a filter (its
// row-group statistics and page index on the four leaf columns), id and geometry (hyparquet
// reads the `geo` metadata and returns GeoJSON), then the exact test.
export async function geo(q, ctx) {
  const file = await asyncBufferFromUrl({ url: ctx.url, byteLength: ctx.size })
  const metadata = await parquetMetadataAsync(file)
  const objs = await parquetQuery({ file, metadata, compressors, useOffsetIndex: true, usePageIndex: true, columns: ['id', 'geometry'], filter: bboxFilter(q.env) })
  const ids = []
  for (const o of objs) if (hits(q.env, o.geometry)) ids.push(o.id)
  return geoAnswer(ids, objs.length)
}
