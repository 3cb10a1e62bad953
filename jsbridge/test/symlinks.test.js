// Local folders assembled with symbolic links (node-dir.js; the Go host's internal/localfs has
// the same rules): a Hive folder whose partition directories and a file are links reads, by
// folder and by glob, the rows DuckDB's read_parquet reads through the same links; a link back
// to the table (a cycle) is not followed and broken links are left out; a Delta table whose
// log entries, partition directories and data files are links reads as the table itself.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { openDataset, terminateDefaultEngines } from '../src/index.js'
import { walkFiles, limits } from '../src/node-dir.js'
import { corpusDir, repoRoot, wasmPath } from './helpers.js'

const { DuckDBInstance } = createRequire(path.join(repoRoot, 'duckdb', 'package.json'))('@duckdb/node-api')
const o = { worker: false, wasm: wasmPath }
let tmp, conn
before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-symlinks-'))
  conn = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect()
})
after(() => {
  terminateDefaultEngines()
  rmSync(tmp, { recursive: true, force: true })
})

// The tree of Go's Test_datasetSymlinks: store/ holds the files, hive/ links to them.
async function symlinkHive() {
  const store = path.join(tmp, 'store')
  const hive = path.join(tmp, 'hive')
  for (const [i, d] of ['one', 'two', 'three'].entries()) {
    mkdirSync(path.join(store, d), { recursive: true })
    const out = path.join(store, d, `part-${i}.parquet`)
    await conn.run(`COPY (SELECT ${i * 1000} + n AS id, CASE WHEN n % 5 = 1 THEN NULL ELSE 'n' || (n % 7) END AS name
      FROM range(${150 - 30 * i}) t(n)) TO '${out}' (FORMAT parquet, ROW_GROUP_SIZE 50)`)
  }
  mkdirSync(path.join(hive, 'event_date=2024-01-03'), { recursive: true })
  const link = (target, name) => symlinkSync(target, path.join(hive, name))
  link(path.join('..', 'store', 'one'), 'event_date=2024-01-01')
  link(path.join(store, 'two'), 'event_date=2024-01-02') // absolute
  link(path.join('..', '..', 'store', 'three', 'part-2.parquet'), path.join('event_date=2024-01-03', 'part-2.parquet'))
  link(path.join('..', '..', 'hive'), path.join('event_date=2024-01-01', 'loop')) // store/one/loop -> hive
  link('nowhere.parquet', path.join('event_date=2024-01-03', 'gone.parquet'))
  link(path.join('..', 'store', 'nowhere'), 'event_date=2024-01-04')
  return hive
}

const canonRow = (id, name, day) => `${id}|${name ?? 'NULL'}|${day}`

test('a Hive folder of linked partitions and files equals DuckDB, by folder and by glob', async () => {
  const hive = await symlinkHive()
  const want = (await (await conn.runAndReadAll(`SELECT id, name, CAST(event_date AS VARCHAR) FROM
    read_parquet('${path.join(hive, '*', '*.parquet')}', hive_partitioning = true) ORDER BY id`)).getRowsJson()).map((r) => canonRow(...r))
  assert.equal(want.length, 360)
  const store = path.join(tmp, 'store')
  for (const src of [hive + path.sep, path.join(hive, '*', '*.parquet'), path.join(hive, '**')]) {
    // The links lead out of the named folder: their targets' folder must be allowed.
    await assert.rejects(openDataset(src, o), (e) => e.code === 'scope', src)
    const ds = await openDataset(src, { ...o, allow: [store] })
    const t = await ds.scan().toTable()
    const got = t
      .toArray()
      .map((r) => canonRow(r.id, r.name, new Date(r.event_date).toISOString().slice(0, 10)))
      .sort((a, b) => Number(a.split('|')[0]) - Number(b.split('|')[0]))
    assert.deepEqual(got, want, src)
    ds.close()
  }
})

