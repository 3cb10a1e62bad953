// Malicious tables through the bridge: a Delta log, a listing or a redirect that names a
// location outside what the open named fails with code 'scope' before any request for it
// leaves (the servers' logs show none); the legitimate variants still read. The same cases as
// the Go host's scope_test.go.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { openDataset, openParquet, terminateDefaultEngines } from '../src/index.js'
import { corpusDir } from './helpers.js'

const data = new Uint8Array(readFileSync(path.join(corpusDir(), 'delta', 'dat', 'basic_append', 'delta', 'part-00000-3c9f01c2-6db4-4cbc-a744-dbc2f79eb78a-c000.snappy.parquet')))
const schema = JSON.stringify({ type: 'struct', fields: [['letter', 'string'], ['number', 'long'], ['a_float', 'double']].map(([name, type]) => ({ name, type, nullable: true, metadata: {} })) })

// A server of files by path that resolves dot segments as a file server does, logs every
// request (the path as received, before any resolution) and can redirect or list.
async function server() {
  const s = { files: new Map(), redirects: new Map(), listings: new Map(), log: [] }
  s.http = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x')
    const p = path.posix.normalize(decodeURIComponent(u.pathname))
    s.log.push(u.searchParams.get('list-type') ? `${p}?list=${u.searchParams.get('prefix')}` : p)
    if (u.searchParams.get('list-type')) {
      const xml = s.listings.get(u.searchParams.get('prefix'))
      if (xml) res.writeHead(200, { 'Content-Type': 'application/xml' }).end(xml)
      else res.writeHead(501).end('no listing')
      return
    }
    if (s.redirects.has(p)) return res.writeHead(307, { Location: s.redirects.get(p) }).end()
    const b = s.files.get(p)
    if (!b) return res.writeHead(404).end('not found')
    const m = /bytes=(\d*)-(\d*)/.exec(req.headers.range ?? '')
    if (!m) return res.writeHead(200, { 'Content-Length': b.length }).end(b)
    let start = m[1] === '' ? b.length - Number(m[2]) : Number(m[1])
    let end = m[1] === '' || m[2] === '' ? b.length - 1 : Math.min(Number(m[2]), b.length - 1)
    start = Math.max(0, start)
    res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${b.length}`, 'Content-Length': end - start + 1 }).end(b.subarray(start, end + 1))
  })
  await new Promise((r) => s.http.listen(0, '127.0.0.1', r))
  s.url = `http://127.0.0.1:${s.http.address().port}`
  s.requested = (p) => s.log.includes(p)
  s.close = () => new Promise((r) => s.http.close(r))
  return s
}

function commit(addPath, dv) {
  const protocol = dv ? { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] } : { minReaderVersion: 1, minWriterVersion: 2 }
  const add = { path: addPath, partitionValues: {}, size: data.length, modificationTime: 1, dataChange: true, ...(dv ? { deletionVector: dv } : {}) }
  return [{ protocol }, { metaData: { id: 'x', format: { provider: 'parquet' }, schemaString: schema, partitionColumns: [], configuration: {} } }, { add }]
    .map((a) => JSON.stringify(a) + '\n').join('')
}

async function rows(src, opts = {}) {
  const ds = await openDataset(src, opts)
  const { count: n } = await ds.count()
  await ds.close?.()
  return n
}

async function rejectsScope(p, ...names) {
  await assert.rejects(p, (e) => {
    assert.equal(e.code, 'scope', e.message)
    for (const n of names) assert.ok(e.message.includes(n), `${e.message} names ${n}`)
    return true
  })
}

// A Delta case's outcome: 3 rows (true), or its error with no request to the other origin.
async function outcome(c, p) {
  if (!c.code) {
    assert.equal(await p, 3, c.name)
    return true
  }
  if (c.code === 'scope') await rejectsScope(p, 'add action')
  else await assert.rejects(p, (e) => e.code === c.code, c.name)
  assert.deepEqual(other.log, [], `${c.name}: requests to the other origin`)
  return false
}

let srv, other, tmp
before(async () => {
  srv = await server()
  other = await server()
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-scope-'))
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
  await other.close()
  rmSync(tmp, { recursive: true, force: true })
})


