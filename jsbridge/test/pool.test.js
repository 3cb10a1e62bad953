// The scan pool (worker-pool.js): a scan spread over several Workers returns what one Worker
// returns, row for row in the same order, over the corpus, over one 1M-row row group cut into
// units, with a slice, over GZIP and BROTLI files (the full module), with runtime filters;
// cancellation and a unit's error end every unit; the units in flight stay within the memory
// cap. Datasets: pool-dataset.test.js.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { createEngine } from '../src/index.js'
import { scanPooled } from '../src/worker-pool.js'
import { startServer } from './server.js'
import { corpusDir, repoRoot, walk } from './helpers.js'

let dir, srv, big, one, two, tiny
const codecs = ['gzip', 'brotli']
before(async () => {
  // One row group of 1,000,000 rows with a page index (cmd/pqserve gen: the events sample).
  dir = mkdtempSync(path.join(os.tmpdir(), 'pqscan-pool-'))
  const file = path.join(dir, 'one-rg.parquet')
  execFileSync('go', ['run', './cmd/pqserve', 'gen', '-o', file, '-rows', '1000000', '-rg-rows', '1000000'], { cwd: repoRoot, stdio: 'ignore' })
  big = new Uint8Array(readFileSync(file))
  // 100,000 rows in 4 row groups, ZSTD, then rewritten with each codec of the full module.
  const src = path.join(dir, 'zstd.parquet')
  execFileSync('go', ['run', './cmd/pqserve', 'gen', '-o', src, '-rows', '100000', '-rg-rows', '25000'], { cwd: repoRoot, stdio: 'ignore' })
  const files = new Map([['/one-rg.parquet', big], ['/zstd.parquet', new Uint8Array(readFileSync(src))]])
  for (const c of codecs) {
    const out = path.join(dir, `${c}.parquet`)
    execFileSync('go', ['run', './cmd/pqscan', 'optimize', src, out, '--codec', c, '--row-group-size', '25000', '--quiet'], { cwd: repoRoot, stdio: 'ignore' })
    files.set(`/${c}.parquet`, new Uint8Array(readFileSync(out)))
  }
  srv = await startServer(files)
  one = createEngine({ workers: 1 })
  two = createEngine({ workers: 2 })
  tiny = createEngine({ workers: 2, unitMinBytes: 1 }) // splits every corpus file it can
})
after(async () => {
  for (const e of [one, two, tiny]) e?.terminate()
  await srv?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

// A scan's rows in order, each as the JSON of its values, with its report.
async function rowsOf(eng, src, opts = {}) {
  const f = await eng.openParquet(src)
  try {
    const s = f.scan({ ...opts, raw: true })
    const rows = []
    let batches = 0
    for await (const ipc of s) {
      batches++
      const t = tableFromIPC(ipc)
      const cols = t.schema.fields.map((x) => t.getChild(x.name))
      for (let i = 0; i < t.numRows; i++) rows.push(JSON.stringify(cols.map((c) => c.get(i)), json))
    }
    return { rows, batches, report: s.report, schema: f.schema.fields.map((x) => x.name) }
  } finally {
    f.close()
  }
}

function json(_, v) {
  if (typeof v === 'bigint') return String(v)
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
  if (v && typeof v === 'object' && typeof v.toJSON === 'function' && !Array.isArray(v)) return v.toJSON()
  return v
}

async function outcome(eng, src, opts) {
  try {
    return await rowsOf(eng, src, opts)
  } catch (e) {
    return { error: e.code ?? e.name }
  }
}

test('the corpus: a pooled scan returns the one-Worker rows in order', async (t) => {
  let split = 0
  let files = 0
  for (const [rel] of walk(corpusDir())) {
    if (!rel.endsWith('.parquet')) continue
    files++
    const src = path.join(corpusDir(), rel)
    const want = await outcome(one, src)
    const got = await outcome(tiny, src)
    if (want.error) {
      assert.equal(got.error, want.error, rel)
      continue
    }
    assert.equal(got.error, undefined, `${rel}: ${got.error}`)
    assert.deepEqual(got.rows, want.rows, rel)
    if (got.report.units > 1) split++
  }
  t.diagnostic(`${split} of ${files} files split into units`)
  assert.ok(split >= 10, `only ${split} files split`)
})

const url = () => srv.url + '/one-rg.parquet'
const columns = ['event_time', 'tenant_id', 'event_type', 'value']

test('one 1M-row row group spreads over two Workers, rows unchanged', async (t) => {
  const want = await rowsOf(one, url(), { columns })
  const got = await rowsOf(two, url(), { columns })
  t.diagnostic(`units ${got.report.units} on ${got.report.threads} workers, ${got.batches} batches`)
  assert.equal(want.report.units, undefined, 'one Worker: one session')
  assert.equal(got.report.rowGroupsTotal, 1)
  assert.ok(got.report.units >= 2, `units: ${got.report.units}`)
  assert.equal(got.report.threads, 2)
  assert.equal(got.report.rowsReturned, 1_000_000)
  assert.equal(got.rows.length, 1_000_000)
  assert.deepEqual(got.rows, want.rows)
})

test('offset and limit keep their meaning in a pooled scan; a limit needs fewer units', async () => {
  for (const o of [{ offset: 123_457, limit: 400_000 }, { limit: 10 }, { where: 'tenant_id < 1100', limit: 5000 }, { where: 'value > 500' }]) {
    const want = await rowsOf(one, url(), { columns, ...o })
    const got = await rowsOf(two, url(), { columns, ...o })
    assert.deepEqual(got.rows, want.rows, JSON.stringify(o))
  }
  const all = await rowsOf(two, url(), { columns })
  const some = await rowsOf(two, url(), { columns, limit: 300_000 })
  assert.ok(!(some.report.units >= all.report.units), `limit: ${some.report.units} units of ${all.report.units}`)
})

test('a scan cancelled mid-way stops every unit; the pool scans again', async () => {
  const f = await two.openParquet(url())
  const ctrl = new AbortController()
  let n = 0
  await assert.rejects(
    (async () => {
      for await (const b of f.scan({ columns, batchRows: 8192, signal: ctrl.signal })) {
        void b
        if (++n === 3) ctrl.abort()
      }
    })(),
    (e) => e.name === 'AbortError',
  )
  f.close()
  const want = await rowsOf(one, url(), { columns })
  const got = await rowsOf(two, url(), { columns })
  assert.ok(got.report.units >= 2)
  assert.equal(got.report.threads, 2, 'both Workers took units again')
  assert.deepEqual(got.rows, want.rows)
})

test("a unit's error fails the scan, with no batch after it", async () => {
  const f = await two.openParquet(url())
  let n = 0
  let err = null
  try {
    for await (const b of f.scan({ columns, batchRows: 8192 })) {
      void b
      // The file changes under the scan: units that start after get 412 (If-Match).
      if (++n === 1) srv.replace('/one-rg.parquet', big.slice())
    }
  } catch (e) {
    err = e
  }
  f.close()
  assert.equal(err?.code, 'file-changed', `${err}`)
  assert.ok(n < 1_000_000 / 8192, `${n} batches`)
  const again = await rowsOf(two, url(), { columns: ['value'] })
  assert.equal(again.rows.length, 1_000_000)
})

test('worker: false stays one session', async () => {
  const eng = createEngine({ worker: false, workers: 4 })
  const got = await rowsOf(eng, url(), { columns: ['value'] })
  assert.equal(got.report.units, undefined)
  assert.equal(got.rows.length, 1_000_000)
})

test('GZIP and BROTLI files (the full module) pool, rows equal one Worker and the ZSTD source', async (t) => {
  const source = await rowsOf(one, srv.url + '/zstd.parquet')
  assert.equal(source.rows.length, 100_000)
  for (const c of codecs) {
    const want = await rowsOf(one, `${srv.url}/${c}.parquet`)
    const got = await rowsOf(tiny, `${srv.url}/${c}.parquet`)
    t.diagnostic(`${c}: ${got.report.units} units on ${got.report.threads} workers`)
    assert.ok(got.report.units >= 2, `${c}: units ${got.report.units}`)
    assert.equal(got.report.threads, 2)
    assert.deepEqual(got.rows, want.rows, c)
    assert.deepEqual(got.rows, source.rows, `${c}: the ZSTD file's rows`)
  }
})

test('runtime filters reach every unit of a pooled scan', async () => {
  const filter = 'value > 900'
  // Given before the first batch: every unit filters exactly, as the where would.
  const where = await rowsOf(one, url(), { columns, where: filter })
  const f = await two.openParquet(url())
  try {
    const s = f.scan({ columns, raw: true })
    const tightened = s.tighten(filter)
    const rows = []
    for await (const ipc of s) {
      const t = tableFromIPC(ipc)
      const cols = t.schema.fields.map((x) => t.getChild(x.name))
      for (let i = 0; i < t.numRows; i++) rows.push(JSON.stringify(cols.map((c) => c.get(i)), json))
    }
    await tightened
    assert.ok(s.report.units >= 2, `units: ${s.report.units}`)
    assert.ok(s.report.runtimeFilters >= 1, `runtimeFilters: ${s.report.runtimeFilters}`)
    assert.ok(where.rows.length > 0 && where.rows.length < 1_000_000)
    assert.deepEqual(rows, where.rows)
  } finally {
    f.close()
  }
  // Given after the first batch: the rows are the unfiltered ones in order, less some of
  // those the filter removes, and the units that start after it filter exactly.
  const cols = ['event_time', 'value'] // event_time holds most of the bytes: units on two Workers
  const all = await rowsOf(one, url(), { columns: ['value'], rowIndex: 'rid' })
  const g = await two.openParquet(url())
  try {
    const s = g.scan({ columns: cols, rowIndex: 'rid', batchRows: 8192, raw: true })
    const rows = []
    let tightened = null
    for await (const ipc of s) {
      tightened ??= s.tighten(filter)
      const t = tableFromIPC(ipc)
      for (let i = 0; i < t.numRows; i++) rows.push([Number(t.getChild('rid').get(i)), t.getChild('value').get(i)])
    }
    await tightened
    assert.ok(s.report.units >= 3, `units: ${s.report.units}`)
    assert.ok(rows.length < all.rows.length, `${rows.length} rows`)
    const byRid = new Map(all.rows.map((r) => JSON.parse(r)).map(([rid, v]) => [Number(rid), v]))
    let last = -1
    for (const [rid, v] of rows) {
      assert.ok(rid > last && byRid.get(rid) === v, `row ${rid}`)
      last = rid
    }
    // The last unit starts only when a Worker is free, after the first batch was taken.
    assert.ok(rows.filter(([rid]) => rid >= 900_000).every(([, v]) => v > 900), 'the last unit filtered')
  } finally {
    g.close()
  }
})

// A pool of fake Workers (scanPooled's engine interface) whose units each hold unitBytes and
// send batches of batchBytes: what the pool accounts, without a module or a timer.
function fakePool(n, unitBytes, batchBytes, batches) {
  const seen = { running: 0, most: 0 }
  const unitScan = async function* (hooks) {
    const u = hooks.unit.files[0]
    seen.running++
    seen.most = Math.max(seen.most, seen.running)
    try {
      for (let j = 0; j < batches; j++) {
        await new Promise((r) => setImmediate(r))
        if (hooks.signal.aborted) throw hooks.signal.reason
        const ipc = new Uint8Array(batchBytes)
        ipc[0] = u
        ipc[1] = j
        yield { type: 'batch', ipc }
      }
      yield { type: 'done', report: { rowsReturned: batches }, http: null }
    } finally {
      seen.running--
    }
  }
  const units = Array.from({ length: n }, (_, i) => ({ files: [i, i + 1], bytes: unitBytes }))
  const helper = { adopt: async () => 1, scanOne: (file, opts, hooks) => unitScan(hooks) }
  const eng = {
    opts: { unitMinBytes: 1 },
    poolHelpers: (k) => Array.from({ length: k }, () => helper),
    scanOne: async function* (file, opts, hooks) {
      if (hooks.plan) yield { type: 'units', file: 1, units, report: null, http: null, share: {} }
      else yield* unitScan(hooks)
    },
  }
  return { eng, seen }
}

test('the units in flight and the batches waiting stay within the memory cap', async () => {
  const unitBytes = 1 << 20
  const batchBytes = 256 << 10
  const cap = 3 * unitBytes
  const { eng, seen } = fakePool(20, unitBytes, batchBytes, 4)
  const order = []
  let done = null
  for await (const m of scanPooled(eng, 1, { memoryCap: cap }, {}, 4)) {
    if (m.type === 'batch') order.push(m.ipc[0] * 4 + m.ipc[1])
    else done = m
    for (let k = 0; k < 3; k++) await new Promise((r) => setImmediate(r)) // a slow consumer
  }
  assert.deepEqual(order, Array.from({ length: 80 }, (_, i) => i), 'batches in unit order')
  assert.equal(done.report.units, 20)
  assert.equal(done.report.threads, 4)
  // The head always runs; the others start only within the cap, and wait with a batch over it.
  assert.ok(done.report.peakBytes <= cap + unitBytes + 4 * batchBytes, `peak ${done.report.peakBytes}`)
  assert.ok(seen.most <= cap / unitBytes + 1, `${seen.most} units ran at once`)
  assert.ok(seen.most >= 2, 'units ran side by side')

  // A real scan reports its accounting (the engine needs its largest column chunk, 5.3 MB,
  // within the cap; a unit holds about a quarter of the 1M rows' bytes).
  const memoryCap = 12 << 20
  const r = await rowsOf(two, url(), { columns, memoryCap })
  const per = r.report.bytesRequested / r.report.units
  assert.ok(r.report.peakBytes > 0 && r.report.peakBytes <= memoryCap + 2 * per + (4 << 20), `peak ${r.report.peakBytes}, unit ${per | 0}`)
})
