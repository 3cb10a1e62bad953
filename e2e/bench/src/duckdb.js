// DuckDB-WASM 1.28.0 (DuckDB v0.9.1: the last release whose wasm build links the parquet
// extension statically; 1.29+ load it from extensions.duckdb.org at run time). In its own
// Worker (the eh bundle); the file is registered as an HTTP URL and read with range requests.
import * as duckdb from '@duckdb/duckdb-wasm'
import { ALL, arrowRows, checksum } from './check.js'
import { bboxSQL, geoAnswer, hits } from './geo.js'

let db, conn, n = 0
export async function load() {
  const base = new URL('/nm/@duckdb/duckdb-wasm/dist/', location.href).href
  const bundle = await duckdb.selectBundle({
    mvp: { mainModule: base + 'duckdb-mvp.wasm', mainWorker: base + 'duckdb-browser-mvp.worker.js' },
    eh: { mainModule: base + 'duckdb-eh.wasm', mainWorker: base + 'duckdb-browser-eh.worker.js' },
  })
  const worker = new Worker(bundle.mainWorker)
  db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker)
  await db.instantiate(bundle.mainModule)
  conn = await db.connect()
  await conn.query("SET enable_object_cache = false")
}

const SEL = { event_time: 'epoch_us(event_time) AS event_time' }
const sel = (cols) => cols.map((c) => SEL[c] ?? c).join(', ')
const iso = (s) => s.replace('T', ' ').replace('Z', '+00')

export async function run(q, url) {
  const name = `f${++n}.parquet` // a new name each time: nothing cached between repetitions
  await db.registerFileURL(name, url, duckdb.DuckDBDataProtocol.HTTP, false)
  try {
    const from = `read_parquet('${name}')`
    let sql
    if (q.name === 'Q1') sql = `SELECT ${sel(q.columns)} FROM ${from} WHERE tenant_id = ${q.tenant} AND event_time >= TIMESTAMPTZ '${iso(q.loISO)}' AND event_time < TIMESTAMPTZ '${iso(q.hiISO)}'`
    else if (q.name === 'Q2') sql = `SELECT ${sel(ALL)} FROM ${from} WHERE user_id = ${q.user}`
    else if (q.name === 'Q3') sql = `SELECT count(value) AS n, sum(value) AS s FROM ${from}`
    else sql = `SELECT ${sel(ALL)} FROM ${from} LIMIT ${q.limit}`
    const t = await conn.query(sql)
    if (q.name === 'Q3') {
      const r = t.get(0)
      return { rows: Number(r.n), sum: r.s }
    }
    const rows = arrowRows(t, q.columns ?? ALL)
    return { rows: rows.length, checksum: checksum(rows), sql }
  } finally {
    await db.dropFile(name)
  }
}

// The dataset workload (dataset.js): every listed file registered under its key (so the path
// keeps its event_date=… directory) with a fresh prefix per run, then one read_parquet over
// the list with hive_partitioning (DuckDB-WASM cannot list or glob over HTTP). DuckDB 0.9
// types the partition column as VARCHAR, hence the string literal.
export async function dataset(q, ctx) {
  const run = ++n
  const names = []
  for (const f of ctx.files) {
    const name = `r${run}/${f.key}`
    await db.registerFileURL(name, f.url, duckdb.DuckDBDataProtocol.HTTP, false)
    names.push(name)
  }
  try {
    const from = `read_parquet([${names.map((x) => `'${x}'`).join(', ')}], hive_partitioning = true)`
    const cols = q.columns ?? ALL
    const where = {
      D1: () => `event_date = '${q.day}' AND tenant_id = ${q.tenant} AND event_time >= TIMESTAMPTZ '${iso(q.loISO)}' AND event_time < TIMESTAMPTZ '${iso(q.hiISO)}'`,
      D2: () => `tenant_id = ${q.tenant}`,
      D3: () => `user_id = ${q.user}`,
    }[q.name]?.()
    const sql = `SELECT ${sel(cols)} FROM ${from}${where ? ` WHERE ${where}` : ''}${q.limit ? ` LIMIT ${q.limit}` : ''}`
    const rows = arrowRows(await conn.query(sql), cols)
    return { rows: rows.length, checksum: checksum(rows) }
  } finally {
    for (const name of names) await db.dropFile(name)
  }
}

// The viewport workload (geo.js): the bbox conjuncts in SQL (DuckDB-WASM 1.28 has no spatial
// extension offline), id and geometry (WKB) back, then the exact test.
export async function geo(q, ctx) {
  const name = `g${++n}.parquet`
  await db.registerFileURL(name, ctx.url, duckdb.DuckDBDataProtocol.HTTP, false)
  try {
    const t = await conn.query(`SELECT id, geometry FROM read_parquet('${name}') WHERE ${bboxSQL(q.env)}`)
    const id = t.getChild('id'), g = t.getChild('geometry')
    const ids = []
    for (let i = 0; i < t.numRows; i++) if (hits(q.env, g.get(i))) ids.push(id.get(i))
    return geoAnswer(ids, t.numRows)
  } finally {
    await db.dropFile(name)
  }
}
