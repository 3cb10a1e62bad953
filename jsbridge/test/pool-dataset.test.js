// The scan pool over datasets (worker-pool.js, core-units.js planDataset): a dataset's scan
// spread over several Workers in runs of files (and runs of a file's rows: unitMinBytes 1 cuts
// every file the engine can) returns what one Worker returns, row for row in the same order: a Hive folder (over HTTP and local), the Delta tables (deletion vectors,
// partitions, column mapping) with offsets and limits, and the Iceberg tables against their
// expected rows. A scan cancelled mid-dataset frees every Worker.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { createEngine } from '../src/index.js'
import { startServer } from './server.js'
import { addTree, corpusDir, corpusFile, repoRoot } from './helpers.js'
import { iceDir, icebergTables, icebergSnapshots } from './iceberg-corpus.js'
import { arrowRows, expectedRows } from '../../e2e/fixtures/iceberg-rows.js'

const deltaDir = path.join(corpusDir(), 'delta')
let dir, srv, one, pool, mid
before(async () => {
  // A Hive dataset: 4 day folders of 2 files each (cmd/pqserve gen-dataset, the demo's).
  dir = mkdtempSync(path.join(os.tmpdir(), 'pqscan-pool-ds-'))
  execFileSync('go', ['run', './cmd/pqserve', 'gen-dataset', '-o', path.join(dir, 'ds'), '-rows', '120000'], { cwd: repoRoot, stdio: 'ignore' })
  const files = new Map()
  addTree(files, path.join(dir, 'ds'), '/ds/')
  addTree(files, deltaDir, '/delta/')
  addTree(files, path.join(iceDir, 'tables'), '/ice/')
  // Files whose schemas differ (dataset_schema.test.js): double_col renamed in b.
  const tiny = corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')
  files.set('/s/a.parquet', tiny)
  files.set('/s/b.parquet', Buffer.from(Buffer.from(tiny).toString('latin1').replaceAll('double_col', 'DOUBLE_col'), 'latin1'))
  srv = await startServer(files)
  one = createEngine({ workers: 1 })
  pool = createEngine({ workers: 2, unitMinBytes: 1 }) // a unit per file, whatever its size
  mid = createEngine({ workers: 2, unitMinBytes: 256 << 10 }) // the tiny-page file in 3 runs, not one per page
})
after(async () => {
  for (const e of [one, pool, mid]) e?.terminate()
  await srv?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

function json(_, v) {
  if (typeof v === 'bigint') return String(v)
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
  if (v && typeof v === 'object' && typeof v.toJSON === 'function' && !Array.isArray(v)) return v.toJSON()
  return v
}

// A dataset scan's rows in order, each as the JSON of its values, with its report; or the
// error code of its open or scan.
async function rowsOf(eng, src, openOpts, opts = {}) {
  let ds
  try {
    ds = await eng.openDataset(src, openOpts)
    const s = ds.scan({ ...opts, raw: true })
    const rows = []
    for await (const ipc of s) {
      const t = tableFromIPC(ipc)
      const cols = t.schema.fields.map((x) => t.getChild(x.name))
      for (let i = 0; i < t.numRows; i++) rows.push(JSON.stringify(cols.map((c) => c.get(i)), json))
    }
    return { rows, report: s.report }
  } catch (e) {
    return { error: e.code ?? e.name }
  } finally {
    ds?.close()
  }
}

// Scans src with options o on both engines; the pooled rows must be the one-Worker rows.
async function same(src, openOpts, o, what, eng = pool) {
  const want = await rowsOf(one, src, openOpts, o)
  const got = await rowsOf(eng, src, openOpts, o)
  assert.equal(got.error, want.error, what)
  if (want.error) return null
  assert.deepEqual(got.rows, want.rows, what)
  assert.equal(got.report.rowsReturned, want.report.rowsReturned, `${what}: rowsReturned`)
  return { want, got }
}

test('a Hive folder over HTTP and local: pooled rows equal one Worker, file by file', async (t) => {
  const local = path.join(dir, 'ds') + path.sep
  let threads = 0 // the Workers that took units: both, once the second one started
  for (const src of [srv.url + '/ds/', local]) {
    for (const o of [{}, { columns: ['tenant_id', 'value', 'event_date'] }, { where: "event_date >= DATE '2026-10-03' AND tenant_id < 40" }, { rowIndex: 'rid', columns: ['value'] }]) {
      const r = await same(src, {}, o, `${src} ${JSON.stringify(o)}`)
      assert.ok(r.got.report.units >= 2, `units: ${r.got.report.units}`)
      threads = Math.max(threads, r.got.report.threads)
      for (const k of ['filesRead', 'fileSize', 'rowsTotal', 'rowGroupsTotal']) assert.equal(r.got.report[k], r.want.report[k], k)
      assert.deepEqual(r.got.report.files.map((f) => f.skippedBy ?? ''), r.want.report.files.map((f) => f.skippedBy ?? ''))
    }
  }
  assert.equal(threads, 2)
})

test("files whose schemas differ: every unit has the whole scan's schema", async () => {
  const urls = ['b', 'a', 'b', 'a', 'b'].map((n) => `${srv.url}/s/${n}.parquet`)
  for (const open of [{}, { byPosition: true }, { unionSchema: true }]) {
    for (const o of [{}, { where: 'id > 3000' }, { columns: ['id', 'double_col'] }]) {
      const r = await same(urls, open, o, `${JSON.stringify(open)} ${JSON.stringify(o)}`, mid)
      if (!r) continue
      assert.ok(r.got.report.units >= 2, `units: ${r.got.report.units}`)
    }
  }
  // The first file's schema (b's DOUBLE_col): a unit of a's files alone would read double_col.
  const ds = await mid.openDataset(urls)
  try {
    const tb = await ds.scan({ columns: ['DOUBLE_col'] }).toTable()
    const v = Array.from(tb.getChild('DOUBLE_col'))
    assert.ok(v.some((x) => x === null) && v.some((x) => x !== null), 'nulls from the files without it')
  } finally {
    ds.close()
  }
})

test('Delta tables: pooled rows equal one Worker, with offsets and limits', async (t) => {
  const tables = []
  for (const c of readdirSync(path.join(deltaDir, 'dat'))) tables.push(`dat/${c}/delta`)
  for (const c of readdirSync(path.join(deltaDir, 'delta-rs'))) tables.push(`delta-rs/${c}`)
  let pooled = 0
  let sliced = 0
  for (const rel of tables) {
    for (const o of [{}, { limit: 3 }, { offset: 2, limit: 4 }, { offset: 1 }]) {
      const r = await same(`${srv.url}/delta/${rel}/`, {}, o, `${rel} ${JSON.stringify(o)}`)
      if (r?.got.report.units >= 2) {
        pooled++
        if (o.offset || o.limit) sliced++
      }
    }
  }
  t.diagnostic(`${tables.length} tables, ${pooled} scans pooled, ${sliced} of them with an offset or a limit`)
  assert.ok(pooled >= 10, `pooled: ${pooled}`)
  assert.ok(sliced >= 5, `sliced: ${sliced}`)
})

test('Iceberg tables: pooled rows equal one Worker and the expected rows', async (t) => {
  let pooled = 0
  for (const r of icebergTables()) {
    const src = path.join(iceDir, 'tables', r.name, r.table_root) + path.sep
    const snap = icebergSnapshots(r).at(-1)
    const res = await same(src, {}, {}, r.name)
    if (!res) continue
    if (res.got.report.units >= 2) pooled++
    const ds = await pool.openDataset(src)
    try {
      const tb = await ds.scan().toTable()
      assert.deepEqual(arrowRows(tb), expectedRows(snap.want, tb.schema.fields.map((f) => f.name)), r.name)
    } finally {
      ds.close()
    }
  }
  t.diagnostic(`${pooled} Iceberg tables pooled`)
  assert.ok(pooled >= 5, `pooled: ${pooled}`)
})

test('a dataset scan cancelled mid-way frees every Worker; the pool scans again', async () => {
  const src = srv.url + '/ds/'
  const ds = await pool.openDataset(src)
  const ctrl = new AbortController()
  let n = 0
  await assert.rejects(
    (async () => {
      for await (const b of ds.scan({ batchRows: 1024, signal: ctrl.signal, raw: true })) {
        void b
        if (++n === 2) ctrl.abort()
      }
    })(),
    (e) => e.name === 'AbortError',
  )
  ds.close()
  // Every Worker of the pool ends its unit: the calling thread keeps no scan, and each
  // Worker's scan ends once its cancel message is taken (polled, a bounded number of times).
  const workers = [pool.impl, ...pool.impl.helpers]
  assert.equal(workers.length, 2)
  for (const w of workers) {
    assert.equal(w.scans.size, 0)
    let left = -1
    for (let k = 0; k < 200 && left !== 0; k++) {
      if (k > 0) await new Promise((r) => setTimeout(r, 10))
      left = (await w.debugStats()).scans
    }
    assert.equal(left, 0, 'a Worker still runs a unit')
  }
  const r = await same(src, {}, {}, 'after the abort')
  assert.ok(r.got.report.units >= 2, 'the pool took units again')
})
