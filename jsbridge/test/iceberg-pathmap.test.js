// Iceberg path maps through the bridge (openDataset's pathMap): a corpus table whose data/
// folder (data files, position and equality delete files, deletion vectors) moved elsewhere,
// nothing rewritten, reads as the table read where it was, once the location's data/ prefix
// is mapped to the new folder (a local folder in Node, a URL over HTTP); the delete files'
// targets still match the data files by the paths the metadata writes. The original tables
// read as the Go host reads them (iceberg.test.js). A remote table mapped onto a local
// folder, and a malformed map, are refused.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { openDataset, terminateDefaultEngines, PqscanError } from '../src/index.js'
import { parsePathMap } from '../src/pathmap.js'
import { startServer } from './server.js'
import { addTree, canonRows, repoRoot, wasmPath } from './helpers.js'
import { iceDir } from './iceberg-corpus.js'

// The tables, by their data/ prefix as the metadata writes it.
const tables = {
  icebird__java_bunnies: 's3a://hyperparam-iceberg/java/bunnies/data',
  lithium__deletion_vectors: 's3a://warehouse/deletion_vectors/data',
}

let tmp, srv
before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-pathmap-'))
  const files = new Map()
  for (const name of Object.keys(tables)) {
    cpSync(path.join(iceDir, 'tables', name), path.join(tmp, name, 'table'), { recursive: true })
    renameSync(path.join(tmp, name, 'table', 'data'), path.join(tmp, name, 'moved dir %41')) // a name a URL escapes
    addTree(files, path.join(tmp, name, 'table'), `/${name}/`)
    addTree(files, path.join(tmp, name, 'moved dir %41'), `/moved/${name}/`)
  }
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
  rmSync(tmp, { recursive: true, force: true })
})

const opts = { worker: false, wasm: wasmPath }

async function rows(src, o = {}) {
  const ds = await openDataset(src, { ...opts, ...o })
  return canonRows(await ds.scan().toTable())
}

test('a moved data/ folder reads through pathMap: local and file: URL bases, object and text forms, and over HTTP', async () => {
  for (const [name, prefix] of Object.entries(tables)) {
    const want = await rows(path.join(iceDir, 'tables', name) + '/')
    assert.ok(want.length > 0, name)
    const table = path.join(tmp, name, 'table') + '/'
    const moved = path.join(tmp, name, 'moved dir %41')
    for (const pathMap of [{ [prefix]: moved }, { [prefix + '/']: pathToFileURL(moved).href + '/' }, `${prefix}=${moved}`, ` s3a://elsewhere/x=/nowhere , ${prefix}=${moved}`]) {
      assert.deepEqual(await rows(table, { pathMap }), want, `${name} ${JSON.stringify(pathMap)}`)
    }
    await assert.rejects(rows(table), (e) => e instanceof PqscanError, name)
    // Over HTTP (the server lists), the base a URL on the same server.
    const url = `${srv.url}/${name}/`
    assert.deepEqual(await rows(url, { pathMap: { [prefix]: `${srv.url}/moved/${name}` } }), want, `${name} http`)
    // A remote table's files never map onto a local folder.
    await assert.rejects(rows(url, { pathMap: { [prefix]: moved } }), (e) => e instanceof PqscanError && e.code === 'scope' && /the table is remote/.test(e.message), name)
  }
})

test('a malformed pathMap is refused with code options, saying what is wrong', async () => {
  const table = path.join(tmp, 'icebird__java_bunnies', 'table') + '/'
  for (const [pathMap, msg] of [
    ['s3a://b/t', /not PREFIX=BASE/],
    ['s3a://b/t=/x,', /empty entry/],
    ['s3a://b/t=relative', /not PREFIX=BASE/],
    [{ 'data/x': '/x' }, /not an absolute URI/],
    [{ 's3a://b/t': 'folder' }, /not an http\(s\) URL/],
    [{ 's3a://b/t': '/a', 's3a://b/t/': '/b' }, /are the same/],
    [{ 's3a://b/t': 1 }, /not a string/],
    [['s3a://b/t=/x'], /an object/],
  ]) {
    await assert.rejects(openDataset(table, { ...opts, pathMap }), (e) => e instanceof PqscanError && e.code === 'options' && msg.test(e.message), JSON.stringify(pathMap))
  }
})

test('parsePathMap gives what the Go parser gives on its cases (internal/dataset/iceberg/testdata)', () => {
  const cases = JSON.parse(readFileSync(path.join(repoRoot, 'internal/dataset/iceberg/testdata/pathmap-cases.json'), 'utf8'))
  assert.ok(cases.length > 10)
  for (const c of cases) {
    if (c.err) assert.throws(() => parsePathMap(c.spec), (e) => e instanceof PqscanError && e.code === 'options' && e.message.includes(c.err), c.spec)
    else assert.deepEqual(parsePathMap(c.spec), c.want, c.spec)
  }
})