test('walkFiles: links followed under their own names, cycles and broken links skipped', async () => {
  const root = path.join(tmp, 'walk')
  mkdirSync(path.join(root, 'store'), { recursive: true })
  mkdirSync(path.join(root, 't', 'a'), { recursive: true })
  mkdirSync(path.join(root, 't', 'b'), { recursive: true })
  writeFileSync(path.join(root, 'store', 'x.parquet'), 'x')
  writeFileSync(path.join(root, 't', 'a', 'y.parquet'), 'y')
  writeFileSync(path.join(root, 't', 'b', 'z.parquet'), 'z')
  const link = (target, name) => symlinkSync(target, path.join(root, 't', name))
  link(path.join('..', 'store'), 'k=1')
  link(path.join('..', 'store'), 'k=2') // two links to one folder: both followed
  link('..', path.join('a', 'up')) // an ancestor
  link('.', path.join('a', 'self'))
  link(path.join('..', 'b'), path.join('a', 'b')) // a and b link each other
  link(path.join('..', 'a'), path.join('b', 'a'))
  link('nowhere', 'gone')
  link('l2', 'l1') // a loop of links
  link('l1', 'l2')
  assert.deepEqual(await walkFiles(path.join(root, 't')), ['a/b/z.parquet', 'a/y.parquet', 'b/a/y.parquet', 'b/z.parquet', 'k=1/x.parquet', 'k=2/x.parquet'])
  await assert.rejects(walkFiles(path.join(root, 'missing')), (e) => e.code === 'ENOENT')
})

test('a Delta table of linked log entries, partition directories and data files reads as the table', async () => {
  const src = path.join(corpusDir(), 'delta', 'dat', 'basic_partitioned', 'delta')
  const store = path.join(tmp, 'delta-store')
  const table = path.join(tmp, 'delta-table')
  cpSync(src, store, { recursive: true })
  mkdirSync(path.join(table, '_delta_log'), { recursive: true })
  for (const e of readdirSync(store)) {
    if (e === '_delta_log') {
      for (const l of readdirSync(path.join(store, e))) symlinkSync(path.join(store, e, l), path.join(table, e, l))
    } else if (e === 'letter=a') {
      mkdirSync(path.join(table, e))
      for (const p of readdirSync(path.join(store, e))) symlinkSync(path.join('..', '..', 'delta-store', e, p), path.join(table, e, p))
    } else symlinkSync(path.join('..', 'delta-store', e), path.join(table, e))
  }
  const rows = async (dir, allow) => {
    const ds = await openDataset(dir + path.sep, { ...o, allow })
    const t = await ds.scan().toTable()
    ds.close()
    return t.toArray().map((r) => JSON.stringify(r.toJSON(), (_, x) => (typeof x === 'bigint' ? String(x) : x))).sort()
  }
  const want = await rows(src)
  assert.ok(want.length > 0)
  await assert.rejects(rows(table), (e) => e.code === 'scope')
  assert.deepEqual(await rows(table, [store]), want)
})

test('walkFiles: links that multiply a tree stop at the directory bound', async () => {
  const root = path.join(tmp, 'multiply')
  const depth = 20
  for (let i = 0; i < depth; i++) mkdirSync(path.join(root, `d${i}`), { recursive: true })
  for (let i = 0; i + 1 < depth; i++) for (const n of ['a', 'b']) symlinkSync(path.join(root, `d${i + 1}`), path.join(root, `d${i}`, n))
  writeFileSync(path.join(root, `d${depth - 1}`, 'x.parquet'), 'x')
  const old = limits.maxDirs
  limits.maxDirs = 1000
  try {
    await assert.rejects(walkFiles(path.join(root, 'd0')), (e) => e.code === 'ETOOMANYDIRS')
    assert.equal((await walkFiles(path.join(root, `d${depth - 5}`))).length, 16)
  } finally {
    limits.maxDirs = old
  }
})
