// Every Iceberg table of the corpus (../shared/testdata/iceberg) read through openDataset in
// Node equals the corpus's expected rows (expected/<table>/oracle/icebird/rows.*.jsonl) at its
// current snapshot and at every older one, chosen by snapshotId and by asOf, from the local
// folder and over HTTP (test/server.js, 127.0.0.1); count() equals the number of rows.
// A second oracle is icebird (npm, hyparquet's author's Iceberg reader, a dev dependency):
// it reads each snapshot over the same server, and where it can read the table and agrees
// with the expected rows, openDataset agrees with it. Where it cannot, or disagrees, the
// subtest is skipped with the reason, and the expected rows stand.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { icebergRead } from 'icebird'
import { openDataset, terminateDefaultEngines } from '../src/index.js'
import { wasmPath } from './helpers.js'
import { iceDir, icebergTables, icebergSnapshots, serveIcebergTables } from './iceberg-corpus.js'
import { arrowRows, expectedRows, plainRows } from '../../e2e/fixtures/iceberg-rows.js'

const tables = icebergTables()

let srv
before(async () => {
  srv = await serveIcebergTables()
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

// Reads src with o; the rows and count must be the snapshot's.
async function check(src, o, snap, what) {
  const ds = await openDataset(src, { worker: false, wasm: wasmPath, ...o })
  try {
    assert.equal(ds.metadata.iceberg.snapshotId, snap.id, what)
    const t = await ds.scan().toTable()
    const names = t.schema.fields.map((f) => f.name)
    assert.deepEqual(arrowRows(t), expectedRows(snap.want, names), what)
    assert.equal((await ds.count()).count, snap.want.length, `${what}: count`)
    return t
  } finally {
    ds.close()
  }
}

for (const r of tables) {
  test(`${r.name}: every snapshot reads its expected rows, by snapshotId and asOf, local and over HTTP`, async () => {
    const local = path.join(iceDir, 'tables', r.name, r.table_root) + path.sep
    const http = `${srv.url}/ice/${r.name}/${r.table_root === '.' ? '' : r.table_root + '/'}`
    const snaps = icebergSnapshots(r)
    for (const s of snaps) {
      const opens = [
        [local, { snapshotId: s.id }],
        [http, { snapshotId: BigInt(s.id) }],
        [`${http}metadata/${r.metadata_file}`, { asOf: new Date(s.asOf) }],
      ]
      if (s.current) opens.push([local, {}], [http, {}])
      for (const [src, o] of opens) await check(src, o, s, `${r.name} snapshot ${s.id} ${src} ${Object.keys(o)}`)
    }
  })
}

// icebird reads what a URL names with fetch: its s3:// paths become https://BUCKET.s3.amazonaws.com
// URLs, local paths stay paths. Each table's location (in either form) is mapped onto the
// table's folder on the test server, as pqscan maps it onto the folder the metadata was read from.
function icebirdFetch(real) {
  const maps = tables.map((r) => {
    const to = `${srv.url}/ice/${r.name}${r.table_root === '.' ? '' : '/' + r.table_root}`
    const m = /^s3a?:\/\/([^/]+)(\/.*)$/.exec(r.location)
    return [m ? `https://${m[1]}.s3.amazonaws.com${m[2]}` : r.location, to]
  })
  return (input, init) => {
    let u = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    for (const [from, to] of maps) if (u.startsWith(from + '/')) u = to + u.slice(from.length)
    if (/^https?:/.test(u) && !u.startsWith(srv.url + '/')) return Promise.reject(new Error(`icebird asked for ${u}, outside the table`))
    return real(u, init)
  }
}

for (const r of tables) {
  test(`${r.name}: openDataset agrees with icebird at every snapshot icebird reads as expected`, async (t) => {
    if (icebergSnapshots(r)[0].meta['format-version'] > 2) return t.skip('icebird 0.3.1 reads no format v3 table (it reads a Puffin deletion vector file as Parquet)')
    const http = `${srv.url}/ice/${r.name}/${r.table_root === '.' ? '' : r.table_root + '/'}`
    const skipped = []
    let compared = 0
    const real = globalThis.fetch
    globalThis.fetch = icebirdFetch(real)
    try {
      for (const s of icebergSnapshots(r)) {
        let ib
        try {
          ib = await icebergRead({ tableUrl: http.slice(0, -1), metadata: { ...s.meta, 'current-snapshot-id': s.parsedId } })
        } catch (e) {
          if (s.want.length === 0 && /No data manifest files/.test(e.message)) continue // its refusal of an empty snapshot
          skipped.push(`snapshot ${s.id}: icebird cannot read it (${e.message})`)
          continue
        }
        const ds = await openDataset(http, { worker: false, wasm: wasmPath, snapshotId: s.id })
        const tb = await ds.scan().toTable()
        ds.close()
        const names = tb.schema.fields.map((f) => f.name)
        const want = expectedRows(s.want, names, 'lossy')
        const theirs = plainRows(ib, tb.schema.fields)
        if (JSON.stringify(theirs) !== JSON.stringify(want)) {
          const diff = theirs.find((x) => !want.includes(x)) ?? want.find((x) => !theirs.includes(x))
          skipped.push(`snapshot ${s.id}: icebird disagrees with the expected rows (${theirs.length} rows, expected ${want.length}; e.g. ${diff})`)
          continue
        }
        assert.deepEqual(arrowRows(tb, 'lossy'), theirs, `${r.name} snapshot ${s.id}`)
        compared++
      }
    } finally {
      globalThis.fetch = real
    }
    // Skipped when icebird gave no snapshot to compare; else the snapshots it did not are noted.
    if (skipped.length && compared) t.diagnostic(skipped.join('; '))
    else if (skipped.length) t.skip(skipped.join('; '))
  })
}
