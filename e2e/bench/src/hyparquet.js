// hyparquet (+ hyparquet-compressors for zstd), on the page's thread: parquetQuery with a
// MongoDB-style filter and every pruning option it has (row-group statistics, bloom filters,
// column + offset index); parquetRead of one column for the sum; rowEnd for the first rows.
import { asyncBufferFromUrl, parquetMetadataAsync, parquetQuery, parquetRead } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { ALL, canon, checksum } from './check.js'

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
