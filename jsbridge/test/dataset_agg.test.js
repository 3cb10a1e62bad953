// count(), minMax() and orderBy over datasets through the bridge (the module's table session),
// against DuckDB (npm @duckdb/node-api, installed in ../duckdb by `make duckdb-deps`) over the
// same files: a Hive folder that DuckDB writes and test/server.js serves with ListObjectsV2,
// and a Delta table of the corpus (its files on disk are its live files, so DuckDB reads them
// with hive_partitioning). The server's log shows which files were requested.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { openDataset, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusDir, repoRoot, wasmPath } from './helpers.js'

const { DuckDBInstance } = createRequire(path.join(repoRoot, 'duckdb', 'package.json'))('@duckdb/node-api')
const deltaRel = 'dat/basic_append/delta'
const deltaDir = path.join(corpusDir(), 'delta', deltaRel)
let srv, tmp, conn
before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-agg-'))
  conn = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect()
  // Three days of two files each; ids and values differ per file, names have nulls, row
  // groups of 50 rows so that statistics decide some and not others.
  const files = new Map()
  for (let d = 1; d <= 3; d++) {
    for (let p = 0; p < 2; p++) {
      const rel = `hive/day=2024-01-0${d}/part-${p}.parquet`
      const out = path.join(tmp, rel)
      mkdirSync(path.dirname(out), { recursive: true })
      await conn.run(`COPY (SELECT ${d * 1000 + p * 500} + i AS id, CASE WHEN i % 7 = 3 THEN NULL ELSE 'n' || (i % 11) END AS name,
        ((i * 37 + ${d * 13 + p}) % 1000) / 10.0 AS v FROM range(${80 + 20 * d + p}) t(i)) TO '${out}' (FORMAT parquet, ROW_GROUP_SIZE 50)`)
      files.set('/' + rel, new Uint8Array(readFileSync(out)))
      for (const mode of ['in-thread', 'worker']) files.set(`/hive-${mode}/${rel.slice(5)}`, files.get('/' + rel)) // fresh URLs: nothing cached
    }
  }
  const add = (rel) => {
    for (const e of readdirSync(path.join(deltaDir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) add(r)
      else files.set(`/delta/${r}`, new Uint8Array(readFileSync(path.join(deltaDir, r))))
    }
  }
  add('')
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv?.close()
  rmSync(tmp, { recursive: true, force: true })
})

const duck = async (sql) => (await conn.runAndReadAll(sql)).getRowsJson()
const hiveFrom = () => `read_parquet('${path.join(tmp, 'hive', '*', '*.parquet')}', hive_partitioning = true)`
const deltaFrom = `read_parquet('${path.join(deltaDir, '*.parquet')}', hive_partitioning = false)`
const dataRequests = () => srv.log.filter((l) => !l.list && !l.path.includes('/_delta_log/'))
// A value as DuckDB's CAST(… AS VARCHAR) prints it (bigints, strings); dates and doubles are
// compared through days() and Number.
const canon = (v) => (v === null || v === undefined ? 'NULL' : String(v))
const days = (ms) => new Date(ms).toISOString().slice(0, 10)

