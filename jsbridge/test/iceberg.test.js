// Iceberg tables through the bridge: openDataset on a local table folder (Node), on a folder
// URL (over test/server.js: listed with ListObjectsV2, or a server that does not list, where
// only metadata/version-hint.text finds the table) and on a *.metadata.json path or URL. The
// metadata, manifest list and manifests are read by the module's Iceberg session
// (pq_open_iceberg); the bridge only moves bytes. The oracle is the native CLI (`pqscan cat
// --format arrow`, the Go host, which Go's Test_icebergCorpus holds to the corpus's icebird
// rows). A table whose deletes this build does not read is refused with code 'unsupported'.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { openDataset, terminateDefaultEngines, PqscanError } from '../src/index.js'
import { startServer } from './server.js'
import { addTree, canonRows, repoRoot, wasmPath } from './helpers.js'
import { iceDir, icebergTables } from './iceberg-corpus.js'

const rows = icebergTables()

let srv, cli, tmp
before(async () => {
  const files = new Map()
  addTree(files, path.join(iceDir, 'tables'), '/ice/')
  srv = await startServer(files)
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-iceberg-'))
  cli = path.join(tmp, 'pqscan')
  execFileSync('go', ['build', '-o', cli, './cmd/pqscan'], { cwd: repoRoot, stdio: 'inherit' })
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
  rmSync(tmp, { recursive: true, force: true })
})

const canon = canonRows

// The Go host's rows, or null when it refuses the table as unsupported (deletes).
function oracle(args) {
  try {
    return canon(tableFromIPC(execFileSync(cli, ['cat', ...args, '--format', 'arrow', '--quiet'], { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] })))
  } catch (e) {
    if (/unsupported/i.test(String(e.stderr))) return null
    throw e
  }
}

const localRoot = (r) => path.join(iceDir, 'tables', r.name, r.table_root)

// Reads src as the bridge does, then compares with the oracle's rows; a refusal must be the
// clear 'unsupported' one, and the Go host must refuse the table too.
async function check(src, want, o, what) {
  const base = { worker: false, wasm: wasmPath, ...o }
  let ds
  try {
    ds = await openDataset(src, base)
  } catch (e) {
    assert.ok(e instanceof PqscanError && e.code === 'unsupported' && /delete|deletion/.test(e.message), `${what}: ${e.code}: ${e.message}`)
    assert.equal(want, null, `${what}: refused, but the Go host reads it: ${e.message}`)
    return 'refused'
  }
  assert.ok(want != null, `${what}: read, but the Go host refuses it`)
  assert.deepEqual(canon(await ds.scan().toTable()), want, what)
  return ds
}

for (const where of ['local', 'http-listing', 'http-hint']) {
  test(`${where}: every corpus table reads as the Go host reads it, or is refused as unsupported`, async () => {
    let read = 0
    for (const r of rows) {
      srv.reset()
      for (const k of Object.keys(srv.mode)) delete srv.mode[k]
      if (where === 'http-hint') srv.mode.list = 'error' // no listing: only a version hint finds the table
      const want = oracle([localRoot(r) + '/'])
      const rel = `${r.name}/${r.table_root === '.' ? '' : r.table_root + '/'}`
      const folder = where === 'local' ? localRoot(r) + '/' : `${srv.url}/ice/${rel}`
      const meta = where === 'local' ? path.join(localRoot(r), 'metadata', r.metadata_file) : `${srv.url}/ice/${rel}metadata/${r.metadata_file}`
      for (const src of [folder, meta]) {
        if (where === 'http-hint' && src === folder && r.version_hint === 'none') {
          // Neither a listing nor a hint: the folder reads as Hive and the listing's error stands.
          await assert.rejects(openDataset(src, { worker: false, wasm: wasmPath }), (e) => e instanceof PqscanError, r.name)
          continue
        }
        const ds = await check(src, want, {}, `${r.name} ${src}`)
        if (ds === 'refused') continue
        assert.match(ds.metadata.iceberg.snapshotId, /^\d+$/, r.name)
        assert.equal(ds.metadata.iceberg.snapshotId, /\(current (\d+)\)/.exec(r.snapshots)[1], r.name)
        read++
      }
    }
    // 21 tables read of 25 (two sources each); without a listing, 2 have a version hint.
    assert.ok(read >= (where === 'http-hint' ? 23 : 42), `read ${read}`)
  })
}

