// Schema resolution across a dataset's files (tablescan resolve.go), passed through from
// openDataset's options: by name (default) a column that a file's writer renamed reads as
// null there; byPosition reads it by position; unionSchema makes it a column of its own.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { openDataset, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

const tiny = corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')
// The same file with double_col renamed (same length: only footer bytes hold the name).
const renamed = Buffer.from(Buffer.from(tiny).toString('latin1').replaceAll('double_col', 'DOUBLE_col'), 'latin1')
let srv
before(async () => {
  srv = await startServer(new Map([['/s/a.parquet', tiny], ['/s/b.parquet', renamed]]))
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

const o = { worker: false, wasm: wasmPath }
const urls = () => [srv.url + '/s/a.parquet', srv.url + '/s/b.parquet']
const column = async (ds, name) => Array.from((await ds.scan({ columns: [name] }).toTable()).getChild(name))

test('by name, by position and as a union', async () => {
  const byName = await openDataset(urls(), o)
  assert.ok(!byName.schema.fields.some((f) => f.name === 'DOUBLE_col'))
  const first = await column(byName, 'double_col')
  const n = first.length / 2
  assert.ok(n > 0 && first.slice(0, n).some((v) => v !== 0))
  assert.deepEqual(first.slice(n), new Array(n).fill(null), 'the renamed column is missing from the second file')

  const byPos = await openDataset(urls(), { ...o, byPosition: true })
  const second = await column(byPos, 'double_col')
  assert.deepEqual(second.slice(n), second.slice(0, n), 'by position the second file has it')
  const where = await byPos.scan({ columns: ['id'], where: 'double_col > 50' }).toTable()
  assert.equal(where.numRows, 2 * first.slice(0, n).filter((v) => v > 50).length)

  const union = await openDataset(urls(), { ...o, unionSchema: true })
  const names = union.schema.fields.map((f) => f.name)
  assert.equal(names.at(-1), 'DOUBLE_col', 'the union adds the second file\'s column last')
  const added = await column(union, 'DOUBLE_col')
  assert.deepEqual(added.slice(0, n), new Array(n).fill(null))
  assert.deepEqual(added.slice(n), first.slice(0, n))
})

// Every scan of a dataset has the open's schema (the first file's columns, pq_table_fields
// given back as the sessions' table), whichever files its predicate skips: a partition
// predicate that skips the first file does not make the next file's columns the table's, and
// one that skips every file answers no rows with that schema, not an error.
test('a predicate that skips the first file, or every file, keeps the open\'s schema', async () => {
  const hive = await startServer(new Map([['/h/part=1/a.parquet', tiny], ['/h/part=2/b.parquet', renamed]]))
  try {
    const ds = await openDataset([hive.url + '/h/part=1/a.parquet', hive.url + '/h/part=2/b.parquet'], o)
    const names = ds.schema.fields.map((f) => f.name)
    assert.ok(names.includes('double_col') && !names.includes('DOUBLE_col'))
    const second = await ds.scan({ where: 'part = 2' }).toTable()
    assert.deepEqual(second.schema.fields.map((f) => f.name), names, 'the first file\'s columns')
    assert.ok(second.numRows > 0)
    assert.deepEqual(Array.from(second.getChild('double_col')), new Array(second.numRows).fill(null))
    for (const q of [{ where: 'part > 5' }, { where: 'part > 5', orderBy: 'id', limit: 3 }]) {
      const none = await ds.scan(q).toTable()
      assert.equal(none.numRows, 0, q.where)
      assert.deepEqual(none.schema.fields.map((f) => f.name), names, q.where)
    }
    assert.equal((await ds.count({ where: 'part > 5' })).count, 0)
  } finally {
    await hive.close()
  }
})
