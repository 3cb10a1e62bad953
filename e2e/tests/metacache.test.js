// The metadata cache in headless Chromium (jsbridge tailcache.js, IndexedDB by default): a
// returning visit is a new page in the same browser profile. Files are served by bin/pqserve
// from a temporary folder the tests replace files in.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { mkdtempSync, readFileSync, writeFileSync, symlinkSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { startServer, startBrowser, corpusDir, sampleDir } from './harness.js'

const plain = readFileSync(path.join(corpusDir(), 'parquet-testing/data/alltypes_plain.parquet'))
let srv, br, dir
const log = []
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pqscan-mc-'))
  symlinkSync(path.join(sampleDir, 'events.parquet'), path.join(dir, 'events.parquet'))
  writeFileSync(path.join(dir, 'plain.parquet'), plain)
  srv = await startServer({ data: dir })
  br = await startBrowser()
  // Every request for a data file, the Worker's included; "?noetag" strips the ETag.
  await br.ctx.route('**/data/**', async (route) => {
    const r = route.request()
    log.push(r.headers().range ?? '')
    if (!r.url().endsWith('?noetag')) return route.continue()
    const resp = await route.fetch()
    const headers = { ...resp.headers() }
    delete headers.etag
    return route.fulfill({ response: resp, headers })
  })
})
after(async () => {
  await br?.close()
  srv?.stop()
})


// alltypes_plain with its id column (PLAIN int32) rewritten: the same size, other rows.
function plainWithIds(ids) {
  const b = Buffer.from(plain)
  const at = b.indexOf(Buffer.from(new Int32Array([4, 5, 6, 7, 2, 3, 0, 1]).buffer))
  assert.ok(at > 0)
  Buffer.from(new Int32Array(ids).buffer).copy(b, at)
  return b
}

let version = 0
function replace(name, bytes) {
  writeFileSync(path.join(dir, name), bytes)
  const t = new Date(Date.UTC(2026, 0, 1) + ++version * 3600e3) // a new Last-Modified (and ETag)
  utimesSync(path.join(dir, name), t, t)
}

// One visit: a new page of the same profile runs a scan; its data requests and report.
async function visit(url, q, opts = {}) {
  const page = await br.ctx.newPage()
  try {
    await page.goto(srv.url + 'fixtures/blank.html')
    log.length = 0
    const r = await page.evaluate(
      async ({ url, q, opts }) => {
        const { openParquet, query } = await import('/pqscan/dist/pqscan.js')
        try {
          const o = { wasmURL: '/pqscan/pqscan.wasm', ...opts }
          // opts.query: open and scan in one call (a returning query's plan leaves at once)
          const s = o.query ? query(url, { ...o, ...q }) : (await openParquet(url, o)).scan(q)
          const t = await s.toTable()
          const col = t.getChild(q.columns[0])
          return { n: t.numRows, first: col ? Array.from(col.toArray().slice(0, 8), Number) : [], report: s.report }
        } catch (e) {
          return { error: `${e.code ?? e.name}: ${e.message}` }
        }
      },
      { url, q, opts },
    )
    return { ...r, log: log.slice().sort() }
  } finally {
    await page.close()
  }
}

test('a returning visit sends no tail request, only the first visit\'s data requests', async () => {
  const url = srv.url + 'data/events.parquet'
  const q = { columns: ['tenant_id', 'value'], where: "tenant_id = 42 AND event_type = 'purchase'", limit: 100 }
  const first = await visit(url, q)
  assert.equal(first.error, undefined)
  assert.ok(first.log.some((r) => r.startsWith('bytes=-')), 'the first visit reads the tail')
  assert.equal(first.report.metadataFromCache, undefined)
  const second = await visit(url, q)
  assert.equal(second.error, undefined)
  assert.equal(second.n, first.n)
  assert.deepEqual(second.first, first.first)
  assert.deepEqual(second.report.metadataFromCache, ['tail', 'plan'])
  assert.ok(!second.log.some((r) => r.startsWith('bytes=-')), `no tail request: ${second.log}`)
  assert.ok(second.log.length > 0 && second.log.every((r) => first.log.includes(r)), `${second.log} ⊆ ${first.log}`)
  assert.equal(second.report.requestsSaved, first.log.length - second.log.length, JSON.stringify({ first: first.log, second: second.log, rep: [second.report.requestsSaved, second.report.roundTripsSaved] }))
  // metadataCache: false reads the file as a first visit does.
  const off = await visit(url, q, { metadataCache: false })
  assert.deepEqual(off.log, first.log)
  // query(): the same scan in one call finds the plan the scans stored (same options).
  const third = await visit(url, q, { query: true })
  assert.equal(third.error, undefined)
  assert.deepEqual([third.n, third.first], [first.n, first.first])
  assert.deepEqual(third.report.metadataFromCache, ['tail', 'plan'])
  assert.deepEqual(third.log, second.log)
})

