// Spatial predicates and GeoArrow output through the bridge: the SQL reaches the module, the
// row count equals the native engine's (checked against an oracle in Go), and apache-arrow
// reads the geometry column's geoarrow.wkb extension metadata with its CRS.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { openParquet, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

const files = new Map([
  ['/geo.parquet', corpusFile('parquet-testing/data/geospatial/geography-points.parquet')],
  ['/srid.parquet', corpusFile('parquet-testing/data/geospatial/crs-srid.parquet')],
])
let srv
before(async () => {
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

test('ST_Intersects prunes by the geospatial statistics and returns geoarrow.wkb', async () => {
  const o = { worker: false, wasm: readFileSync(wasmPath) }
  const f = await openParquet(srv.url + '/geo.parquet', o)
  const where = 'ST_Intersects(geometry, ST_MakeEnvelope(0, 0, 30, 30))'
  const r = f.scan({ columns: ['id', 'geometry'], where })
  const t = await r.toTable()
  assert.equal(t.numRows, 12)
  assert.equal(r.report.rowGroupsAfterStats, 4)
  const md = t.schema.fields[1].metadata
  assert.equal(md.get('ARROW:extension:name'), 'geoarrow.wkb')
  assert.deepEqual(JSON.parse(md.get('ARROW:extension:metadata')), { crs: 'OGC:CRS84', crs_type: 'authority_code', edges: 'spherical' })
  assert.equal((await f.count({ where: 'geometry && ST_MakeEnvelope(0, 0, 30, 30)' })).count, 12)
  const s = await openParquet(srv.url + '/srid.parquet', o)
  const ts = await s.scan({ columns: ['geometry'], limit: 1 }).toTable()
  assert.deepEqual(JSON.parse(ts.schema.fields[0].metadata.get('ARROW:extension:metadata')), { crs: '5070', crs_type: 'srid' })
})
