// Local sources in Node and AsyncBuffer sources, in a worker_threads Worker and in the calling
// thread: paths (relative, absolute), file: URLs (strings and URL objects), fs.openAsBlob
// Blobs (file-backed, not cloneable: read through the calling thread in Worker mode), a
// user-written AsyncBuffer and hyparquet's own (asyncBufferFromUrl, cachedAsyncBuffer,
// asyncBufferFromFile). Rows are checked against hyparquet's expected JSON (the corpus
// oracle); bad inputs must be PqscanErrors with a code.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, openAsBlob, mkdtempSync, mkdirSync, copyFileSync, rmSync, writeFileSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { asyncBufferFromUrl, cachedAsyncBuffer, asyncBufferFromFile } from 'hyparquet'
import { openParquet, openDataset, terminateDefaultEngines, PqscanError } from '../src/index.js'
import { startServer } from './server.js'
import { corpusDir, wasmPath } from './helpers.js'

const bssRel = 'hyparquet/byte_stream_split.zstd.parquet'
const bssPath = path.join(corpusDir(), bssRel)
const bssWant = JSON.parse(readFileSync(path.join(corpusDir(), 'hyparquet/byte_stream_split.zstd.json'), 'utf8'))
const tinyPath = path.join(corpusDir(), 'parquet-testing/data/alltypes_tiny_pages_plain.parquet')
const tinyBytes = new Uint8Array(readFileSync(tinyPath))

let srv
let tmp
before(async () => {
  srv = await startServer(new Map([['/bss.parquet', new Uint8Array(readFileSync(bssPath))], ['/tiny.parquet', tinyBytes]]))
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-local-'))
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
  rmSync(tmp, { recursive: true, force: true })
})

// hyparquet's oracle rows (floats within 1e-6, as scan.test.js compares them).
function assertBss(t, label) {
  assert.equal(t.numRows, bssWant.length, label)
  const rows = t.toArray().map((r) => Object.values(r.toJSON()))
  for (let i = 0; i < bssWant.length; i++) {
    for (let j = 0; j < bssWant[i].length; j++) assert.ok(Math.abs(rows[i][j] - bssWant[i][j]) < 1e-6, `${label}: row ${i} col ${j}: ${rows[i][j]} vs ${bssWant[i][j]}`)
  }
}

// A user-written AsyncBuffer over bytes: counts its reads; sync or async slices.
function userBuffer(bytes, { sync = false } = {}) {
  const reads = []
  return {
    reads,
    byteLength: bytes.length,
    slice(start, end) {
      reads.push([start, end])
      const ab = bytes.slice(start, end).buffer
      return sync ? ab : Promise.resolve(ab)
    },
  }
}