for (const worker of [false, true]) {
  const o = { worker, wasm: wasmPath }
  const mode = worker ? 'worker' : 'in-thread'

  test(`${mode}: count() and minMax() over a Hive folder listed with ListObjectsV2 equal DuckDB's`, async () => {
    const ds = await openDataset(`${srv.url}/hive/`, o)
    for (const where of ['', "day = DATE '2024-01-02'", 'v > 50 AND day >= DATE \'2024-01-02\'', "name = 'n5'", 'id < 0', 'name IS NULL OR id IN (1003, 2504)']) {
      const w = where ? ` WHERE ${where}` : ''
      const [[n]] = await duck(`SELECT count(*) FROM ${hiveFrom()}${w}`)
      const c = await ds.count({ where })
      assert.equal(String(c.count), String(n), `count ${where}`)
      for (const col of ['id', 'name', 'v', 'day']) {
        const [[lo, hi]] = await duck(`SELECT CAST(min(${col}) AS VARCHAR), CAST(max(${col}) AS VARCHAR) FROM ${hiveFrom()}${w}`)
        const mm = await ds.minMax(col, { where })
        const got = col === 'day' ? [mm.min, mm.max].map((x) => (x == null ? 'NULL' : days(x))) : [canon(mm.min), canon(mm.max)]
        const want = col === 'v' ? [lo, hi].map((x) => (x == null ? 'NULL' : String(Number(x)))) : [lo ?? 'NULL', hi ?? 'NULL']
        assert.deepEqual(got, want, `minMax ${col} ${where}`)
      }
    }
    // A partition predicate alone: the kept files are counted from their footers' num_rows.
    const c = await ds.count({ where: "day = DATE '2024-01-02'" })
    assert.equal(c.report.rowsCountedFromMetadata, c.count)
    ds.close()
  })

  test(`${mode}: over a Delta table the log answers count() and minMax() without a data request where it is exact`, async () => {
    srv.reset()
    const ds = await openDataset(`${srv.url}/delta/`, o)
    const [[n, lo, hi, llo, lhi]] = await duck(`SELECT count(*), CAST(min(number) AS VARCHAR), CAST(max(number) AS VARCHAR), min(letter), max(letter) FROM ${deltaFrom}`)
    srv.reset()
    const c = await ds.count()
    assert.equal(String(c.count), String(n))
    assert.equal(c.report.rowsCountedFromMetadata, c.count)
    const mm = await ds.minMax('number')
    assert.deepEqual([String(mm.min), String(mm.max)], [lo, hi])
    assert.equal(mm.report.rowsCountedFromMetadata, c.count, 'numbers from the log')
    assert.deepEqual(dataRequests(), [], 'count and minMax of number read the log alone')
    const letters = await ds.minMax('letter')
    assert.deepEqual([letters.min, letters.max], [llo, lhi])
    assert.ok(dataRequests().length > 0, 'string bounds in the log may be truncated: the files are read')
    ds.close()
  })

  test(`${mode}: orderBy over a Hive folder listed with ListObjectsV2 equals DuckDB's ORDER BY (ties by file, then position)`, async () => {
    const ds = await openDataset(`${srv.url}/hive/`, o)
    for (const [orderBy, where, limit, offset] of [['v DESC', '', 10, 0], ['name NULLS FIRST, v DESC', "day >= DATE '2024-01-02'", 15, 4], ['id', 'v > 90', 5, 0], ['v, id DESC', '', 0, 0], ['day DESC, v', '', 6, 0]]) {
      const w = where ? ` WHERE ${where}` : ''
      const lim = limit ? ` LIMIT ${limit}` : ''
      const want = (await duck(`SELECT CAST(id AS VARCHAR) FROM read_parquet('${path.join(tmp, 'hive', '*', '*.parquet')}', hive_partitioning = true, filename = true, file_row_number = true)${w} ORDER BY ${orderBy}, filename, file_row_number${lim} OFFSET ${offset}`)).map((r) => r[0])
      const t = await ds.scan({ columns: ['id'], orderBy, where, limit, offset }).toTable()
      assert.deepEqual([...t.getChild('id')].map(String), want, `${orderBy} ${where} ${limit} ${offset}`)
    }
    ds.close()
    // The partition column as the first key bounds each file exactly: the other days' files
    // get no request (copies under fresh URLs, so that no footer is cached; the open reads
    // the first file's).
    const fresh = await openDataset(`${srv.url}/hive-${mode}/`, o)
    srv.reset()
    await fresh.scan({ columns: ['id'], orderBy: 'day DESC, v', limit: 6 }).toTable()
    assert.deepEqual([...new Set(dataRequests().map((l) => l.path.split('/')[2]))], ['day=2024-01-03'])
    fresh.close()
  })

  test(`${mode}: a top-k over a Delta table never requests the file the log's statistics exclude`, async () => {
    const ds = await openDataset(`${srv.url}/delta/`, o)
    const want = (await duck(`SELECT CAST(number AS VARCHAR) FROM ${deltaFrom} ORDER BY number DESC LIMIT 2`)).map((r) => r[0])
    srv.reset()
    const s = ds.scan({ columns: ['number'], orderBy: 'number DESC', limit: 2 })
    const t = await s.toTable()
    assert.deepEqual([...t.getChild('number')].map(String), want)
    const files = [...new Set(dataRequests().map((l) => l.path))]
    assert.equal(files.length, 1, 'one data file read')
    assert.equal(s.report.files.filter((f) => f.skippedBy === 'top-k').length, 1, 'the other skipped by its bound')
    assert.ok(!dataRequests().some((l) => s.report.files.find((f) => f.skippedBy === 'top-k').path.endsWith(l.path.split('/').pop())), 'the skipped file got no request')
    ds.close()
  })
}
