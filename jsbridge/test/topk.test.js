// orderBy: the engine's top-k and sort through the bridge (no new export: an option), against
// a sort of the decoded rows; the runtime bound's skipped pages are never requested.
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

test('orderBy: top-k and a sort equal a sort of the decoded rows', async () => {
  const f = await openParquet(srv.url + '/pi.parquet', { wasm: wasmPath, worker: false, tailSize: 1024 })
  const all = await f.scan({ columns: ['id', 'word'] }).toTable()
  const ids = [...all.getChild('id')].map(Number)
  const words = [...all.getChild('word')]

  const s = f.scan({ columns: ['id'], orderBy: 'id DESC', limit: 10 })
  const top = await s.toTable()
  assert.deepEqual([...top.getChild('id')].map(Number), [...ids].sort((a, b) => b - a).slice(0, 10))
  assert.ok(s.report.topkSkipped > 0, 'the bound skipped pages')

  const w = f.scan({ columns: ['word', 'id'], orderBy: 'word DESC, id', where: 'id < 2000', limit: 5, offset: 2 })
  const got = [...(await w.toTable()).getChild('word')]
  const want = words.filter((_, i) => ids[i] < 2000).sort().reverse().slice(2, 7)
  assert.deepEqual(got, want)

  const sorted = await f.scan({ columns: ['word'], orderBy: 'word', batchRows: 500 }).toTable()
  assert.deepEqual([...sorted.getChild('word')], [...words].sort())

  await assert.rejects(f.scan({ orderBy: 'id SIDEWAYS' }).toTable(), (e) => e.code !== undefined && /orderBy/.test(e.message))
  f.close()
})
