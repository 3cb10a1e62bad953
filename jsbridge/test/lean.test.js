// The two modules: openParquet and query load the lean one (pqscan-lean.wasm, no BROTLI or
// GZIP decoder); a file with a BROTLI or GZIP column is read by the full one (pqscan.wasm), loaded on
// demand, with the rows of the corpus's oracle (hyparquet's expected JSON); a file the lean
// module reads (LZ4, ZSTD) never loads the full one. In a worker_threads Worker and in the
// calling thread.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createEngine, query, openParquet, openDataset, PqscanError } from '../src/index.js'
import { Core } from '../src/core.js'
import { startServer } from './server.js'
import { corpusDir, corpusFile, wasmPath, leanWasmPath } from './helpers.js'

const brotliWant = JSON.parse(readFileSync(path.join(corpusDir(), 'hyparquet/brotli_compressed.json'), 'utf8'))
const gzipWant = JSON.parse(readFileSync(path.join(corpusDir(), 'hyparquet/concatenated_gzip_members.json'), 'utf8'))

// Shredded VARIANT files whose expected JSON (hyparquet's) holds no timestamp, whose text form
// differs between readers.
const variantFiles = ['shredded-int', 'shredded-object', 'shredded-array', 'shredded-nested-object']

let srv
before(async () => {
  srv = await startServer(
    new Map([
      ['/brotli.parquet', corpusFile('hyparquet/brotli_compressed.parquet')],
      ['/lz4.parquet', corpusFile('parquet-testing/data/lz4_raw_compressed.parquet')],
      ['/gzip.parquet', corpusFile('hyparquet/concatenated_gzip_members.parquet')],
      ...variantFiles.map((n) => [`/${n}.parquet`, corpusFile(`hyparquet/${n}.parquet`)]),
    ]),
  )
})
after(() => srv.close())

// Rows as arrays of JSON values: bigints as numbers and byte arrays as UTF-8 text, as the
// oracle's JSON has them.
const text = new TextDecoder()
function rows(t) {
  const val = (v) => (typeof v === 'bigint' ? Number(v) : v instanceof Uint8Array ? text.decode(v) : v)
  return t.toArray().map((r) => Object.values(r.toJSON()).map(val))
}

for (const worker of [true, false]) {
  test(`a BROTLI file is read by the full module (worker: ${worker})`, async () => {
    const engine = createEngine({ worker })
    try {
      const lz4 = await query(srv.url + '/lz4.parquet', { engine }).toTable()
      assert.equal(lz4.numRows, 4)
      assert.equal((await engine.impl.debugStats()).fullInstances, 0, 'LZ4_RAW is read by the lean module')

      const t = await query(srv.url + '/brotli.parquet', { engine }).toTable()
      assert.deepEqual(rows(t), brotliWant)
      const st = await engine.impl.debugStats()
      assert.equal(st.fullInstances, 1, 'the full module was loaded')

      // An opened file keeps to the full module: its scans, projected or filtered.
      const f = await openParquet(srv.url + '/brotli.parquet', { engine })
      const t2 = await f.scan({ columns: ['v11'], where: 'v11 > 10' }).toTable()
      assert.deepEqual(
        rows(t2),
        brotliWant.filter((r) => r[2] > 10).map((r) => [r[2]]),
      )
      assert.equal((await engine.impl.debugStats()).fullInstances, 1)
    } finally {
      engine.terminate()
    }
  })
}

// A VARIANT column is decoded (unshredded) by the full module only: a file with one is read
// there, as a file with a BROTLI page is. variantJSON gives its JSON text: the values
// hyparquet expects.
test('a VARIANT file is read by the full module', async () => {
  const engine = createEngine({ worker: false })
  try {
    const ids = await query(srv.url + '/shredded-int.parquet', { engine, columns: ['id'] }).toTable()
    assert.equal(ids.numRows, 1)
    assert.equal((await engine.impl.debugStats()).fullInstances, 1, 'the full module was loaded')
    for (const n of variantFiles) {
      const want = JSON.parse(readFileSync(path.join(corpusDir(), `hyparquet/${n}.json`), 'utf8'))
      const t = await query(srv.url + `/${n}.parquet`, { engine, variantJSON: true }).toTable()
      const f = t.schema.fields[1]
      assert.equal(f.metadata.get('ARROW:extension:name'), 'arrow.json', n)
      const got = t.toArray().map((r) => [Number(r.id), r.var == null ? null : JSON.parse(r.var)])
      // Through JSON text once more, as the oracle was written: its JSON has no -0.
      assert.deepEqual(JSON.parse(JSON.stringify(got)), want, n)
      // The canonical form: a struct of the metadata and the whole value.
      const c = await query(srv.url + `/${n}.parquet`, { engine }).toTable()
      const cf = c.schema.fields[1]
      assert.equal(cf.metadata.get('ARROW:extension:name'), 'arrow.parquet.variant', n)
      assert.deepEqual(cf.type.children.map((k) => k.name), ['metadata', 'value'], n)
      assert.ok(c.get(0).var.value.length > 0, n)
    }
    assert.equal((await engine.impl.debugStats()).fullInstances, 1, 'the full module was loaded')
  } finally {
    engine.terminate()
  }
})

// GZIP is the full module's too (the lean one leaves klauspost's inflater out).
test('a GZIP file is read by the full module', async () => {
  const engine = createEngine({ worker: false })
  try {
    const t = await query(srv.url + '/gzip.parquet', { engine }).toTable()
    assert.deepEqual(rows(t), gzipWant)
    assert.equal((await engine.impl.debugStats()).fullInstances, 1, 'the full module was loaded')
  } finally {
    engine.terminate()
  }
})

// With only the lean module (no full one to load), the file fails with the distinguishable
// code, before any row.
test('the lean module alone fails a BROTLI file with needs-full-module', async () => {
  const core = new Core({ wasm: leanWasmPath })
  const { id } = await core.openFile(srv.url + '/brotli.parquet').then(
    () => assert.fail('opened'),
    (e) => {
      assert.ok(e instanceof PqscanError, String(e))
      assert.equal(e.code, 'needs-full-module', e.message)
      return {}
    },
  )
  assert.equal(id, undefined)
})

// openDataset with the package's defaults runs in the full module, loaded then.
test('openDataset loads the full module', async () => {
  const engine = createEngine({ worker: false })
  try {
    const ds = await openDataset([srv.url + '/lz4.parquet', srv.url + '/lz4.parquet'], { engine })
    assert.equal((await ds.scan().toTable()).numRows, 8)
    assert.equal((await engine.impl.debugStats()).fullInstances, 1)
  } finally {
    engine.terminate()
  }
})

// A deployment that ships the full module only: the lean one fails to load, and the full one
// takes its place.
test('a missing lean module falls back to the full one', async () => {
  const core = new Core({ wasm: path.join(path.dirname(wasmPath), 'no-such-lean.wasm'), wasmFull: wasmPath })
  const { metadata } = await core.openFile(srv.url + '/brotli.parquet')
  assert.equal(metadata.numRows, brotliWant.length)
})
