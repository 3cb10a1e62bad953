// Iceberg tables in headless Chromium: openDataset on the corpus's tables
// (../shared/testdata/iceberg, served by bin/pqserve at /corpus/), through the bundle and its
// Worker. The metadata, manifest list and manifests are read inside the wasm module
// (pq_open_iceberg); the page only GETs objects and ranges. Every table equals its expected
// rows (the corpus's expected/<table>/oracle/icebird/*.jsonl, canonicalized in the page by
// /fixtures/iceberg-rows.js) at its current snapshot, opened on its folder (listed: /corpus
// is a path-style bucket), and at every older snapshot, by snapshotId on its metadata file
// and, where it has rows, by asOf; count() equals the number of rows (jsbridge's
// iceberg-corpus.test.js reads every combination in Node). One page reads all of them, many reads
// per evaluate, to keep the run short. Faults, injected by routes on one object of a table:
// a manifest that 404s or is cut short, a delete file that 404s, a data file that changes
// between requests; each fails with its code and names the object.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPage } from './harness.js'
import { icebergTables, icebergSnapshots } from '../../jsbridge/test/iceberg-corpus.js'
import { expectedRows } from '../fixtures/iceberg-rows.js'

let env, srv, br, page
before(async () => ({ srv, br, page } = env = await startPage()))
after(() => env?.close())

const tableURL = (r) => `${srv.url}corpus/iceberg/tables/${r.name}/${r.table_root === '.' ? '' : r.table_root + '/'}`

// Each read {url, opts, rescan} in the page: its canonical rows and column names, count() and
// the snapshot read, or the error's code, message and file. With rescan, the rows are those
// of a second scan of the same dataset.
function readInPage(reads) {
  return page.evaluate(async (reads) => {
    const { openDataset } = await import('/pqscan/dist/pqscan.js')
    const { arrowRows } = await import('/fixtures/iceberg-rows.js')
    const out = []
    for (const { url, opts, rescan } of reads) {
      let ds
      try {
        ds = await openDataset(url, { wasmURL: '/pqscan/pqscan.wasm', ...opts })
        let t = await ds.scan().toTable()
        if (rescan) t = await ds.scan().toTable()
        out.push({ rows: arrowRows(t), names: t.schema.fields.map((f) => f.name), count: (await ds.count()).count, snapshotId: ds.metadata.iceberg?.snapshotId })
      } catch (e) {
        out.push({ error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name, file: e.file, status: e.status })
      } finally {
        ds?.close()
      }
    }
    return out
  }, reads)
}

test('every corpus table equals its expected rows at every snapshot, by folder, snapshotId and asOf', async () => {
  const reads = []
  const wants = []
  const read = (url, opts, s, what) => {
    reads.push({ url, opts })
    wants.push({ s, what })
  }
  for (const r of icebergTables()) {
    const meta = `${tableURL(r)}metadata/${r.metadata_file}`
    for (const s of icebergSnapshots(r)) {
      const what = `${r.name} snapshot ${s.id}`
      if (s.current) {
        read(tableURL(r), { pathStyle: true }, s, `${what} (folder)`)
        continue
      }
      read(meta, { snapshotId: s.id }, s, `${what} (snapshotId)`)
      if (s.want.length > 0) read(meta, { asOf: s.asOf }, s, `${what} (asOf)`)
    }
  }
  const got = await readInPage(reads)
  got.forEach((g, i) => {
    const { s, what } = wants[i]
    assert.equal(g.error, undefined, what)
    assert.equal(g.snapshotId, s.id, what)
    assert.deepEqual(g.rows, expectedRows(s.want, g.names), what)
    assert.equal(g.count, s.want.length, `${what}: count`)
  })
  // 25 current snapshots, 32 older ones, 16 of them with rows.
  assert.equal(got.length, 25 + 32 + 16)
})

// icebird__spark_bunnies: its current snapshot reads one data file (DATA) through a manifest
// it wrote (MANIFEST); its second snapshot, another data file less the rows of a position
// delete file (DELETES).
const BUNNIES = 'icebird__spark_bunnies'
const MANIFEST = '91d5eea0-314d-4056-8818-59b825cbd38a-m0.avro'
const DATA = '00000-1-6cd7611f-0ceb-4cf3-8b8e-8c856356df3e-00001.parquet'
const DELETES = '00000-3-6fdcdaeb-591f-4ae0-a39a-75c7fba53907-00001-deletes.parquet'
const WITH_DELETES = '469881615898633426'

// Reads the bunnies table in the page (opts: openDataset's) with `handler` routing the
// requests for one object.
async function withRoute(object, handler, opts = {}, rescan = false) {
  const url = `${srv.url}corpus/iceberg/tables/${BUNNIES}/`
  const match = `**/${BUNNIES}/${object}`
  await br.ctx.route(match, handler)
  try {
    // No metadata cache: a manifest an earlier read stored would answer for the faulty server.
    return (await readInPage([{ url, opts: { pathStyle: true, metadataCache: false, ...opts }, rescan }]))[0]
  } finally {
    await br.ctx.unroute(match, handler)
  }
}

test('faults: a missing or truncated manifest, a missing delete file, a changed data file: each its code, naming the object', async () => {
  const noRoute = () => {}
  for (const opts of [{}, { snapshotId: WITH_DELETES }]) {
    const clean = await withRoute('none', noRoute, opts)
    assert.equal(clean.error, undefined, clean.error)
  }

  const missing = await withRoute(`metadata/${MANIFEST}`, (route) => route.fulfill({ status: 404, body: 'not found' }))
  assert.equal(missing.code, 'iceberg', missing.error)
  assert.match(missing.error, new RegExp(`missing: the manifest metadata/${MANIFEST}`))

  const truncated = await withRoute(`metadata/${MANIFEST}`, async (route) => {
    const res = await route.fetch()
    const body = await res.body()
    await route.fulfill({ status: 200, body: body.subarray(0, body.length >> 1), headers: { 'content-type': 'application/octet-stream' } })
  })
  assert.equal(truncated.code, 'iceberg', truncated.error)
  assert.match(truncated.error, new RegExp(`malformed table metadata: manifest metadata/${MANIFEST}: .*avro: malformed file`))

  const noDeletes = await withRoute(`data/${DELETES}`, (route) => route.fulfill({ status: 404, body: 'not found' }), { snapshotId: WITH_DELETES })
  assert.equal(noDeletes.code, 'http', noDeletes.error)
  assert.equal(noDeletes.status, 404)
  assert.ok(noDeletes.error.includes(DELETES), noDeletes.error)
  assert.ok(noDeletes.file?.endsWith(`data/${DELETES}`), noDeletes.file)

  // The data file's first request (one: the file is small) gets the file; later ones, the
  // second scan's, another ETag.
  let n = 0
  const changed = await withRoute(`data/${DATA}`, async (route) => {
    const res = await route.fetch()
    const headers = res.headers()
    if (++n > 1) headers.etag = '"changed"'
    await route.fulfill({ response: res, headers })
  }, {}, true)
  assert.ok(n > 1, `the data file was requested ${n} time(s)`)
  assert.equal(changed.code, 'file-changed', changed.error)
  assert.ok(changed.file?.endsWith(`data/${DATA}`), changed.file)
  assert.equal(changed.rows, undefined, 'no partial result')
})
