// listDataset (src/listing.js): the ListObjectsV2 parser against the Go parser's handwritten
// responses (internal/dataset/listing/testdata, the same expectations as its Test_Parse), its
// errors, a mutation fuzz pass, folder and glob selection, and openDataset over a listing of
// test/server.js (pagination followed, sizes from the listing: no probe).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { listDataset, parseListing } from '../src/listing.js'
import { openDataset, openParquet, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, repoRoot, wasmPath } from './helpers.js'

const xml = (name) => readFileSync(path.join(repoRoot, 'internal/dataset/listing/testdata', name), 'utf8')

test('parseListing reads what S3, GCS, MinIO and R2 return', () => {
  const cases = [
    ['aws_page1.xml', ['events/event_date=2024-01-01/part-0.parquet', 'events/event_date=2024-01-01/part-1.parquet'], [1048576, 2097152], ['9b2cf535f27731c974343645a3985328', 'd41d8cd98f00b204e9800998ecf8427e-3'], '1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM='],
    ['aws_page2.xml', ['events/event_date=2024-01-02/_SUCCESS', 'events/event_date=2024-01-02/part-0.parquet'], [0, 524288], ['d41d8cd98f00b204e9800998ecf8427e', '0cc175b9c0f1b6a831c399e269772661'], ''],
    ['minio_delimiter.xml', ['tbl/README & notes <v2>.txt'], [12], ['e2fc714c4727ee9395f324cd2e7f331f'], ''],
    ['gcs_nonamespace.xml', ['dt=2024-01-01/a b+c.parquet'], [4096], ['5d41402abc4b2a76b9719d911017c592'], ''],
    ['r2_urlencoded.xml', ['letter=%2F%20%25f/pé.parquet'], [490], ['c4ca4238a0b923820dcc509a6f75849b'], ''],
    ['empty.xml', [], [], [], ''],
  ]
  for (const [file, keys, sizes, etags, token] of cases) {
    const p = parseListing(xml(file))
    assert.deepEqual(p.contents.map((o) => o.key), keys, file)
    assert.deepEqual(p.contents.map((o) => o.size), sizes, file)
    assert.deepEqual(p.contents.map((o) => o.etag), etags, file)
    assert.equal(p.nextToken, token, file)
    assert.equal(p.isTruncated, token !== '', file)
  }
})

test('parseListing refuses what is not a complete listing', () => {
  const page1 = xml('aws_page1.xml')
  const cases = [
    ['truncated without token', xml('truncated_no_token.xml'), /without a continuation token.*"a.parquet"/],
    ['service error', xml('error_nosuchbucket.xml'), /refused by the service: NoSuchBucket/],
    ['body cut in half', page1.slice(0, page1.length >> 1), /malformed/],
    ['empty body', '', /malformed/],
    ['html', '<html><body>404</body></html>', /root element <html>/],
    ['not xml', '{"Contents":[]}', /malformed/],
    ['negative size', '<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>', /"a": Size "-1"/],
    ['size not a number', '<ListBucketResult><Contents><Key>a</Key><Size>1e3</Size></Contents></ListBucketResult>', /Size/],
    ['no key', '<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>', /no Key/],
    ['bad IsTruncated', '<ListBucketResult><IsTruncated>yes</IsTruncated></ListBucketResult>', /IsTruncated/],
    ['unknown encoding', '<ListBucketResult><EncodingType>base64</EncodingType></ListBucketResult>', /EncodingType/],
    ['unclosed entity', '<ListBucketResult><Contents><Key>a &amp b</Key><Size>1</Size></Contents></ListBucketResult>', /entity/],
    ['mismatched tags', '<ListBucketResult><Contents><Key>a</Size></Contents></ListBucketResult>', /unexpected/],
  ]
  for (const [name, body, msg] of cases) {
    assert.throws(() => parseListing(body, 'page'), (e) => e.name === 'PqscanError' && e.code === 'listing' && msg.test(e.message), name)
  }
})

test('fuzz: mutated listings parse or fail with a listing error, never anything else', () => {
  const seeds = ['aws_page1.xml', 'aws_page2.xml', 'minio_delimiter.xml', 'gcs_nonamespace.xml', 'r2_urlencoded.xml', 'truncated_no_token.xml', 'error_nosuchbucket.xml'].map(xml)
  let x = 0x9e3779b9 // a fixed xorshift seed: the run is the same every time
  const rnd = (n) => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % n
  }
  const alphabet = '<>/&;"=#x0123456789 \n]![CDATA?-'
  let parsed = 0
  for (let i = 0; i < 3000; i++) {
    let s = seeds[rnd(seeds.length)]
    for (let k = 1 + rnd(4); k > 0; k--) {
      const at = rnd(s.length + 1)
      const op = rnd(3)
      if (op === 0) s = s.slice(0, at) + alphabet[rnd(alphabet.length)] + s.slice(at)
      else if (op === 1) s = s.slice(0, at) + s.slice(at + 1 + rnd(8))
      else s = s.slice(0, at)
    }
    try {
      const p = parseListing(s)
      parsed++
      for (const o of p.contents) assert.ok(o.key !== '' && Number.isSafeInteger(o.size) && o.size >= 0 && !/^".*"$/.test(o.etag), JSON.stringify(o))
      assert.ok(!p.isTruncated || p.nextToken !== '')
    } catch (e) {
      if (e.code !== 'listing') throw new Error(`input ${JSON.stringify(s)}: ${e.stack}`)
    }
  }
  assert.ok(parsed > 100, `only ${parsed} mutated inputs parsed: the mutations are too coarse to test acceptance`)
})

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
