// Delta tables in headless Chromium: openDataset on a folder URL served by bin/pqserve, through
// the bundle and its Worker. The log replay runs inside the wasm module (pq_open_delta); the
// page only GETs log objects and checkpoint ranges. Listed (pqserve's /data is a path-style
// bucket: ListObjectsV2) and probed (no listing at the origin: _last_checkpoint, then commits
// until a 404). The oracle is the expected table contents DAT ships, read by the Go engine
// (`pqserve cat`); row order is not significant in DAT. Faults: a refused feature names it.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readdirSync, mkdtempSync, mkdirSync, cpSync, readFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { startServer, startBrowser, goRows, corpusDir } from './harness.js'
import { dvFile, z85, dvFileName, readLog, commitText, chmodTree } from '../../jsbridge/test/delta-gen.js'

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

function deltaInPage(url, opts, scan = {}) {
  return page.evaluate(
    async ({ url, opts, scan }) => {
      const { openDataset } = await import('/pqscan/dist/pqscan.js')
      const { normRows } = await import('/fixtures/norm.js')
      try {
        const ds = await openDataset(url, { wasmURL: '/pqscan/pqscan.wasm', ...opts })
        return { ...normRows(await ds.scan(scan).toTable()), version: ds.metadata.delta?.version }
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name }
      }
    },
    { url, opts, scan },
  )
}

for (const listed of [true, false]) {
  test(`${listed ? 'listed' : 'probed'}: the DAT cases equal their expected contents at every version`, async () => {
    let n = 0
    for (const c of ['basic_append', 'basic_partitioned', 'with_schema_change']) {
      for (const v of readdirSync(path.join(deltaDir, 'dat', c, 'expected'))) {
        // No metadata cache: a Delta state stored by an earlier open of the same URL would
        // resume the table and skip the probes this test counts.
        const opts = { pathStyle: listed, metadataCache: false, ...(v === 'latest' ? {} : { version: Number(v.slice(1)) }) }
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


// A generated table with every piece at once, equal to its rows by construction:
// table_with_column_mapping (name mode; its partition column is keyed by its physical name)
// given a commit that renames "Super Name" to "Hero Name", deletes rows 1 and 3 of its 4-row
// file by a vector stored under the table ("u", a relative path), and adds a copy of that
// file in a partition of its own whose rows 0 and 2 an inline ("i") vector deletes.
test('a column-mapped table with a renamed column, an inline and a stored vector', async () => {
  const src = path.join(deltaDir, 'delta-rs', 'table_with_column_mapping')
  const tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-e2e-delta-'))
  const dir = path.join(tmp, 'cm-dv')
  cpSync(src, dir, { recursive: true })
  chmodTree(dir)
  const log0 = readLog(path.join(src, '_delta_log', '00000000000000000000.json'))
  const meta = log0.find((a) => a.metaData).metaData
  const fields = JSON.parse(meta.schemaString).fields
  const phys = (n) => fields.find((f) => f.name === n).metadata['delta.columnMapping.physicalName']
  const add = log0.find((a) => a.add?.path.startsWith('BH/')).add
  const copy = 'Zq/part-00002-copy.c000.zstd.parquet'
  mkdirSync(path.join(dir, 'Zq'))
  cpSync(path.join(src, add.path), path.join(dir, copy))
  const uuid = Uint8Array.from({ length: 16 }, (_, i) => 16 - i)
  const stored = dvFile([1, 3])
  mkdirSync(path.join(dir, 'dv'))
  writeFileSync(path.join(dir, 'dv', dvFileName(uuid)), stored.bytes)
  const inline = dvFile([0, 2])
  const features = ['columnMapping', 'deletionVectors']
  const renamed = fields.map((f) => (f.name === 'Super Name' ? { ...f, name: 'Hero Name' } : f))
  writeFileSync(path.join(dir, '_delta_log', '00000000000000000001.json'), commitText([
    { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: features, writerFeatures: features } },
    { metaData: { ...meta, schemaString: JSON.stringify({ type: 'struct', fields: renamed }) } },
    { remove: { path: add.path, deletionTimestamp: 1, dataChange: true } },
    { add: { ...add, deletionVector: { storageType: 'u', pathOrInlineDv: 'dv' + z85(uuid), offset: 1, sizeInBytes: stored.size, cardinality: 2 } } },
    { add: { ...add, path: copy, partitionValues: { [phys('Company Very Short')]: 'BMX' },
      deletionVector: { storageType: 'i', pathOrInlineDv: z85(inline.bitmap), sizeInBytes: inline.size, cardinality: 2 } } },
  ]))
  // The data file read alone, by its physical column name, in file order.
  const file = goRows(path.join(src, add.path))
  const names = file.rows.map((r) => r[file.names.indexOf(phys('Super Name'))])
  assert.equal(names.length, 4)
  const row = (co, name) => ({ names: ['Company Very Short', 'Hero Name'], rows: [[co, name]] })
  const want = [row('BMS', names[0]), row('BMS', names[2]), row('BMX', names[1]), row('BMX', names[3]), row('BME', 'Timothy Lamb')]
    .flatMap(canon).sort()
  const srv2 = await startServer({ data: tmp })
  try {
    for (const listed of [true, false]) {
      const what = listed ? 'listed' : 'probed'
      const got = await deltaInPage(`${srv2.url}data/cm-dv/`, { pathStyle: listed })
      assert.equal(got.error, undefined, `${what}: ${got.error}`)
      assert.deepEqual(got.names.slice().sort(), ['Company Very Short', 'Hero Name'], what)
      assert.deepEqual(canon(got), want, what)
      const bmx = await deltaInPage(`${srv2.url}data/cm-dv/`, { pathStyle: listed }, { where: "\"Company Very Short\" = 'BMX'" })
      assert.equal(bmx.error, undefined, `${what}: ${bmx.error}`)
      assert.equal(bmx.rows.length, 2, what)
      assert.deepEqual(canon(bmx), want.filter((r) => r.includes('"BMX"')), what)
      const hero = await deltaInPage(`${srv2.url}data/cm-dv/`, { pathStyle: listed }, { where: `"Hero Name" = '${names[1]}'` })
      assert.deepEqual(canon(hero), canon(row('BMX', names[1])), what)
    }
  } finally {
    srv2.stop()
    rmSync(tmp, { recursive: true, force: true })
  }
})
