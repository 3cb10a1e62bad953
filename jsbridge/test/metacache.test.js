// The metadata cache in Node (src/metacache.js, metacache-stores.js, tailcache.js): a folder
// store kept across engines (a new engine is a new process or page), its entries, and the
// files replaced between visits.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEngine } from '../src/index.js'
import { encodeEntry, decodeEntry, encodeTail, decodeTail, encodePlan, decodePlan, crc32c, MetaCache } from '../src/metacache.js'
import { folderStore } from '../src/metacache-stores.js'
import { startServer } from './server.js'
import { corpusFile, corpusDir, addTree, wasmPath } from './helpers.js'

const plain = corpusFile('parquet-testing/data/alltypes_plain.parquet')
const files = new Map([
  ['/tiny.parquet', corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')],
  ['/plain.parquet', plain],
])
let srv
before(async () => {
  srv = await startServer(files)
})
after(() => srv.close())

// One visit: a new engine (nothing in memory), open, scan, close.
async function visit(p, store, scan = { columns: ['id'], where: 'id < 10' }, worker = false) {
  const engine = createEngine({ worker, wasm: wasmPath })
  try {
    srv.reset()
    const f = await engine.openParquet(srv.url + p, { metadataCache: store })
    const s = f.scan(scan)
    const t = await s.toTable()
    const ids = Array.from(t.getChild('id').toArray(), Number)
    const report = s.report
    await f.close?.()
    return { ids, report, log: srv.log.map((l) => l.range) }
  } finally {
    await engine.terminate?.()
  }
}

const rangeLen = (r) => {
  const [a, b] = r.slice('bytes='.length).split('-').map(Number)
  return b - a + 1
}

const tmp = () => mkdtempSync(path.join(tmpdir(), 'pqscan-mc-'))

test('entries: the Go golden entry, truncation, flips and other versions', () => {
  assert.equal(crc32c(new TextEncoder().encode('123456789')), 0xe3069283)
  const t = { size: 1000, etag: '"v1"', lastModified: '', requests: 2, roundTrips: 1, pieces: [{ off: 500, bytes: new TextEncoder().encode('index') }, { off: 900, bytes: new Uint8Array(100).fill(7) }] }
  const e = encodeEntry('tail\u0000u', encodeTail(t))
  // internal/metacache TestEntryGolden: the same bytes.
  assert.equal(Buffer.from(e).toString('hex'), '50514d430100060000007461696c00757a000000d00f042276312200040202e80705696e646578880e64' + '07'.repeat(100) + '544eba44')
  assert.deepEqual(decodeTail(decodeEntry('tail\u0000u', e)).pieces.map((p) => [p.off, p.bytes.length]), [[500, 5], [900, 100]])
  assert.equal(decodeEntry('tail\u0000other', e), null)
  for (let n = 0; n < e.length; n++) assert.equal(decodeEntry('tail\u0000u', e.subarray(0, n)), null, `truncated to ${n}`)
  for (let i = 0; i < e.length; i++) {
    const c = e.slice()
    c[i] ^= 0x40
    assert.equal(decodeEntry('tail\u0000u', c), null, `byte ${i} flipped`)
  }
  // Random payloads inside a valid envelope never decode to pieces outside the file.
  for (let k = 0; k < 2000; k++) {
    const b = new Uint8Array(Math.floor(Math.random() * 40)).map(() => Math.floor(Math.random() * 256))
    const got = decodeTail(b)
    if (got) for (const p of got.pieces) assert.ok(p.off >= 0 && p.off + p.bytes.length <= got.size)
  }
  // Plans: a round trip, every truncation refused, and random payloads never give a range
  // that is empty or outside the file.
  const plan = { size: 2 ** 40, etag: '"v2"', lastModified: 'Wed, 01 Jan 2026 00:00:00 GMT', ranges: [{ off: 4, len: 18727 }, { off: 2 ** 39, len: 1 }] }
  const pb = encodePlan(plan)
  assert.deepEqual(decodePlan(pb), plan)
  // internal/metacache TestPlanGolden: the same bytes.
  assert.equal(
    Buffer.from(encodeEntry('plan\u0000u\u0000fp', pb)).toString('hex'),
    '50514d43010009000000706c616e00750066703500000080808080804004227632221d5765642c203031204a616e20323032362030303a30303a303020474d540208a7920180808080802001656b36b3',
  )
  for (let n = 0; n < pb.length; n++) assert.equal(decodePlan(pb.subarray(0, n)), null, `plan truncated to ${n}`)
  for (let k = 0; k < 2000; k++) {
    const b = new Uint8Array(Math.floor(Math.random() * 40)).map(() => Math.floor(Math.random() * 256))
    const got = decodePlan(b)
    if (got) for (const r of got.ranges) assert.ok(r.off >= 0 && r.len > 0 && r.off + r.len <= got.size)
  }
})

test('a returning visit sends no tail request and the first visit\'s data requests', async () => {
  for (const worker of [false, true]) {
    const dir = tmp()
    const first = await visit('/tiny.parquet', dir, undefined, worker)
    assert.deepEqual(first.ids.slice().sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    assert.equal(first.report.metadataFromCache, undefined)
    const second = await visit('/tiny.parquet', dir, undefined, worker)
    assert.deepEqual(second.ids, first.ids)
    assert.deepEqual(second.report.metadataFromCache, ['tail', 'plan'])
    assert.ok(!second.log.some((r) => r.startsWith('bytes=-')), `no tail request: ${second.log}`)
    assert.ok(second.log.length > 0 && second.log.every((r) => first.log.includes(r)), `${second.log} ⊆ ${first.log}`)
    assert.equal(second.report.requestsSaved, first.log.length - second.log.length)
    assert.ok(second.report.roundTripsSaved >= 1)
  }
})

// One visit through query(): open and scan in one call, as a page that has a URL and a query.
async function queryVisit(p, store, scan, worker) {
  const engine = createEngine({ worker, wasm: wasmPath })
  try {
    srv.reset()
    const s = engine.query(srv.url + p, { ...scan, metadataCache: store })
    const t = await s.toTable()
    const rows = t.toArray().map((r) => JSON.stringify(r.toJSON(), (k, v) => (typeof v === 'bigint' ? String(v) : v)))
    return { rows, report: s.report, http: s.http, log: srv.log.map((l) => l.range) }
  } finally {
    await engine.terminate?.()
  }
}

test('a returning query fetches what it read last time at once: one round trip, same rows', async () => {
  // Late materialization: the filter column's pages, then the matching rows' pages of the
  // others, two rounds after the page index; a returning query asks for both at once.
  const scan = { columns: ['id', 'string_col', 'timestamp_col'], where: 'int_col = 3 AND id < 3000' }
  for (const worker of [false, true]) {
    const dir = tmp()
    const first = await queryVisit('/tiny.parquet', dir, scan, worker)
    assert.ok(first.rows.length > 0)
    assert.equal(first.report.metadataFromCache, undefined)
    const firstData = first.log.filter((r) => !r.startsWith('bytes=-'))
    srv.mode['/tiny.parquet'] = 'slow'
    const second = await queryVisit('/tiny.parquet', dir, scan, worker)
    srv.mode['/tiny.parquet'] = ''
    assert.deepEqual(second.rows, first.rows)
    assert.deepEqual(second.report.metadataFromCache, ['tail', 'plan'])
    // All at once: a pinned source's first requests do not go one at a time (tailcache.js pin).
    assert.equal(srv.stats.maxInflight, second.log.length, `requests in flight together: ${srv.stats.maxInflight} of ${second.log.length}`)
    assert.ok(!second.log.some((r) => r.startsWith('bytes=-')), `no tail request: ${second.log}`)
    assert.ok(second.log.every((r) => first.log.includes(r)), `${second.log} ⊆ ${first.log}`)
    assert.equal(second.http.requests, second.log.length, 'the prefetch is counted as the scan\'s')
    assert.equal(second.http.bytes, second.log.reduce((n, r) => n + rangeLen(r), 0))
    assert.ok(second.http.roundTrips === 1 && second.http.roundTrips < first.http.roundTrips, `round trips ${first.http.roundTrips} → ${second.http.roundTrips}`)
    assert.ok(firstData.length >= 2, `the first visit's data requests: ${firstData}`)
    // Another query of the same file finds no plan: the tail only, its own requests.
    const other = await queryVisit('/tiny.parquet', dir, { ...scan, where: 'int_col = 4 AND id < 3000' }, worker)
    assert.deepEqual(other.report.metadataFromCache, ['tail'])
  }
})

test('a plan is written again only when its scan read other bytes', async () => {
  const m = new Map()
  const puts = []
  const store = { get: async (k) => m.get(k) ?? null, put: async (k, v) => (puts.push(k.split('\u0000')[0]), void m.set(k, v.slice())), delete: async (k) => void m.delete(k) }
  const a = { columns: ['id', 'string_col'], where: 'int_col = 3 AND id < 3000' }
  const b = { columns: ['id'], where: 'id < 100' }
  await visit('/tiny.parquet', store, a)
  assert.equal(puts.splice(0).filter((k) => k === 'plan').length, 1)
  // A returning visit scans a, b, then a again on one open: only b's plan is new.
  const engine = createEngine({ worker: false, wasm: wasmPath })
  try {
    const f = await engine.openParquet(srv.url + '/tiny.parquet', { metadataCache: store })
    for (const o of [a, b, a]) await f.scan(o).toTable()
    f.close()
  } finally {
    await engine.terminate?.()
  }
  assert.equal(puts.filter((k) => k === 'plan').length, 1, `writes: ${puts}`)
})

test('a returning query of a replaced file gives the new rows (its plan is dropped with the tail)', async () => {
  const scan = { columns: ['id', 'string_col'], where: 'int_col = 3 AND id < 3000' }
  const other = corpusFile('parquet-testing/data/alltypes_tiny_pages.parquet') // the same rows, another size
  const orig = corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')
  for (const worker of [false, true]) {
    const dir = tmp()
    srv.set('/tiny.parquet', orig)
    const first = await queryVisit('/tiny.parquet', dir, scan, worker)
    srv.replace('/tiny.parquet', other)
    const second = await queryVisit('/tiny.parquet', dir, scan, worker)
    assert.deepEqual(second.rows, first.rows)
    assert.equal(second.report.metadataFromCache, undefined, 'read again')
    assert.ok(second.log.some((r) => r.startsWith('bytes=-')), 'the new file\'s tail')
    const third = await queryVisit('/tiny.parquet', dir, scan, worker)
    assert.deepEqual(third.rows, first.rows)
    assert.deepEqual(third.report.metadataFromCache, ['tail', 'plan'])
    assert.equal(third.http.roundTrips, 1)
  }
  srv.set('/tiny.parquet', orig)
})

// alltypes_plain with its id column (PLAIN int32, no CRC, no page index) rewritten to other
// values: the same size.
function plainWithIds(ids) {
  const b = plain.slice()
  const want = Buffer.from(new Int32Array([4, 5, 6, 7, 2, 3, 0, 1]).buffer)
  const at = Buffer.from(b).indexOf(want)
  assert.ok(at > 0)
  b.set(new Uint8Array(new Int32Array(ids).buffer), at)
  return b
}

test('a file replaced between visits gives the new rows', async () => {
  const all = { columns: ['id'] }
  for (const [name, mode, bytes, want] of [
    ['same size, new ETag', '', plainWithIds([14, 15, 16, 17, 12, 13, 10, 11]), [14, 15, 16, 17, 12, 13, 10, 11]],
    ['another size', '', corpusFile('parquet-testing/data/alltypes_plain.snappy.parquet'), [6, 7]],
    ['no ETag, new Last-Modified', 'last-modified', plainWithIds([24, 25, 26, 27, 22, 23, 20, 21]), [24, 25, 26, 27, 22, 23, 20, 21]],
  ]) {
    for (const worker of [false, true]) {
      const dir = tmp()
      srv.set('/plain.parquet', plain)
      srv.mode['/plain.parquet'] = mode
      const first = await visit('/plain.parquet', dir, all, worker)
      assert.deepEqual(first.ids, [4, 5, 6, 7, 2, 3, 0, 1], name)
      srv.replace('/plain.parquet', bytes)
      const second = await visit('/plain.parquet', dir, all, worker)
      assert.deepEqual(second.ids, want, name)
      assert.equal(second.report.metadataFromCache, undefined, name)
      const third = await visit('/plain.parquet', dir, all, worker)
      assert.deepEqual(third.ids, want, `${name}: from the new entry`)
      assert.deepEqual(third.report.metadataFromCache, ['tail'], name) // the whole file is in its tail: no plan
    }
  }
  srv.mode['/plain.parquet'] = ''
  srv.set('/plain.parquet', plain)
})

test('a cache folder of garbage, truncated entries or another version is ignored', async () => {
  const dir = tmp()
  const first = await visit('/tiny.parquet', dir)
  const names = readdirSync(dir).filter((n) => n.endsWith('.pqmc'))
  assert.ok(names.length > 0)
  const good = readFileSync(path.join(dir, names[0]))
  const other = good.slice()
  other[4]++
  for (const [name, b] of [['garbage', Buffer.from('garbage')], ['empty', Buffer.alloc(0)], ['truncated', good.subarray(0, good.length - 9)], ['other version', other]]) {
    for (const n of names) writeFileSync(path.join(dir, n), b)
    const got = await visit('/tiny.parquet', dir)
    assert.deepEqual(got.ids, first.ids, name)
    assert.equal(got.report.metadataFromCache, undefined, name)
    assert.deepEqual(got.log.slice().sort(), first.log.slice().sort(), `${name}: read as without a cache`)
  }
})

test('a custom store, in the calling thread and behind the Worker', async () => {
  for (const worker of [false, true]) {
    const m = new Map()
    const store = { get: async (k) => m.get(k) ?? null, put: async (k, v) => void m.set(k, v.slice()), delete: async (k) => void m.delete(k) }
    const first = await visit('/tiny.parquet', store, undefined, worker)
    assert.equal(m.size, 2) // the tail and the scan's plan
    const second = await visit('/tiny.parquet', store, undefined, worker)
    assert.deepEqual(second.ids, first.ids)
    assert.deepEqual(second.report.metadataFromCache, ['tail', 'plan'])
    assert.ok(!second.log.some((r) => r.startsWith('bytes=-')))
  }
})

test('a failing store is reported, never an error', async () => {
  const failing = { get: async () => null, put: async () => { throw new Error('quota exceeded') }, delete: async () => {} }
  const mc = new MetaCache(failing)
  await mc.putTail('u', { size: 10, etag: '"x"', lastModified: '', pieces: [{ off: 0, bytes: new Uint8Array(1) }] })
  assert.equal(mc.err, 'quota exceeded')
  const got = await visit('/tiny.parquet', failing, undefined, false)
  assert.deepEqual(got.ids.slice().sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  assert.equal(got.report.metadataCacheError, 'quota exceeded')
  // A folder store round trip.
  const fs = folderStore(tmp())
  await fs.put('k', new Uint8Array([1, 2, 3]))
  assert.deepEqual([...(await fs.get('k'))], [1, 2, 3])
  await fs.delete('k')
  assert.equal(await fs.get('k'), null)
})

test('a Delta table reopened after one more commit reads only that commit of its log', async () => {
  const t = new Map()
  addTree(t, path.join(corpusDir(), 'delta/delta-rs/simple_table'), '/mcdelta/')
  const log = (v) => `/mcdelta/_delta_log/${String(v).padStart(20, '0')}.json`
  for (const [k, v] of t) if (k !== log(3) && k !== log(4)) srv.set(k, v) // the table at version 2
  const dir = tmp()
  const open = async () => {
    const engine = createEngine({ worker: false, wasm: wasmPath })
    try {
      srv.reset()
      const ds = await engine.openDataset(`${srv.url}/mcdelta/`, { metadataCache: dir })
      const rows = (await ds.scan({}).toTable()).numRows
      return { rows, delta: ds.metadata?.delta, resumed: !!ds.metadata?.delta?.resumed, log: srv.log.filter((l) => l.path.includes('/_delta_log/') && !l.list).map((l) => l.path.slice(l.path.lastIndexOf('/') + 1)).sort() }
    } finally {
      await engine.terminate?.()
    }
  }
  const v2 = await open()
  assert.ok(v2.log.includes('00000000000000000001.json'), v2.log)
  srv.set(log(3), t.get(log(3)))
  const v3 = await open()
  const fresh = await (async () => {
    const engine = createEngine({ worker: false, wasm: wasmPath })
    try {
      return (await (await engine.openDataset(`${srv.url}/mcdelta/`, { metadataCache: false })).scan({}).toTable()).numRows
    } finally {
      await engine.terminate?.()
    }
  })()
  assert.equal(v3.rows, fresh)
  // The server lists: the listing shows the state's commit unchanged, and the new commit is
  // the only log object read.
  assert.deepEqual(v3.log, ['00000000000000000003.json'])
  assert.ok(v3.resumed && !v2.resumed, 'the open metadata says the log was resumed')
  // The names of the Go host's Dataset.Metadata: from the state of version 2, one commit read.
  assert.deepEqual(v2.delta, { version: 2 })
  assert.deepEqual(v3.delta, { version: 3, resumed: true, resumedFrom: 2, commitsRead: 1 })
  for (const k of t.keys()) srv.delete(k)
})

test('a listed dataset opened again reads no file tail (the listing shows the same size and ETag)', async () => {
  const names = ['/dsmc/a.parquet', '/dsmc/b.parquet']
  for (const n of names) srv.set(n, plain)
  const size = plain.length
  const dir = tmp()
  const open = async () => {
    const engine = createEngine({ worker: false, wasm: wasmPath })
    try {
      srv.reset()
      const ds = await engine.openDataset(`${srv.url}/dsmc/`, { metadataCache: dir })
      const t = await ds.scan({ columns: ['id'] }).toTable()
      const ids = Array.from(t.getChild('id').toArray(), Number).sort((a, b) => a - b)
      const tails = srv.log.filter((l) => l.range && (l.range.startsWith('bytes=-') || l.range.endsWith(`-${size - 1}`)))
      const { tailsFromCache, requestsSaved, objectsFromCache } = ds.metadata
      return { ids, tails: tails.length, requests: srv.log.filter((l) => l.range).length, meta: { tailsFromCache, requestsSaved, objectsFromCache } }
    } finally {
      await engine.terminate?.()
    }
  }
  const first = await open()
  const again = await open()
  assert.equal(first.ids.length, 16)
  assert.deepEqual(again.ids, first.ids)
  assert.ok(first.tails >= 2, `first visit: ${first.tails} tail requests`)
  assert.equal(again.tails, 0, `returning visit: ${again.tails} tail requests`)
  // The open metadata says so, in the names of the Go host's Dataset.Metadata.
  assert.deepEqual(first.meta, { tailsFromCache: undefined, requestsSaved: undefined, objectsFromCache: undefined })
  assert.deepEqual(again.meta, { tailsFromCache: 2, requestsSaved: 2, objectsFromCache: undefined })
  for (const n of names) srv.delete(n)
})

test('an Iceberg table opened again says which metadata objects and tails came from the cache', async () => {
  const t = new Map()
  addTree(t, path.join(corpusDir(), 'iceberg/tables/lithium__no_partitioning'), '/mcice/')
  for (const [k, v] of t) srv.set(k, v)
  // The server does not list: the metadata file is named.
  const meta = [...t.keys()].filter((k) => k.endsWith('00002-f7dd062a-ad44-4948-ba0c-4cd9f585ba04.metadata.json'))[0]
  const dir = tmp()
  const open = async () => {
    const engine = createEngine({ worker: false, wasm: wasmPath })
    try {
      const ds = await engine.openDataset(srv.url + meta, { metadataCache: dir })
      const rows = (await ds.scan({}).toTable()).numRows
      return { rows, meta: ds.metadata }
    } finally {
      await engine.terminate?.()
    }
  }
  const first = await open()
  const again = await open()
  assert.equal(again.rows, first.rows)
  assert.ok(first.rows > 0)
  assert.equal(first.meta.objectsFromCache, undefined)
  const objs = again.meta.objectsFromCache.slice().sort()
  assert.equal(objs.length, 3, objs)
  assert.ok(objs[0].endsWith('.metadata.json') && objs[1].endsWith('-m0.avro') && objs[2].includes('/snap-'), objs)
  assert.ok(again.meta.tailsFromCache > 0 && again.meta.requestsSaved === 3 + again.meta.tailsFromCache, JSON.stringify(again.meta))
  for (const k of t.keys()) srv.delete(k)
})

test('a Hadoop-style Iceberg table re-created under the same path gives the new table\'s rows', async () => {
  // Both tables are at metadata/v5.metadata.json (version-hint.text "5"); the server does not list.
  const tables = ['icebird__java_bunnies', 'icebird__spark_bunnies', 'icebird__java_bunnies']
  const dir = tmp()
  for (const name of tables) {
    const t = new Map()
    addTree(t, path.join(corpusDir(), 'iceberg/tables', name), '/hadoop/')
    for (const [k, v] of t) srv.set(k, v)
    const want = readFileSync(path.join(corpusDir(), 'iceberg/expected', name, 'oracle/icebird/rows.current.jsonl'), 'utf8').trim().split('\n').length
    const engine = createEngine({ worker: false, wasm: wasmPath })
    try {
      const ds = await engine.openDataset(`${srv.url}/hadoop/`, { metadataCache: dir })
      assert.equal((await ds.scan({}).toTable()).numRows, want, name)
      assert.ok(!(ds.metadata.objectsFromCache ?? []).some((p) => p.endsWith('v5.metadata.json')), name)
    } finally {
      await engine.terminate?.()
    }
    for (const k of t.keys()) srv.delete(k)
  }
})
