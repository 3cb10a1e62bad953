// Delta tables in headless Chromium: openDataset on a folder URL served by bin/pqserve, through
// the bundle and its Worker. The log replay runs inside the wasm module (pq_open_delta); the
// page only GETs log objects and checkpoint ranges. Listed (pqserve's /data is a path-style
// bucket: ListObjectsV2) and probed (no listing at the origin: _last_checkpoint, then commits
// until a 404). The oracle is the expected table contents DAT ships, read by the Go engine
// (`pqserve cat`); row order is not significant in DAT. Faults: a refused feature names it.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readdirSync, mkdtempSync, cpSync, readFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { startServer, startBrowser, goRows, corpusDir } from './harness.js'

const deltaDir = path.join(corpusDir(), 'delta')
let srv, br, page
const seen = [] // the browser's request URLs (Worker ones included)

before(async () => {
  srv = await startServer({ data: deltaDir })
  br = await startBrowser()
  br.ctx.on('request', (r) => seen.push(r.url()))
  page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
  await page.goto(srv.url + 'fixtures/blank.html')
})
after(async () => {
  await br?.close()
  srv?.stop()
})

// Rows as sorted JSON objects with sorted keys: the expected files' column order is not the log's.
const canon = ({ names, rows }) => rows.map((r) => JSON.stringify(Object.fromEntries(names.map((n, i) => [n, r[i]]).sort(([a], [b]) => (a < b ? -1 : 1))))).sort()

function deltaInPage(url, opts) {
  return page.evaluate(
    async ({ url, opts }) => {
      const { openDataset } = await import('/pqscan/dist/pqscan.js')
      const { normRows } = await import('/fixtures/norm.js')
      try {
        const ds = await openDataset(url, { wasmURL: '/pqscan/pqscan.wasm', ...opts })
        return { ...normRows(await ds.scan().toTable()), version: ds.metadata.delta?.version }
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name }
      }
    },
    { url, opts },
  )
}

for (const listed of [true, false]) {
  test(`${listed ? 'listed' : 'probed'}: the DAT cases equal their expected contents at every version`, async () => {
    let n = 0
    for (const c of ['basic_append', 'basic_partitioned', 'with_schema_change']) {
      for (const v of readdirSync(path.join(deltaDir, 'dat', c, 'expected'))) {
        const opts = { pathStyle: listed, ...(v === 'latest' ? {} : { version: Number(v.slice(1)) }) }
        seen.length = 0
        const got = await deltaInPage(`${srv.url}data/dat/${c}/delta/`, opts)
        assert.equal(got.error, undefined, `${c} ${v}`)
        const want = goRows(path.join(deltaDir, 'dat', c, 'expected', v, 'table_content.parquet'))
        assert.deepEqual(canon(got), canon(want), `${c} ${v}`)
        if (v !== 'latest') assert.equal(got.version, Number(v.slice(1)))
        const probes = seen.filter((u) => u.endsWith('/_delta_log/_last_checkpoint')).length
        assert.equal(probes, listed ? 0 : 1, `${c} ${v}: ${listed ? 'the listing names the log' : 'probed from _last_checkpoint'}`)
        n++
      }
    }
    assert.equal(n, 8)
  })
}

test('a table with a Parquet checkpoint, and refusals naming the feature', async () => {
  const got = await deltaInPage(`${srv.url}data/delta-rs/simple_table_with_checkpoint/`, { pathStyle: true })
  assert.equal(got.error, undefined)
  assert.ok(got.version >= 10, `version ${got.version}`) // the checkpoint is version 10
  assert.ok(got.rows.length > 0)
  const dv = await deltaInPage(`${srv.url}data/delta-rs/table-with-dv-small/`, {})
  assert.equal(dv.error, undefined)
  assert.equal(dv.rows.length, 8) // rows 0 and 9 are deleted by its vector
  const missing = await deltaInPage(`${srv.url}data/delta-rs/with_checkpoint_no_last_checkpoint/`, {})
  assert.equal(missing.code, 'http', missing.error)
  assert.ok(missing.error.includes('part-00000-70b1dcdf'), missing.error)
})

// Deletion vectors and column mapping in the page, listed and probed: each table equals the
// Go engine's rows of it and what its log's DELETE and RENAME commits make it (rows 0 and 9
// of table-with-dv-small deleted; ids 12 and 89 of table_with_deletion_logs, 12 alone at
// version 3; logical column names, the partition column never null).
test('deletion vectors and column mapping: the tables equal their expected rows', async () => {
  const cases = [
    { table: 'table-with-dv-small', check: (r) => assert.deepEqual(r.map((x) => x.value).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8]) },
    { table: 'table_with_deletion_logs', check: (r) => {
      assert.equal(r.length, 98)
      assert.ok(!r.some((x) => x.id === '12n' || x.id === '89n')) // int64: norm.js spells it as a bigint
    } },
    { table: 'table_with_deletion_logs', version: 3, check: (r) => {
      assert.equal(r.length, 99)
      assert.ok(!r.some((x) => x.id === '12n') && r.some((x) => x.id === '89n'))
    } },
    { table: 'table_with_column_mapping', check: (r) => {
      assert.equal(r.length, 5)
      for (const x of r) assert.deepEqual(Object.keys(x).sort(), ['Company Very Short', 'Super Name'])
      assert.ok(r.every((x) => /^BM[ES]$/.test(x['Company Very Short'])), JSON.stringify(r))
    } },
  ]
  for (const listed of [true, false]) {
    for (const c of cases) {
      const what = `${c.table} ${c.version ?? 'latest'} ${listed ? 'listed' : 'probed'}`
      const got = await deltaInPage(`${srv.url}data/delta-rs/${c.table}/`, { pathStyle: listed, ...(c.version != null ? { version: c.version } : {}) })
      assert.equal(got.error, undefined, what)
      if (c.version == null) assert.deepEqual(canon(got), canon(goRows(path.join(deltaDir, 'delta-rs', c.table) + '/')), what)
      c.check(got.rows.map((row) => Object.fromEntries(got.names.map((n, i) => [n, row[i]]))))
    }
  }
})

test('a truncated or malformed commit is a "delta" error naming the object, listed and probed', async () => {
  // Copies of a DAT table with commit 1 cut in half, or not JSON, served by a second server.
  const tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-e2e-delta-'))
  const src = path.join(deltaDir, 'dat', 'basic_append', 'delta')
  const commit = '_delta_log/00000000000000000001.json'
  const good = readFileSync(path.join(src, commit))
  cpSync(src, path.join(tmp, 'truncated'), { recursive: true })
  writeFileSync(path.join(tmp, 'truncated', commit), good.subarray(0, good.length >> 1))
  cpSync(src, path.join(tmp, 'malformed'), { recursive: true })
  writeFileSync(path.join(tmp, 'malformed', commit), '{"add": {"path": 12, [}\n')
  const bad = await startServer({ data: tmp })
  try {
    for (const name of ['truncated', 'malformed']) {
      for (const listed of [true, false]) {
        const r = await deltaInPage(`${bad.url}data/${name}/`, { pathStyle: listed })
        assert.equal(r.code, 'delta', `${name} ${listed ? 'listed' : 'probed'}: ${r.error}`)
        assert.ok(r.error.includes('00000000000000000001.json'), r.error)
      }
    }
  } finally {
    bad.stop()
    rmSync(tmp, { recursive: true, force: true })
  }
})

