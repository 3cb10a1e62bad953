// Runtime filters through the bridge (scan.tighten → pq_tighten), in this thread and in a
// Worker: a tighten after the first row group's batch keeps every later request to the
// tightened plan's indexes and pages, and the rows are the first row group's plus the
// tightened predicate's (brute force over the rows not yet emitted).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { openParquet, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

// hyparquet/page_index.parquet: 2 row groups of 1500 rows (id = position), page index. What
// a tighten to 2000 <= id < 2100 after row group 0 requests, from the file's offset and column
// indexes (wazerohost/tighten_test.go derives them from the file): row group 1's offset index
// of id (the scan had no predicate, so it had fetched none; word's lies in the 1 KiB tail)
// and id's column index, in one round; then the id page holding rows 500-599 of row group 1
// and the word pages over that page's rows. Nothing else of row group 1.
const WANT = [
  [25587, 2452], // id page
  [31712, 4159], // word pages
  [49252, 83], // offset index of id (row group 1)
  [50407, 223], // column index of id (row group 1)
]

const files = new Map([['/pi.parquet', corpusFile('hyparquet/page_index.parquet')]])
let srv
before(async () => {
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

const rangeOf = (h) => {
  const m = /^bytes=(\d+)-(\d+)$/.exec(h ?? '')
  return m ? [Number(m[1]), Number(m[2]) - Number(m[1]) + 1] : null
}

for (const worker of [false, true]) {
  test(`tighten a running scan (worker: ${worker})`, async () => {
    const f = await openParquet(srv.url + '/pi.parquet', { wasm: wasmPath, worker, tailSize: 1024 })
    // One row group per round: a quarter of the memory cap holds one row group's id and word.
    // Batches of 300 rows: a Worker runs up to two batches ahead of the consumer, so the
    // tighten after the first batch arrives while row group 0 is still being emitted.
    const s = f.scan({ columns: ['id', 'word'], batchRows: 300, maxGap: 1, memoryCap: 80_000 })
    const ids = []
    let mark = -1
    for await (const b of s) {
      for (const v of b.getChild('id')) ids.push(Number(v))
      if (mark < 0) {
        await assert.rejects(s.tighten('nope > 1'), (e) => e.code === 'options' && /nope/.test(e.message))
        await assert.rejects(s.tighten('id > \'a\''), (e) => e.code === 'options')
        await assert.rejects(s.tighten(''), (e) => e.code === 'options')
        mark = srv.log.length
        await s.tighten('id >= 2000 AND id < 2100')
      }
    }
    const want = []
    for (let i = 0; i < 3000; i++) if (i < 1500 || (i >= 2000 && i < 2100)) want.push(i)
    assert.deepEqual(ids, want)
    const after = srv.log.slice(mark).filter((e) => e.path === '/pi.parquet').map((e) => rangeOf(e.range))
    after.sort((a, b) => a[0] - b[0])
    assert.deepEqual(after, WANT)
    assert.equal(s.report.runtimeFilters, 1)
    // After the scan ended a tighten does nothing.
    await s.tighten('id < 0')
    f.close()
  })
}

test('a tighten before the first iteration joins the where', async () => {
  const f = await openParquet(srv.url + '/pi.parquet', { wasm: wasmPath, worker: false, tailSize: 1024 })
  const s = f.scan({ columns: ['id'], where: 'id >= 100' })
  const pending = s.tighten('id IN (5, 150, 2999, 4000)')
  const t = await s.toTable()
  await pending
  assert.deepEqual([...t.getChild('id')].map(Number), [150, 2999])
  f.close()
})