test('a Delta table over HTTP whose log names files outside it', async () => {
  srv.files.set('/t/good.parquet', data)
  srv.files.set('/evil-outside.parquet', data)
  other.files.set('/evil.parquet', data)
  const cases = [
    { name: 'add path with ../', add: '../evil-outside.parquet', code: 'scope' },
    { name: 'add path with %2e%2e', add: '%2e%2e/evil-outside.parquet', code: 'scope' },
    { name: 'add path with a double-encoded ..', add: '%252e%252e/evil-outside.parquet', code: 'scope' },
    { name: 'absolute file: URI', add: 'file:///etc/passwd', code: 'scope' },
    { name: 'absolute URL to another origin', add: () => other.url + '/evil.parquet', code: 'scope' },
    { name: 'absolute URL outside the table on its origin', add: () => srv.url + '/evil-outside.parquet', code: 'scope' },
    { name: 'relative path inside', add: 'good.parquet' },
    { name: 'absolute URL inside the table', add: () => srv.url + '/t/good.parquet' },
    { name: 'absolute URL in an allowed prefix', add: () => other.url + '/evil.parquet', allow: () => [other.url + '/'] },
  ]
  for (const c of cases) {
    const add = typeof c.add === 'function' ? c.add() : c.add
    srv.files.set('/t/_delta_log/00000000000000000000.json', new TextEncoder().encode(commit(add)))
    srv.log.length = 0
    other.log.length = 0
    if (await outcome(c, rows(srv.url + '/t/', c.allow ? { allow: c.allow() } : {}))) continue
    assert.ok(!srv.requested('/evil-outside.parquet'), `${c.name}: ${srv.log}`)
  }
})

test('a local Delta table (Node) whose log names files outside it', async () => {
  const dir = path.join(tmp, 'local')
  const table = path.join(dir, 'table')
  mkdirSync(path.join(table, '_delta_log'), { recursive: true })
  writeFileSync(path.join(dir, 'evil-outside.parquet'), data)
  writeFileSync(path.join(table, 'good.parquet'), data)
  symlinkSync(path.join(dir, 'evil-outside.parquet'), path.join(table, 'link.parquet'))
  symlinkSync(table, path.join(dir, 'tablelink'))
  const cases = [
    { name: 'add path with ../', add: '../evil-outside.parquet', code: 'scope' },
    { name: 'add path with %2e%2e', add: '%2e%2e/evil-outside.parquet', code: 'scope' },
    { name: 'absolute file: URI outside', add: pathToFileURL(path.join(dir, 'evil-outside.parquet')).href, code: 'scope' },
    { name: 'absolute URL to another origin', add: other.url + '/evil.parquet', code: 'scope' },
    { name: 'symlink inside the table that leads out', add: 'link.parquet', code: 'scope' },
    { name: 'relative path inside', add: 'good.parquet' },
    { name: 'absolute file: URI inside', add: pathToFileURL(path.join(table, 'good.parquet')).href },
    { name: '../ into an allowed prefix', add: '../evil-outside.parquet', allow: [dir + '/'] },
    { name: 'symlink into an allowed prefix', add: 'link.parquet', allow: [dir + '/'] },
    { name: 'table named through a symlink', add: 'good.parquet', root: path.join(dir, 'tablelink') },
  ]
  for (const c of cases) {
    writeFileSync(path.join(table, '_delta_log', '00000000000000000000.json'), commit(c.add))
    other.log.length = 0
    await outcome(c, rows((c.root ?? table) + '/', c.allow ? { allow: c.allow } : {}))
  }
})

// An absolute ("p") deletion vector is read like an absolute data file path: within the
// open's scope, else refused naming the vector and its data file with no request for it; a
// missing one names both. The data file is table-with-dv-small's (10 rows), the vector its
// own (rows 0 and 9).
test('a Delta table whose deletion vector has an absolute path', async () => {
  const dvDir = path.join(corpusDir(), 'delta', 'delta-rs', 'table-with-dv-small')
  const dvData = new Uint8Array(readFileSync(path.join(dvDir, 'part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet')))
  const vec = new Uint8Array(readFileSync(path.join(dvDir, 'deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin')))
  const log = (at) => [
    { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] } },
    { metaData: { id: 'x', format: { provider: 'parquet' }, schemaString: JSON.stringify({ type: 'struct', fields: [{ name: 'value', type: 'integer', nullable: true, metadata: {} }] }), partitionColumns: [], configuration: {} } },
    { add: { path: 'part-0.parquet', partitionValues: {}, size: dvData.length, modificationTime: 1, dataChange: true, deletionVector: { storageType: 'p', pathOrInlineDv: at, offset: 1, sizeInBytes: 36, cardinality: 2 } } },
  ].map((a) => JSON.stringify(a) + '\n').join('')
  const dir = path.join(tmp, 'absdv')
  mkdirSync(path.join(dir, 'table', '_delta_log'), { recursive: true })
  mkdirSync(path.join(dir, 'vectors'))
  writeFileSync(path.join(dir, 'table', 'part-0.parquet'), dvData)
  writeFileSync(path.join(dir, 'vectors', 'dv.bin'), vec)
  srv.files.set('/dvt/part-0.parquet', dvData)
  other.files.set('/v/dv.bin', vec)
  const fileDV = pathToFileURL(path.join(dir, 'vectors', 'dv.bin')).href
  const cases = [
    { name: 'http table, http vector allowed', table: 'http', at: () => other.url + '/v/dv.bin', allow: () => [other.url + '/v/'], rows: 8 },
    { name: 'http table, http vector not allowed', table: 'http', at: () => other.url + '/v/dv.bin', code: 'scope' },
    { name: 'http table, file: vector', table: 'http', at: () => fileDV, allow: () => [path.join(dir, 'vectors') + '/'], code: 'scope', names: ['remote'] },
    { name: 'http table, missing vector', table: 'http', at: () => other.url + '/v/gone.bin', allow: () => [other.url + '/v/'], code: 'http', reqs: true },
    { name: 'local table, file: vector allowed', table: 'local', at: () => fileDV, allow: () => [path.join(dir, 'vectors') + '/'], rows: 8 },
    { name: 'local table, file: vector not allowed', table: 'local', at: () => fileDV, code: 'scope' },
    { name: 'local table, http vector allowed', table: 'local', at: () => other.url + '/v/dv.bin', allow: () => [other.url + '/v/'], rows: 8 },
    { name: 'local table, missing file: vector', table: 'local', at: () => pathToFileURL(path.join(dir, 'vectors', 'gone.bin')).href, allow: () => [path.join(dir, 'vectors') + '/'], code: 'source', path: path.join(dir, 'vectors', 'gone.bin') },
  ]
  for (const c of cases) {
    const at = c.at()
    srv.files.set('/dvt/_delta_log/00000000000000000000.json', new TextEncoder().encode(log(at)))
    writeFileSync(path.join(dir, 'table', '_delta_log', '00000000000000000000.json'), log(at))
    other.log.length = 0
    const p = rows(c.table === 'http' ? srv.url + '/dvt/' : path.join(dir, 'table') + '/', { maxRetries: 0, ...(c.allow ? { allow: c.allow() } : {}) })
    if (c.rows) {
      assert.equal(await p, c.rows, c.name)
      continue
    }
    await assert.rejects(p, (e) => {
      assert.equal(e.code, c.code, `${c.name}: ${e.message}`)
      for (const n of [c.path ?? at, 'part-0.parquet', ...(c.names ?? [])]) assert.ok(e.message.includes(n), `${c.name}: ${e.message} names ${n}`)
      return true
    })
    if (!c.reqs) assert.deepEqual(other.log, [], `${c.name}: requests to the other origin`)
  }
})