test('time travel: snapshotId and asOf choose a snapshot, read as the Go host reads it; bad options are refused', async () => {
  const r = rows.find((x) => x.name === 'icebird__spark_bunnies')
  const root = localRoot(r) + '/'
  const m = JSON.parse(readFileSync(path.join(root, 'metadata', r.metadata_file), 'utf8'))
  const log = m['snapshot-log']
  // The log's ids exactly, from the text: a JSON number above 2^53 parses inexactly.
  const text = readFileSync(path.join(root, 'metadata', r.metadata_file), 'utf8')
  const ids = [...text.slice(text.indexOf('"snapshot-log"')).matchAll(/"snapshot-id"\s*:\s*(\d+)/g)].map((x) => x[1])
  let read = 0
  for (const [i, e] of log.entries()) {
    const id = ids[i]
    const want = oracle([root, '--snapshot-id', id])
    for (const o of [{ snapshotId: id }, { snapshotId: BigInt(id) }, { asOf: new Date(i + 1 < log.length ? log[i + 1]['timestamp-ms'] - 1 : e['timestamp-ms']) }]) {
      for (const src of [root, `${srv.url}/ice/${r.name}/`]) {
        const ds = await check(src, want, o, `${id} ${JSON.stringify(o, (_, x) => (typeof x === 'bigint' ? String(x) : x))} ${src}`)
        if (ds === 'refused') continue
        assert.equal(ds.metadata.iceberg.snapshotId, id)
        read++
      }
    }
  }
  assert.ok(read >= 8, `read ${read}`)
  const first = new Date(log[0]['timestamp-ms'] - 1)
  await assert.rejects(openDataset(root, { worker: false, wasm: wasmPath, asOf: first }), (e) => e instanceof PqscanError && e.code === 'iceberg' && /none at or before/.test(e.message))
  await assert.rejects(openDataset(root, { worker: false, wasm: wasmPath, snapshotId: '42' }), (e) => e instanceof PqscanError && /snapshot not found: 42/.test(e.message))
  await assert.rejects(openDataset(root, { worker: false, wasm: wasmPath, snapshotId: 1, asOf: first }), (e) => e.code === 'options')
  await assert.rejects(openDataset(root, { worker: false, wasm: wasmPath, version: 1 }), (e) => e.code === 'options' && /Iceberg table/.test(e.message))
  await assert.rejects(openDataset(root, { worker: false, wasm: wasmPath, snapshotId: 1.5 }), (e) => e.code === 'options')
})

test('scope: an Iceberg metadata file opens its table root, and nothing beside it', async () => {
  const r = rows.find((x) => x.name === 'icebird__spark_rename_column')
  const meta = path.join(localRoot(r), 'metadata', r.metadata_file)
  const ds = await openDataset(meta, { worker: false, wasm: wasmPath })
  assert.equal((await ds.scan().toTable()).numRows, 4)
  // A data file the manifests name outside the root would be refused: the scope is the root.
  assert.ok(ds.metadata.files.every((f) => f.startsWith(localRoot(r))), ds.metadata.files.join('\n'))
})

// A table's metadata may not make the host read outside the table: a manifest list named
// outside the table location (a `..` under it, a local absolute path, another server) fails
// with code 'scope' before any request for it; under an allowed prefix it reads.
test('an Iceberg manifest list outside the table is refused unless allowed, before any request', async () => {
  const src = path.join(iceDir, 'tables', 'icebird__athena_example')
  const other = await startServer(new Map())
  try {
    const metaName = '00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json'
    const meta = JSON.parse(readFileSync(path.join(src, 'metadata', metaName), 'utf8'))
    const list = meta.snapshots[0]['manifest-list']
    const elsewhere = path.join(tmp, 'elsewhere')
    mkdirSync(elsewhere, { recursive: true })
    cpSync(path.join(src, 'metadata', path.basename(list)), path.join(elsewhere, path.basename(list)))
    const table = (name, manifestList) => {
      const dir = path.join(tmp, name)
      cpSync(src, dir, { recursive: true })
      const m = structuredClone(meta)
      m.snapshots[0]['manifest-list'] = manifestList
      writeFileSync(path.join(dir, 'metadata', metaName), JSON.stringify(m))
      return dir + path.sep
    }
    const cases = [
      { name: 'dotdot', list: meta.location + '/../evil/snap.avro' },
      { name: 'local-absolute', list: path.join(elsewhere, path.basename(list)) },
      { name: 'other-server', list: other.url + 'evil/snap.avro' },
    ]
    for (const c of cases) {
      other.log.length = 0
      await assert.rejects(openDataset(table(c.name, c.list), { worker: false, wasm: wasmPath }), (e) => e instanceof PqscanError && e.code === 'scope' && /manifest list/.test(e.message), c.name)
      assert.deepEqual(other.log, [], `${c.name}: no request to the other server`)
    }
    const ds = await openDataset(table('allowed', path.join(elsewhere, path.basename(list))), { worker: false, wasm: wasmPath, allow: [elsewhere + path.sep] })
    assert.equal((await ds.scan().toTable()).numRows, 2)
    ds.close()
  } finally {
    await other.close()
  }
})

// An Iceberg table's metadata the module cannot read fails with code 'iceberg' (the module's
// error kind), and the message names the object: a metadata/ folder without a metadata file,
// a missing manifest, a truncated manifest.
test("Iceberg metadata failures have code 'iceberg' and name the object", async () => {
  const src = path.join(iceDir, 'tables', 'icebird__spark_bunnies')
  const manifest = '91d5eea0-314d-4056-8818-59b825cbd38a-m0.avro' // written by the current snapshot
  const cases = [
    { name: 'no-table', names: /no version hint and no \*\.metadata\.json/, edit: (dir) => {
      for (const f of readdirSync(path.join(dir, 'metadata'))) rmSync(path.join(dir, 'metadata', f))
    } },
    { name: 'missing-manifest', names: new RegExp(`missing: the manifest metadata/${manifest}`), edit: (dir) => rmSync(path.join(dir, 'metadata', manifest)) },
    { name: 'truncated-manifest', names: new RegExp(`malformed table metadata: manifest metadata/${manifest}`), edit: (dir) => {
      const b = readFileSync(path.join(dir, 'metadata', manifest))
      writeFileSync(path.join(dir, 'metadata', manifest), b.subarray(0, b.length >> 1))
    } },
  ]
  for (const c of cases) {
    const dir = path.join(tmp, c.name)
    cpSync(src, dir, { recursive: true })
    c.edit(dir)
    await assert.rejects(openDataset(dir + path.sep, { worker: false, wasm: wasmPath }), (e) => e instanceof PqscanError && e.code === 'iceberg' && c.names.test(e.message), c.name)
  }
})
