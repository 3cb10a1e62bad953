// pqscan: the jsbridge browser bundle with its default modules (the lean one for these single
// files), the engine in its Worker (the default), the query as a WHERE string with predicate
// pushdown.
import { ALL, arrowRows, checksum } from './check.js'
import { stWhere, geoAnswer } from './geo.js'

let mod, engine
// The metadata cache (IndexedDB, on by default in browsers) only where a cell asks for it
// (cold.js's returning visit): the other cells measure reads without it, as the peers read.
let metadataCache = false
export async function load(ctx) {
  metadataCache = ctx.metadataCache ? undefined : false
  mod = await import(/* @vite-ignore */ '/pqscan/dist/pqscan.js')
  if (ctx.cold) {
    // A fresh page (run.js, coldCells): "early" starts the engine at page start with init()
    // (Worker + compileStreaming + instance) before the query; "lazy" lets the first
    // openParquet start it.
    // ctx.module "full": the full module alone (every format and codec), as pages loaded it
    // before the lean one; otherwise the package's defaults (the lean module, the full one on
    // demand).
    const o = { worker: ctx.worker ?? true, warmup: ctx.warmup, ...(ctx.module === 'full' ? { wasmURL: '/pqscan/pqscan.wasm' } : {}) }
    if (ctx.start === 'early') engine = await mod.init(o)
    else engine = mod.createEngine(o)
    return
  }
  // ctx.worker false (a diagnostic, e.g. a CPU profile of the page): the engine in the page.
  // ctx.workers (BENCH_WORKERS): the size of the engine's Worker pool (by default the cores, up to 4).
  engine = mod.createEngine({ worker: ctx.worker ?? true, workers: ctx.workers, warmup: ctx.warmup })
  // The Worker compiles the module on its first open: open the first file once (one footer read).
  const f = await engine.openParquet(ctx.firstURL, { fileSize: ctx.firstSize })
  f.close?.()
}

function where(q) {
  if (q.name === 'Q1') return `tenant_id = ${q.tenant} AND event_time >= TIMESTAMP '${q.loISO}' AND event_time < TIMESTAMP '${q.hiISO}'`
  if (q.name === 'Q2') return `user_id = ${q.user}`
  return undefined
}

// One call (query): open and scan reach the engine's Worker together, as an app that has a
// URL and a query would ask (hyparquet's parquetQuery, a DuckDB SQL string are one call too).
// A bridge without query (an older dist, for A/B runs) opens and scans in two calls.
export async function run(q, url, size) {
  const o = { fileSize: size, columns: q.columns ?? undefined, where: where(q), limit: q.limit ?? undefined, metadataCache }
  const f = engine.query ? null : await engine.openParquet(url, o)
  try {
    const s = f ? f.scan(o) : engine.query(url, o)
    if (q.name === 'Q3') {
      let sum = 0, rows = 0
      for await (const b of s) {
        const col = b.getChild('value')
        for (const d of col.data) {
          const v = d.values
          for (let i = 0; i < d.length; i++) sum += v[d.offset + i]
        }
        rows += b.numRows
      }
      return { rows, sum, engine: s.report }
    }
    const t = await s.toTable()
    const rows = arrowRows(t, q.columns ?? ALL)
    return { rows: rows.length, checksum: checksum(rows), engine: s.report }
  } finally {
    f?.close()
  }
}

// The start-up marks of the engine (jsbridge marks.js, epoch ms: the page's and the Worker's)
// for the cold pages' breakdown (cold.js), read after the query.
export async function startMarks() {
  const st = await engine?.impl?.debugStats?.()
  return { worker: st?.startMarks ?? [], page: st?.pageMarks ?? [] }
}

// The dataset workload (dataset.js): openDataset over the files' URLs and sizes the driver
// hands every contender (ctx.files), or over the bridge's own ListObjectsV2 listing of
// ctx.listURL (listDataset, path style: the bucket is /ds); the partition column event_date is
// typed from the paths. ctx.single instead reads the same rows as one file with openParquet
// (the round-trip baseline). ctx.concurrency (the HTTP/2 scenario) raises the bridge's limit
// on requests in flight (6 by default, Chromium's HTTP/1.1 connections per origin).
function dsWhere(q, single) {
  const hour = `tenant_id = ${q.tenant} AND event_time >= TIMESTAMP '${q.loISO}' AND event_time < TIMESTAMP '${q.hiISO}'`
  if (q.name === 'D1') return single ? hour : `event_date = DATE '${q.day}' AND ${hour}`
  if (q.name === 'D2') return `tenant_id = ${q.tenant}`
  if (q.name === 'D3') return `user_id = ${q.user}`
  return undefined
}

export async function dataset(q, ctx) {
  const o = ctx.concurrency ? { concurrency: ctx.concurrency } : {}
  const f = ctx.single
    ? await engine.openParquet(ctx.single.url, { ...o, fileSize: ctx.single.size })
    : await engine.openDataset(ctx.listURL ? await mod.listDataset(ctx.listURL, { pathStyle: true }) : ctx.files.map(({ url, size }) => ({ url, size })), o)
  try {
    const s = f.scan({ columns: q.columns ?? undefined, where: dsWhere(q, ctx.single), limit: q.limit ?? undefined })
    const t = await s.toTable()
    const rows = arrowRows(t, q.columns ?? ALL)
    const { filesTotal, filesAfterPartitions, filesRead, roundTrips, requests, bytesFetched } = s.report
    return { rows: rows.length, checksum: checksum(rows), engine: { filesTotal, filesAfterPartitions, filesRead, roundTrips, requests, bytesFetched } }
  } finally {
    f.close?.()
  }
}

// The viewport workload (geo.js): one call, the spatial predicate in WHERE; id and geometry
// back, as a map draws them.
export async function geo(q, ctx) {
  const s = engine.query(ctx.url, { fileSize: ctx.size, columns: ['id', 'geometry'], where: stWhere(q.env), metadataCache })
  const t = await s.toTable()
  const ids = [...t.getChild('id')]
  const { roundTrips, requests, bytesFetched, rowGroupsAfterStats, pagesAfterPageIndex } = s.report
  return { ...geoAnswer(ids, ids.length), engine: { roundTrips, requests, bytesFetched, rowGroupsAfterStats, pagesAfterPageIndex } }
}