for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'
  const o = { worker, wasm: wasmPath }

  test(`${mode}: a relative path, an absolute path, a file: URL (string and URL) and an fs.openAsBlob Blob`, async () => {
    const inputs = [
      ['relative path', path.relative(process.cwd(), bssPath)],
      ['absolute path', bssPath],
      ['file: URL string', pathToFileURL(bssPath).href],
      ['file: URL object', pathToFileURL(bssPath)],
      ['fs.openAsBlob', await openAsBlob(bssPath)],
    ]
    for (const [label, input] of inputs) {
      const f = await openParquet(input, o)
      assert.equal(f.metadata.numRows, bssWant.length, label)
      assertBss(await f.scan().toTable(), label)
      f.close()
    }
  })

  test(`${mode}: a local file is read by ranges, not whole`, async () => {
    for (const input of [tinyPath, await openAsBlob(tinyPath)]) {
      const f = await openParquet(input, o)
      const s = f.scan({ columns: ['id'], where: 'id >= 1000 AND id < 1100' })
      const t = await s.toTable()
      assert.deepEqual([...t.getChild('id').toArray()].sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => 1000 + i))
      // The page index keeps a few small pages: a fraction of the file, read at offsets.
      assert.ok(s.http.requests > 0 && s.http.bytes < tinyBytes.length / 10, `read ${s.http.bytes} of ${tinyBytes.length} bytes`)
      f.close()
    }
  })

  test(`${mode}: AsyncBuffers — a user's (sync and async slices) and hyparquet's asyncBufferFromUrl, cachedAsyncBuffer, asyncBufferFromFile`, async () => {
    const bytes = new Uint8Array(readFileSync(bssPath))
    const mine = userBuffer(bytes)
    const inputs = [
      ['user AsyncBuffer', mine],
      ['user AsyncBuffer, sync slice', userBuffer(bytes, { sync: true })],
      ['asyncBufferFromUrl', await asyncBufferFromUrl({ url: srv.url + '/bss.parquet' })],
      ['cachedAsyncBuffer', cachedAsyncBuffer(await asyncBufferFromUrl({ url: srv.url + '/bss.parquet' }))],
      ['asyncBufferFromFile', await asyncBufferFromFile(bssPath)],
    ]
    for (const [label, input] of inputs) {
      const f = await openParquet(input, o)
      assertBss(await f.scan().toTable(), label)
      f.close()
    }
    assert.ok(mine.reads.length > 0, 'the user AsyncBuffer was read')
    // The tiny-pages file through an AsyncBuffer: a selective scan slices a fraction of it.
    const tb = userBuffer(tinyBytes)
    const f = await openParquet(tb, o)
    const t = await f.scan({ columns: ['id'], where: 'id = 4242' }).toTable()
    assert.deepEqual([...t.getChild('id').toArray()], [4242])
    const got = tb.reads.reduce((n, [a, b]) => n + b - a, 0)
    assert.ok(got < tinyBytes.length / 10, `sliced ${got} of ${tinyBytes.length} bytes`)
  })

  test(`${mode}: bad local inputs are PqscanErrors with a code`, async () => {
    const bad = async (input, code, label) => {
      const e = await openParquet(input, o).catch((e) => e)
      assert.ok(e instanceof PqscanError, `${label}: ${e?.stack ?? e}`)
      assert.equal(e.code, code, `${label}: ${e.message}`)
      return e
    }
    const missing = await bad(path.join(tmp, 'missing.parquet'), 'source', 'missing file')
    assert.match(missing.message, /missing\.parquet/)
    await bad(tmp, 'source', 'a directory')
    await bad(pathToFileURL(path.join(tmp, 'nope.parquet')), 'source', 'missing file: URL')
    await bad({}, 'source', 'a plain object')
    await bad(42, 'source', 'a number')
    await bad(null, 'source', 'null')
    await bad({ byteLength: 100, slice: () => Promise.reject(new Error('disk on fire')) }, 'source', 'a failing AsyncBuffer')
    await bad({ byteLength: 100, slice: () => 'bytes' }, 'source', 'an AsyncBuffer giving a string')
    await bad({ byteLength: 100000, slice: (a, b) => new ArrayBuffer(Math.max(0, b - a - 1)) }, 'short-body', 'a short AsyncBuffer')
    const notParquet = path.join(tmp, 'not.parquet')
    writeFileSync(notParquet, 'not a parquet file at all')
    await bad(notParquet, 'not-parquet', 'not Parquet')
    await bad(await openAsBlob(notParquet), 'not-parquet', 'not Parquet, fs.openAsBlob')
    // Scan options the Worker cannot take (a function) are an error of the scan, not a throw.
    const f = await openParquet(bssPath, o)
    const e = await f.scan({ columns: [() => 'f32'] }).toTable().catch((e) => e)
    assert.ok(e instanceof PqscanError && e.code, String(e?.stack ?? e))
    assertBss(await f.scan().toTable(), 'the file still scans')
  })

  test(`${mode}: a local file changed between open and scan is file-changed`, async () => {
    const p = path.join(tmp, `changing-${mode}.parquet`)
    copyFileSync(tinyPath, p)
    const f = await openParquet(p, o)
    utimesSync(p, new Date(2000, 0, 1), new Date(2000, 0, 1)) // a new mtime: another version
    const e = await f.scan({ columns: ['id'] }).toTable().catch((e) => e)
    assert.ok(e instanceof PqscanError, String(e?.stack ?? e))
    assert.equal(e.code, 'file-changed', e.message)
  })

  test(`${mode}: openDataset over local paths with Hive directories, file: URLs and AsyncBuffers`, async () => {
    const dir = path.join(tmp, `ds-${mode}`)
    for (const k of [1, 2]) {
      mkdirSync(path.join(dir, `k=${k}`), { recursive: true })
      copyFileSync(bssPath, path.join(dir, `k=${k}`, 'part-0.parquet'))
    }
    const p1 = path.join(dir, 'k=1', 'part-0.parquet')
    const p2 = path.join(dir, 'k=2', 'part-0.parquet')
    const rel = path.relative(process.cwd(), p1)
    for (const [label, list] of [
      ['paths', [rel, p2]],
      ['file: URLs', [pathToFileURL(p1).href, pathToFileURL(p2)]],
      ['fs.openAsBlob with paths', [{ blob: await openAsBlob(p1), path: 'k=1/part-0.parquet' }, { blob: await openAsBlob(p2), path: 'k=2/part-0.parquet' }]],
      ['AsyncBuffers with paths', [{ blob: await asyncBufferFromFile(p1), path: 'k=1/a' }, { blob: userBuffer(new Uint8Array(readFileSync(p2))), path: 'k=2/b' }]],
    ]) {
      const ds = await openDataset(list, o)
      assert.deepEqual(ds.schema.fields.map((x) => x.name).at(-1), 'k', label)
      const s = ds.scan({ where: 'k = 2' })
      const t = await s.toTable()
      assert.equal(t.numRows, bssWant.length, label)
      assert.deepEqual([...new Set(t.getChild('k').toArray())].map(Number), [2], label)
      assert.deepEqual(s.report.files.map((f) => f.skippedBy ?? 'read'), ['partition', 'read'], label)
      const all = await ds.scan({ columns: ['k'] }).toTable()
      assert.equal(all.numRows, 2 * bssWant.length, label)
      ds.close()
    }
    const e = await openDataset([p1, path.join(dir, 'k=3', 'none.parquet')], o).then((ds) => ds.scan().toTable()).catch((e) => e)
    assert.ok(e instanceof PqscanError && e.code === 'source', String(e?.stack ?? e))
  })
}