test('a listing whose keys climb out of the folder', async () => {
  srv.files.set('/h/good.parquet', data)
  srv.files.set('/evil-outside.parquet', data)
  const listing = (...keys) => '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>false</IsTruncated>' +
    keys.map((k) => `<Contents><Key>${k}</Key><Size>${data.length}</Size></Contents>`).join('') + '</ListBucketResult>'
  for (const c of [
    { name: 'key with ..', keys: ['h/good.parquet', 'h/../evil-outside.parquet'], code: 'scope' },
    { name: 'key with %2e%2e', keys: ['h/%2e%2e/evil-outside.parquet'], code: 'scope' },
    { name: 'key beside the prefix', keys: ['h/good.parquet', 'evil-outside.parquet'], code: 'scope' },
    { name: 'keys inside', keys: ['h/good.parquet'] },
  ]) {
    srv.listings.set('h/', listing(...c.keys))
    srv.listings.set('h/_delta_log/', listing())
    srv.log.length = 0
    const p = rows(srv.url + '/h/')
    if (c.code) await rejectsScope(p, JSON.stringify(c.keys.at(-1)))
    else assert.equal(await p, 3)
    assert.ok(!srv.requested('/evil-outside.parquet'), `${c.name}: ${srv.log}`)
    if (c.code) assert.ok(!srv.requested('/h/good.parquet'), `${c.name}: a file of a refused listing was read`)
  }
})

test('a redirect to another origin', async () => {
  other.files.set('/f.parquet', data)
  srv.files.set('/store/f.parquet', data)
  srv.redirects.set('/r/f.parquet', other.url + '/f.parquet')
  srv.redirects.set('/s/f.parquet', '/store/f.parquet')
  for (const c of [
    { name: 'to another origin', src: '/r/f.parquet', code: 'scope' },
    { name: 'to an allowed origin', src: '/r/f.parquet', opts: () => ({ redirectOrigins: [other.url] }), reached: true },
    { name: 'to an allowed prefix', src: '/r/f.parquet', opts: () => ({ allow: [other.url + '/f.parquet'] }), reached: true },
    { name: 'to the same origin outside the file', src: '/s/f.parquet', code: 'scope' },
    { name: 'to the same origin in an allowed prefix', src: '/s/f.parquet', opts: () => ({ allow: [srv.url + '/store/'] }) },
  ]) {
    srv.log.length = 0
    other.log.length = 0
    const p = openParquet(srv.url + c.src, c.opts?.() ?? {})
    if (c.code) {
      await rejectsScope(p, 'a redirect from ' + srv.url + c.src)
      assert.deepEqual(other.log, [], `${c.name}: requests to the other origin`)
      assert.ok(!srv.requested('/store/f.parquet'), `${c.name}: ${srv.log}`)
      continue
    }
    const f = await p
    assert.equal(Number(f.metadata.numRows), 3, c.name)
    await f.close?.()
    assert.equal(other.log.length > 0, !!c.reached, c.name)
  }
})
