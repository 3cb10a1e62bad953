// A dataset query in headless Chromium: openDataset over three copies of a corpus file in Hive
// key=value directories served by bin/pqserve (faultserver: Range, ETag, CORS), through the
// bundle and its Worker. The rows are the Go engine's rows of each file plus the partition
// column; a WHERE on the partition column sends no request to the skipped files, and a limit
// none to the files after the first (the browser's requests, Worker ones included, are watched).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { mkdtempSync, mkdirSync, copyFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { startServer, startBrowser, goRows, corpusDir } from './harness.js'

const FILE = 'parquet-testing/data/alltypes_tiny_pages_plain.parquet'
const PARTS = ['part=1/a.parquet', 'part=2/b.parquet', 'part=3/c.parquet']
let dir, srv, br, page
const seen = []

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pqscan-e2e-ds-'))
  for (const p of PARTS) {
    mkdirSync(path.join(dir, 'ds', path.dirname(p)), { recursive: true })
    copyFileSync(path.join(corpusDir(), FILE), path.join(dir, 'ds', p))
  }
  srv = await startServer({ data: dir })
  br = await startBrowser()
  br.ctx.on('request', (r) => {
    const u = new URL(r.url())
    if (u.pathname.includes('/ds/')) seen.push({ path: u.pathname.slice(u.pathname.indexOf('/ds/') + 4), range: r.headers().range })
  })
  page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
  await page.goto(srv.url + 'fixtures/blank.html')
})
after(async () => {
  await br?.close()
  srv?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

function datasetInPage(urls, queries, opts = {}) {
  return page.evaluate(
    async ({ urls, queries, opts }) => {
      const { openDataset } = await import('/pqscan/dist/pqscan.js')
      const { normRows } = await import('/fixtures/norm.js')
      try {
        const ds = await openDataset(urls, { wasmURL: '/pqscan/pqscan.wasm', ...opts })
        const out = { schema: ds.schema.fields.map((f) => `${f.name}: ${f.type}`), files: ds.files, results: [] }
        for (const q of queries) {
          const s = ds.scan(q)
          const t = await s.toTable()
          const { report } = s
          out.results.push({ ...normRows(t), http: s.http, report: { ...report, log: undefined } })
        }
        return out
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name, file: e.file }
      }
    },
    { urls, queries, opts },
  )
}

const requestsFor = () => [...new Set(seen.map((s) => s.path))].sort()

test('a dataset query in Chromium: rows of every file plus the partition column; partition WHERE and limit skip requests', async () => {
  const Q = { columns: ['id', 'string_col', 'bigint_col'], where: 'id >= 200 AND id < 240' }
  const one = goRows(path.join(dir, 'ds', PARTS[0]), Q)
  assert.equal(one.rows.length, 40)
  const urls = PARTS.map((p) => srv.data + 'ds/' + p)
  seen.length = 0
  const r = await datasetInPage(urls, [
    { ...Q, columns: [...Q.columns, 'part'] },
    { columns: ['id', 'part'], where: 'part = 2 AND id < 10' },
    { columns: ['id', 'part'], limit: 7 },
  ])
  assert.equal(r.error, undefined, r.error)
  assert.deepEqual(r.files, urls)
  assert.equal(r.schema.at(-1), 'part: Int64')
  const [all, byPart, limited] = r.results
  // 1: the concatenation of the single-file rows, each with its partition value.
  assert.deepEqual(all.names, [...one.names, 'part'])
  assert.deepEqual(all.rows, ['1n', '2n', '3n'].flatMap((p) => one.rows.map((row) => [...row, p])))
  assert.equal(all.report.filesTotal, 3)
  assert.equal(all.report.filesRead, 3)
  assert.deepEqual(requestsFor(), PARTS, 'every file was read')
  // 2 and 3 ran after 1; their own requests are the ones after it.
  assert.equal(byPart.rows.length, 10)
  assert.ok(byPart.rows.every((row) => row[1] === '2n'))
  assert.deepEqual(byPart.report.files.map((f) => f.skippedBy ?? ''), ['partition', '', 'partition'])
  assert.equal(limited.rows.length, 7)
  assert.ok(limited.rows.every((row) => row[1] === '1n'))
  assert.equal(limited.report.filesRead, 1)

  // The requests, query by query, on a fresh dataset: a partition WHERE asks the skipped files
  // for nothing, and a limit met in the first file asks the others for nothing.
  seen.length = 0
  const r2 = await datasetInPage(urls, [{ columns: ['id'], where: 'part = 1 AND id = 3' }])
  assert.equal(r2.error, undefined, r2.error)
  assert.equal(r2.results[0].rows.length, 1)
  assert.deepEqual(requestsFor(), [PARTS[0]], 'parts 2 and 3 got no request')
  seen.length = 0
  const r3 = await datasetInPage(urls, [{ columns: ['id'], limit: 3 }], { worker: false })
  assert.equal(r3.error, undefined, r3.error)
  assert.equal(r3.results[0].rows.length, 3)
  assert.deepEqual(requestsFor(), [PARTS[0]], 'in-thread too: no later footer with a limit')
  // A missing file is an error naming it.
  const missing = srv.data + 'ds/part=4/missing.parquet'
  const bad = await datasetInPage([urls[0], missing], [{ columns: ['id'] }])
  assert.equal(bad.code, 'http', bad.error)
  assert.equal(bad.file, missing)
  assert.ok(bad.error.includes(missing), bad.error)
})
