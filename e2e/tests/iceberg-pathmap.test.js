// Iceberg path maps in headless Chromium (openDataset's pathMap, through the bundle and its
// Worker): a corpus table whose data/ folder "moved" (routes: its old URLs 404, a new prefix
// serves the files) reads its expected rows once the location's data/ prefix is mapped to the
// new one, by an absolute URL and by a page-relative one in the text form; the tables hold
// position, equality and deletion-vector deletes, whose targets still match by the paths the
// metadata writes. A base that is a local file: URL is refused with code 'scope'.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startPage } from './harness.js'
import { icebergTables, icebergSnapshots } from '../../jsbridge/test/iceberg-corpus.js'
import { expectedRows } from '../fixtures/iceberg-rows.js'

let env, srv, br, page
before(async () => ({ srv, br, page } = env = await startPage()))
after(() => env?.close())

const TABLES = {
  icebird__java_bunnies: 's3a://hyperparam-iceberg/java/bunnies/data',
  lithium__deletion_vectors: 's3a://warehouse/deletion_vectors/data',
}

function readInPage(reads) {
  return page.evaluate(async (reads) => {
    const { openDataset } = await import('/pqscan/dist/pqscan.js')
    const { arrowRows } = await import('/fixtures/iceberg-rows.js')
    const out = []
    for (const { url, opts } of reads) {
      let ds
      try {
        ds = await openDataset(url, { wasmURL: '/pqscan/pqscan.wasm', pathStyle: true, ...opts })
        const t = await ds.scan().toTable()
        out.push({ rows: arrowRows(t), names: t.schema.fields.map((f) => f.name) })
      } catch (e) {
        out.push({ error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name })
      } finally {
        ds?.close()
      }
    }
    return out
  }, reads)
}

test('a moved data/ folder reads its expected rows through pathMap; a local base is refused', async () => {
  const rows = Object.fromEntries(icebergTables().map((r) => [r.name, r]))
  for (const [name, prefix] of Object.entries(TABLES)) {
    const table = `${srv.url}corpus/iceberg/tables/${name}/`
    const gone = `**/corpus/iceberg/tables/${name}/data/**`
    const moved = `**/moved/${name}/**`
    const goneRoute = (route) => route.fulfill({ status: 404, body: 'moved away' })
    const movedRoute = (route) => route.fetch({ url: route.request().url().replace(`/moved/${name}/`, `/corpus/iceberg/tables/${name}/data/`) }).then((res) => route.fulfill({ response: res }))
    await br.ctx.route(gone, goneRoute)
    await br.ctx.route(moved, movedRoute)
    try {
      const got = await readInPage([
        { url: table, opts: {} },
        { url: table, opts: { pathMap: { [prefix]: `${srv.url}moved/${name}` } } },
        { url: table, opts: { pathMap: `${prefix}=/moved/${name}/` } },
        { url: table, opts: { pathMap: { [prefix]: 'file:///tmp/moved' } } },
      ])
      assert.ok(got[0].error, `${name}: read without the map`)
      const want = icebergSnapshots(rows[name]).find((s) => s.current).want
      for (const g of got.slice(1, 3)) {
        assert.equal(g.error, undefined, name)
        assert.deepEqual(g.rows, expectedRows(want, g.names), name)
      }
      assert.equal(got[3].code, 'scope', `${name}: ${got[3].error}`)
      assert.match(got[3].error, /the table is remote/, name)
    } finally {
      await br.ctx.unroute(gone, goneRoute)
      await br.ctx.unroute(moved, movedRoute)
    }
  }
})
