// Dataset faults in headless Chromium, through the bundle and its Worker
// against bin/pqserve (faultserver): a listing that pages (max-keys=1, so every key is its
// own page), a listing error and a truncated listing, and in a dataset a file that changes
// mid-scan (ETag), a corrupt file and an unreachable one. Every failure is a PqscanError with
// a code that names the file or the listing page; no scan returns a partial result.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { mkdtempSync, mkdirSync, copyFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { startServer, startBrowser, goRows, corpusDir } from './harness.js'

const FILE = 'parquet-testing/data/alltypes_tiny_pages_plain.parquet'
const PARTS = ['part=1/a.parquet', 'part=2/b.parquet', 'part=3/c.parquet']
let dir, srv, br, page

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pqscan-e2e-dsf-'))
  for (const p of PARTS) {
    mkdirSync(path.join(dir, 'ds', path.dirname(p)), { recursive: true })
    copyFileSync(path.join(corpusDir(), FILE), path.join(dir, 'ds', p))
  }
  mkdirSync(path.join(dir, 'bad', 'part=9'), { recursive: true })
  // A corrupt file: a valid magic at both ends, a footer length pointing before the start.
  writeFileSync(path.join(dir, 'bad', 'part=9', 'corrupt.parquet'), Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64, 7), Buffer.from([0xff, 0xff, 0x00, 0x00]), Buffer.from('PAR1')]))
  srv = await startServer({ data: dir })
  br = await startBrowser()
  page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
  await page.goto(srv.url + 'fixtures/blank.html')
})
after(async () => {
  await br?.close()
  srv?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

// list runs listDataset in the page, path-style (/data is the bucket), with fetch rewritten by
// `rewrite` (a string of JS: (url) => url) so a test can add max-keys or a fault path; then,
// when scan is set, openDataset over the listing and one scan.
function list(folder, rewrite, scan) {
  return page.evaluate(
    async ({ folder, rewrite, scan }) => {
      const { listDataset, openDataset } = await import('/pqscan/dist/pqscan.js')
      const urls = []
      const fn = new Function('return ' + rewrite)()
      const fetchFn = (u, init) => {
        const v = fn(String(u))
        urls.push(v)
        return fetch(v, init)
      }
      try {
        const files = await listDataset(folder, { pathStyle: true, fetch: fetchFn })
        const out = { keys: files.map((f) => f.key), sizes: files.map((f) => f.size), pages: urls.length }
        if (scan) {
          const ds = await openDataset(files, { wasmURL: '/pqscan/pqscan.wasm' })
          const t = await ds.scan(scan).toTable()
          out.rows = t.numRows
        }
        return out
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name, pages: urls.length }
      }
    },
    { folder, rewrite, scan },
  )
}

// scanDataset opens urls as a dataset and scans them whole; an error comes back with its code
// and the file it names; toTable either resolves whole or rejects (no partial table).
function scanDataset(urls, q) {
  return page.evaluate(
    async ({ urls, q }) => {
      const { openDataset } = await import('/pqscan/dist/pqscan.js')
      try {
        const ds = await openDataset(urls, { wasmURL: '/pqscan/pqscan.wasm', maxRetries: 1, backoffMs: 1 })
        const t = await ds.scan(q).toTable()
        return { rows: t.numRows }
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name, file: e.file }
      }
    },
    { urls, q },
  )
}

test('a listing that pages key by key lists every file and the dataset reads them all', async () => {
  const one = goRows(path.join(dir, 'ds', PARTS[0]), { columns: ['id'] })
  const r = await list(srv.url + 'data/ds/', "(u) => u + '&max-keys=1'", { columns: ['id', 'part'] })
  assert.equal(r.error, undefined, r.error)
  assert.deepEqual(r.keys, PARTS.map((p) => 'ds/' + p))
  assert.ok(r.pages >= PARTS.length, `${r.pages} pages for ${PARTS.length} keys`)
  assert.equal(r.rows, 3 * one.rows.length)
})

test('a listing error and a truncated listing are PqscanErrors naming the page', async () => {
  const fault = (mode) => `(u) => u.replace('/data?', '/data/fault/${mode}/?')`
  const e1 = await list(srv.url + 'data/ds/', fault('list-error'))
  assert.equal(e1.code, 'http', e1.error)
  assert.match(e1.error, /listing http:\/\/127\.0\.0\.1:\d+\/data\?list-type=2.*HTTP 503.*SlowDown/)
  const e2 = await list(srv.url + 'data/ds/', fault('list-truncated'))
  assert.equal(e2.code, 'listing', e2.error)
  assert.match(e2.error, /pqscan: http:\/\/127\.0\.0\.1:\d+\/data\?list-type=2\S*: truncated listing without a continuation token/)
  const e3 = await list(srv.url + 'data/ds/', fault('list-loop'))
  assert.equal(e3.code, 'listing', e3.error)
  assert.match(e3.error, /continuation token/)
})

test('in a dataset, a file that changes mid-scan, a corrupt file and an unreachable one fail the scan naming the file', async () => {
  const ok = PARTS.map((p) => srv.data + 'ds/' + p)
  const q = { columns: ['id', 'string_col'] }
  const whole = await scanDataset(ok, q)
  assert.equal(whole.error, undefined, whole.error)

  // etag-change: the first attempt (the footer) gets the file, later ones other bytes, another ETag.
  const changed = srv.data + 'fault/etag-change/ds/' + PARTS[1]
  const c = await scanDataset([ok[0], changed, ok[2]], q)
  assert.equal(c.code, 'file-changed', c.error)
  assert.equal(c.file, changed)
  assert.equal(c.rows, undefined, 'no partial result')

  const corrupt = srv.data + 'bad/part=9/corrupt.parquet'
  const k = await scanDataset([ok[0], corrupt], q)
  assert.equal(k.code, 'not-parquet', k.error)
  // The engine's error names the file in its message and, as HTTP errors do, in `file`.
  assert.ok(k.error.includes(corrupt + ': scan: not a Parquet file'), k.error)
  assert.equal(k.file, corrupt)

  const gone = 'http://127.0.0.1:9/part=4/unreachable.parquet' // the discard port: nothing listens
  const u = await scanDataset([ok[0], gone], q)
  assert.equal(u.code, 'http', u.error)
  assert.equal(u.file, gone)
})