test('a file replaced between visits gives the new rows', async () => {
  const q = { columns: ['id'] }
  for (const [name, suffix, bytes, want] of [
    ['same size, new ETag', '', plainWithIds([14, 15, 16, 17, 12, 13, 10, 11]), [14, 15, 16, 17, 12, 13, 10, 11]],
    ['another size', '', readFileSync(path.join(corpusDir(), 'parquet-testing/data/alltypes_plain.snappy.parquet')), [6, 7]],
    ['no ETag, new Last-Modified', '?noetag', plainWithIds([24, 25, 26, 27, 22, 23, 20, 21]), [24, 25, 26, 27, 22, 23, 20, 21]],
  ]) {
    replace('plain.parquet', plain)
    const url = srv.url + 'data/plain.parquet' + suffix
    const first = await visit(url, q)
    assert.deepEqual(first.first, [4, 5, 6, 7, 2, 3, 0, 1], name)
    replace('plain.parquet', bytes)
    const second = await visit(url, q)
    assert.equal(second.error, undefined, name)
    assert.deepEqual(second.first, want, name)
    assert.equal(second.report.metadataFromCache, undefined, name)
    const third = await visit(url, q)
    assert.deepEqual(third.first, want, `${name}: from the new entry`)
    assert.deepEqual(third.report.metadataFromCache, ['tail'], name)
  }
})

test('an IndexedDB of garbage, truncated entries or another version is ignored', async () => {
  const url = srv.url + 'data/events.parquet'
  const q = { columns: ['tenant_id'], where: 'tenant_id = 7', limit: 5 }
  const fresh = await visit(url, q, { metadataCache: false })
  await visit(url, q) // stores the entry
  for (const kind of ['garbage', 'truncated', 'other-version', 'not-bytes']) {
    const page = await br.ctx.newPage()
    await page.goto(srv.url + 'fixtures/blank.html')
    const n = await page.evaluate(async (kind) => {
      const db = await new Promise((res, rej) => {
        const r = indexedDB.open('pqscan-metadata', 1)
        r.onsuccess = () => res(r.result)
        r.onerror = () => rej(r.error)
      })
      const tx = db.transaction('entries', 'readwrite')
      const os = tx.objectStore('entries')
      const all = await new Promise((res) => (os.getAll().onsuccess = (e) => res(e.target.result)))
      for (const e of all) {
        let v = e.value
        if (kind === 'garbage') v = new TextEncoder().encode('garbage')
        if (kind === 'truncated') v = v.slice(0, v.length - 9)
        if (kind === 'other-version') (v = v.slice())[4]++
        if (kind === 'not-bytes') v = { not: 'bytes' }
        os.put({ ...e, value: v })
      }
      await new Promise((res) => (tx.oncomplete = res))
      db.close()
      return all.length
    }, kind)
    await page.close()
    assert.ok(n > 0, 'entries to spoil')
    const got = await visit(url, q)
    assert.equal(got.error, undefined, kind)
    assert.deepEqual(got.first, fresh.first, kind)
    assert.equal(got.report.metadataFromCache, undefined, kind)
    assert.deepEqual(got.log, fresh.log, `${kind}: read as without a cache`)
  }
})
