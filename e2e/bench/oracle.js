// The correctness oracle: DuckDB (native, @duckdb/node-api) over the local files. It picks the
// queries' literals the way bench.ChooseParams does (bench/queries.go) and computes each
// query's expected answer in the canonical form of src/check.js.
import { DuckDBInstance } from '@duckdb/node-api'
import { readFileSync, writeFileSync, statSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { ALL, canon, checksum } from './src/check.js'

const TENANT_RANK = 30 // bench.TenantRank

export async function openOracle() {
  const inst = await DuckDBInstance.create(':memory:', { threads: '2' })
  const c = await inst.connect()
  const all = async (sql) => (await c.runAndReadAll(sql)).getRowObjects()
  return {
    /** Q1/Q2 literals from the (sorted) file, as bench.ChooseParams: the tenant ranked 30 by
     * rows (ties: smaller id), the hour holding times[len/2] of its sorted event times, and the
     * user of its earliest event in that hour. */
    async params(file) {
      const src = `read_parquet('${file}')`
      const [t] = await all(`SELECT tenant_id, n FROM (SELECT tenant_id, count(*) n FROM ${src} GROUP BY 1) ORDER BY n DESC, tenant_id LIMIT 1 OFFSET ${TENANT_RANK}`)
      const [h] = await all(`SELECT epoch_us(event_time) us FROM ${src} WHERE tenant_id = ${t.tenant_id} ORDER BY event_time LIMIT 1 OFFSET ${Number(t.n) >> 1}`)
      const lo = (BigInt(h.us) / 3600000000n) * 3600000000n
      const hi = lo + 3600000000n
      const [u] = await all(`SELECT user_id FROM ${src} WHERE tenant_id = ${t.tenant_id} AND epoch_us(event_time) >= ${lo} AND epoch_us(event_time) < ${hi} ORDER BY event_time, file_row_number LIMIT 1`.replace(`read_parquet('${file}')`, `read_parquet('${file}', file_row_number = true)`))
      const iso = (us) => new Date(Number(us / 1000n)).toISOString().replace('.000Z', 'Z')
      return { tenant: String(t.tenant_id), tenantRows: Number(t.n), lo: String(lo), hi: String(hi), loISO: iso(lo), hiISO: iso(hi), user: String(u.user_id) }
    },
    async expect(file, q) {
      const src = `read_parquet('${file}')`
      const sel = (cols) => cols.map((x) => (x === 'event_time' ? 'epoch_us(event_time) AS event_time' : x)).join(', ')
      if (q.name === 'Q3') {
        const [r] = await all(`SELECT count(value) n, sum(value) s FROM ${src}`)
        return { rows: Number(r.n), sum: r.s }
      }
      let sql
      if (q.name === 'Q1') sql = `SELECT ${sel(q.columns)} FROM ${src} WHERE tenant_id = ${q.tenant} AND epoch_us(event_time) >= ${q.lo} AND epoch_us(event_time) < ${q.hi}`
      else if (q.name === 'Q2') sql = `SELECT ${sel(ALL)} FROM ${src} WHERE user_id = ${q.user}`
      else sql = `SELECT ${sel(ALL)} FROM ${src} LIMIT ${q.limit}`
      const cols = q.columns ?? ALL
      const rows = (await all(sql)).map((o) => cols.map((x) => canon(o[x])))
      return { rows: rows.length, checksum: checksum(rows) }
    },
    /** The dataset queries (D1–D4 of dataset.js) over the month's local files, read as one
     * table in the given order with hive_partitioning (D4: the first 100 rows of that order,
     * i.e. of the first file; insertion order is preserved). Checked over the file columns.
     * hive: false reads the single file (D1 without its event_date term). */
    async expectDataset(paths, q, { hive = true } = {}) {
      const src = `read_parquet([${paths.map((p) => `'${p}'`).join(', ')}], hive_partitioning = ${hive})`
      const sel = (cols) => cols.map((x) => (x === 'event_time' ? 'epoch_us(event_time) AS event_time' : x)).join(', ')
      const cols = q.columns ?? ALL
      const where = {
        D1: `${hive ? `CAST(event_date AS VARCHAR) = '${q.day}' AND ` : ''}tenant_id = ${q.tenant} AND epoch_us(event_time) >= ${q.lo} AND epoch_us(event_time) < ${q.hi}`,
        D2: `tenant_id = ${q.tenant}`,
        D3: `user_id = ${q.user}`,
      }[q.name]
      const sql = `SELECT ${sel(cols)} FROM ${src}${where ? ` WHERE ${where}` : ''}${q.limit ? ` LIMIT ${q.limit}` : ''}`
      const rows = (await all(sql)).map((o) => cols.map((x) => canon(o[x])))
      return { rows: rows.length, checksum: checksum(rows) }
    },
    close() { c.closeSync?.() },
  }
}

/**
 * The oracle's answers for run.js, cached in cacheFile by file path, size and mtime and by the
 * query: DuckDB takes a minute or more over the 4M-row files, which a cold-only run
 * (make bench-cold) would otherwise pay every time. DuckDB is opened at the first miss only.
 */
export function cachedOracle(cacheFile) {
  let cache = {}
  try {
    cache = JSON.parse(readFileSync(cacheFile, 'utf8'))
  } catch {}
  let o = null
  const id = (f) => {
    const st = statSync(f)
    return `${f}|${st.size}|${st.mtimeMs}`
  }
  const get = async (key, fn) => {
    if (!(key in cache)) {
      o ??= await openOracle()
      cache[key] = await fn(o)
      mkdirSync(path.dirname(cacheFile), { recursive: true })
      writeFileSync(cacheFile, JSON.stringify(cache, null, 1) + '\n')
    }
    return cache[key]
  }
  return {
    params: (f) => get(`params|${id(f)}`, (x) => x.params(f)),
    expect: (f, q) => get(`expect|${id(f)}|${JSON.stringify(q)}`, (x) => x.expect(f, q)),
    close: () => o?.close(),
  }
}
