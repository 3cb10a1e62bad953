// count(): the engine's count mode through the bridge (no new export: an option), against the
// numbers a brute-force filter over the decoded rows gives.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { openParquet, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

const files = new Map([['/pi.parquet', corpusFile('hyparquet/page_index.parquet')]])
let srv
before(async () => {
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

for (const worker of [true, false]) {
  const o = { worker, wasm: wasmPath, tailSize: 1024 }
  test(`${worker ? 'worker' : 'in-thread'}: count() with and without a predicate, counted from metadata where the statistics decide`, async () => {
    const f = await openParquet(srv.url + '/pi.parquet', o)
    const ids = [...(await f.scan({ columns: ['id'] }).toTable()).getChild('id')].map(Number)
    assert.equal(ids.length, 3000)

    srv.reset()
    const all = await f.count()
    assert.equal(all.count, 3000)
    assert.equal(all.report.rowsCountedFromMetadata, 3000)
    assert.equal(srv.log.length, 0, 'no predicate: the footer kept at open is all it needs')

    for (const [where, pred] of [
      ['id >= 1000', (x) => x >= 1000],
      ['id >= 1300 AND id < 1700', (x) => x >= 1300 && x < 1700],
      ['id = 7', (x) => x === 7],
    ]) {
      const { count, report } = await f.count({ where })
      assert.equal(count, ids.filter(pred).length, where)
      assert.equal(report.rowsMatched, count, where)
      assert.ok((report.rowsCountedFromMetadata ?? 0) <= count, where)
    }
    const r = await f.count({ where: 'id >= 1000' })
    assert.equal(r.report.rowsCountedFromMetadata, 1804, 'row group 1 by its statistics, row group 0 by its page index')
    assert.equal((await f.count({ where: 'id >= 1000', offset: 100, limit: 50 })).count, 50)
    f.close()
  })
}

test('minMax(): from the footer when every row group has exact statistics, else the column read', async () => {
  const f = await openParquet(srv.url + '/pi.parquet', { wasm: wasmPath, worker: false, tailSize: 1024 })
  const ids = [...(await f.scan({ columns: ['id'] }).toTable()).getChild('id')].map(Number)
  srv.reset()
  const all = await f.minMax('id')
  assert.deepEqual([all.min, all.max], [Math.min(...ids), Math.max(...ids)])
  assert.equal(all.report.rowGroupsFromMetadata, 2)
  assert.equal(srv.log.length, 0, 'no predicate: the footer kept at open is all it needs')
  const part = await f.minMax('id', { where: 'id >= 1300 AND id < 1700' })
  assert.deepEqual([part.min, part.max], [1300, 1699])
  assert.equal(part.report.rowGroupsFromMetadata ?? 0, 0)
  const none = await f.minMax('id', { where: 'id > 5000' })
  assert.deepEqual([none.min, none.max], [null, null])
  await assert.rejects(f.minMax('nope'), (e) => e.code !== undefined && /nope/.test(e.message))
  f.close()
})

test('rowIndex: positions in the file, pruned like a slice', async () => {
  const f = await openParquet(srv.url + '/pi.parquet', { wasm: wasmPath, worker: false, tailSize: 1024 })
  srv.reset()
  const s = f.scan({ rowIndex: 'ri', columns: ['id'], where: 'ri BETWEEN 2000 AND 2004' })
  const t = await s.toTable()
  assert.deepEqual(t.schema.fields.map((x) => x.name), ['ri', 'id'])
  assert.deepEqual([...t.getChild('ri')].map(Number), [2000, 2001, 2002, 2003, 2004])
  assert.deepEqual([...t.getChild('id')], [2000, 2001, 2002, 2003, 2004])
  assert.equal(s.report.rowGroupsAfterStats, 1, 'row group 0 skipped by the positions')
  assert.equal(s.report.pagesAfterPageIndex, 1, 'one id page holds those rows')
  f.close()
})
