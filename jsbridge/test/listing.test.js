// listDataset (src/listing.js): folder and glob selection, listing faults, and openDataset over
// a listing of test/server.js (pagination followed, sizes from the listing: no probe). The
// ListObjectsV2 parser is the module's (internal/dataset/listing: Test_Parse, FuzzParse).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { listDataset } from '../src/listing.js'
import { openDataset, openParquet, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

const tiny = corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')
const paths = ['/b/ds/day=1/a.parquet', '/b/ds/day=1/b.parquet', '/b/ds/day=2/c.parquet', '/b/ds/day=2/_tmp.parquet', '/b/ds/.hidden/d.parquet', '/b/ds/day=3/notes.txt', '/b/other/e.parquet']
let srv
before(async () => {
  srv = await startServer(new Map(paths.map((p) => [p, tiny])))
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

test('listDataset: a folder follows every page and keeps the visible *.parquet below it', async () => {
  srv.reset()
  srv.mode.listPage = 2
  try {
    const files = await listDataset(`${srv.url}/b/ds/`)
    assert.deepEqual(files.map((f) => f.key), ['b/ds/day=1/a.parquet', 'b/ds/day=1/b.parquet', 'b/ds/day=2/c.parquet'])
    assert.deepEqual(files.map((f) => f.url), files.map((f) => `${srv.url}/${f.key}`))
    assert.ok(files.every((f) => f.size === tiny.length && f.etag === `v1-${tiny.length}`))
    assert.deepEqual(srv.log.map((l) => l.list), ['?list-type=2&prefix=b%2Fds%2F', '?list-type=2&continuation-token=after%3Ab%2Fds%2Fday%3D1%2Fa.parquet&prefix=b%2Fds%2F', '?list-type=2&continuation-token=after%3Ab%2Fds%2Fday%3D2%2F_tmp.parquet&prefix=b%2Fds%2F'])
    // Path style: the first segment is the bucket.
    srv.reset()
    const ps = await listDataset(`${srv.url}/b/ds/day=2/`, { pathStyle: true })
    assert.deepEqual(ps.map((f) => f.url), [`${srv.url}/b/ds/day=2/c.parquet`])
    assert.deepEqual(srv.log.map((l) => [l.path, l.list]), [['/b', '?list-type=2&prefix=ds%2Fday%3D2%2F']])
  } finally {
    delete srv.mode.listPage
  }
})

test('listDataset: globs', async () => {
  const keys = async (g) => (await listDataset(`${srv.url}/${g}`)).map((f) => f.key)
  // '?' starts a URL's query: a glob writes it %3F.
  assert.deepEqual(await keys('b/ds/day=*/*.parquet'), ['b/ds/day=1/a.parquet', 'b/ds/day=1/b.parquet', 'b/ds/day=2/c.parquet'])
  assert.deepEqual(await keys('b/ds/day=[2-3]/%3F.parquet'), ['b/ds/day=2/c.parquet'])
  assert.deepEqual(await keys('b/**/*.parquet'), ['b/ds/day=1/a.parquet', 'b/ds/day=1/b.parquet', 'b/ds/day=2/c.parquet', 'b/other/e.parquet'])
  assert.deepEqual(await keys('b/ds/day=2/_tmp.parquet'), ['b/ds/day=2/_tmp.parquet'], 'a literal segment may name a hidden file')
  await assert.rejects(listDataset(`${srv.url}/b/[ab/*.parquet`), (e) => e.code === 'options' && /unclosed/.test(e.message))
})

test('listDataset: listing faults are errors naming the page', async () => {
  for (const [mode, code, msg] of [['error', 'http', /HTTP 503: .*SlowDown/], ['truncated', 'listing', /without a continuation token/], ['loop', 'listing', /token "after:" again/]]) {
    srv.mode.list = mode
    try {
      await assert.rejects(listDataset(`${srv.url}/b/ds/`), (e) => e.code === code && msg.test(e.message) && e.message.includes(`${srv.url}/?list-type=2`), mode)
    } finally {
      delete srv.mode.list
    }
  }
})

test('openDataset over a listing: the listed sizes save every probe; rows of every file', async () => {
  const files = await listDataset(`${srv.url}/b/ds/`)
  srv.reset()
  const ds = await openDataset(files, { worker: false, wasm: wasmPath })
  assert.deepEqual(srv.log.map((l) => l.path), [paths[0]], 'one request: the first footer, no size probe')
  const t = await ds.scan({ columns: ['id', 'day'], where: 'id < 2' }).toTable()
  const one = await openParquet(files[0].url, { worker: false, wasm: wasmPath })
  const ids = (await one.scan({ columns: ['id'], where: 'id < 2' }).toTable()).toArray().map((r) => r.id)
  assert.equal(ids.length, 2)
  assert.deepEqual(t.toArray().map((r) => [r.id, r.day]), [1n, 1n, 2n].flatMap((day) => ids.map((id) => [id, day])))
  one.close()
  ds.close()
})
