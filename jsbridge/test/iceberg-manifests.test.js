// When the bridge reads an Iceberg table's manifests, counted in the request log of the test
// server (127.0.0.1): the open reads the metadata file, the manifest list and every manifest
// of the snapshot, each once; scans, selective or not, read none of them again and get their
// files from that one snapshot (the table session prunes files by the manifests' partition
// values and column metrics). The Go host instead opens with the manifest list alone and reads
// per scan only the manifests the scan's WHERE may match (tablehost/iceberg.go); these counts
// are what a per-scan planning in the bridge changes. Rows equal the corpus's icebird rows.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { openDataset, terminateDefaultEngines } from '../src/index.js'
import { wasmPath } from './helpers.js'
import { icebergTables, icebergSnapshots, serveIcebergTables } from './iceberg-corpus.js'
import { arrowRows, expectedRows } from '../../e2e/fixtures/iceberg-rows.js'

let srv
before(async () => {
  srv = await serveIcebergTables()
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

// The GETs since the last reset, by kind of object.
function requests() {
  const names = srv.log.filter((l) => !l.list).map((l) => path.basename(l.path))
  srv.reset()
  return {
    metadata: names.filter((n) => n.endsWith('.metadata.json')).length,
    lists: names.filter((n) => n.startsWith('snap-') && n.endsWith('.avro')).length,
    manifests: names.filter((n) => /-m\d+\.avro$/.test(n)).length,
  }
}

// Partitioned tables, their current snapshot's manifest count and a selective WHERE with the
// rows it keeps. The Go host's scan with that WHERE reads 1 of the 2 manifests of the first
// (the other's partition summaries exclude the day) and none of the second (no day before
// 2000), where the bridge reads them all at the open.
const day = (r) => r.c2?.$date ?? r.c2?.$ts ?? null // the oracle's date and timestamp forms
const cases = [
  { name: 'lithium__partition_evolution', manifests: 2, where: "c2 = DATE '2025-03-11'", keep: (r) => day(r)?.startsWith('2025-03-11') },
  { name: 'lithium__day_timestamptz_partitioning', manifests: 1, where: "c2 < TIMESTAMP '2000-01-01 00:00:00Z'", keep: (r) => day(r) != null && day(r) < '2000' },
]

for (const c of cases) {
  test(`${c.name}: the open reads each manifest once, and no scan reads one again`, async () => {
    const r = icebergTables().find((t) => t.name === c.name)
    const snap = icebergSnapshots(r).at(-1)
    srv.reset()
    const ds = await openDataset(`${srv.url}/ice/${c.name}/`, { worker: false, wasm: wasmPath })
    try {
      assert.deepEqual(requests(), { metadata: 1, lists: 1, manifests: c.manifests }, 'open')
      const all = await ds.scan().toTable()
      const names = all.schema.fields.map((f) => f.name)
      assert.deepEqual(arrowRows(all), expectedRows(snap.want, names), 'full scan')
      assert.deepEqual(requests(), { metadata: 0, lists: 0, manifests: 0 }, 'full scan')
      const want = expectedRows(snap.want.filter(c.keep), names)
      assert.ok(want.length < snap.want.length, 'the WHERE is selective')
      for (const what of ['selective scan', 'second selective scan']) {
        assert.deepEqual(arrowRows(await ds.scan({ where: c.where }).toTable()), want, what)
        assert.deepEqual(requests(), { metadata: 0, lists: 0, manifests: 0 }, what)
      }
    } finally {
      ds.close()
    }
  })
}
