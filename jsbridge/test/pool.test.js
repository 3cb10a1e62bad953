// The scan pool (worker-pool.js): a scan spread over several Workers returns what one Worker
// returns, row for row in the same order, over the corpus, over one 1M-row row group cut into
// units, with a slice; cancellation and a unit's error end every unit.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { createEngine } from '../src/index.js'
import { startServer } from './server.js'
import { corpusDir, repoRoot, walk } from './helpers.js'

let dir, srv, big, one, two, tiny
before(async () => {
  // One row group of 1,000,000 rows with a page index (cmd/pqserve gen: the events sample).
  dir = mkdtempSync(path.join(os.tmpdir(), 'pqscan-pool-'))
  const file = path.join(dir, 'one-rg.parquet')
  execFileSync('go', ['run', './cmd/pqserve', 'gen', '-o', file, '-rows', '1000000', '-rg-rows', '1000000'], { cwd: repoRoot, stdio: 'ignore' })
  big = new Uint8Array(readFileSync(file))
  srv = await startServer(new Map([['/one-rg.parquet', big]]))
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
