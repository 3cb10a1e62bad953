// Delta tables through the bridge: openDataset on a folder URL (over test/server.js, listed
// with ListObjectsV2 or probed as on a plain CDN) and on a local folder (Node). The log replay
// is the module's Delta session (pq_open_delta); the bridge only moves bytes. The oracle is the
// native CLI (`pqscan cat --format arrow`, the Go host): for the DAT cases it reads the
// expected table contents DAT ships (expected/<v>/table_content.parquet), for the delta-rs
// tables the table itself (Go's Test_deltaRS holds the Go host to an arrow-go oracle).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, statSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { openDataset, terminateDefaultEngines, PqscanError } from '../src/index.js'
import { startServer } from './server.js'
import { canonRows, corpusDir, repoRoot, wasmPath } from './helpers.js'
import { dvFile, z85, dvFileName, readLog, commitText, chmodTree, walk } from './delta-gen.js'

const deltaDir = path.join(corpusDir(), 'delta')
let srv, cli, tmp
before(async () => {
  srv = await startServer(new Map(walk(deltaDir).map(([r, b]) => [`/delta/${r}`, b])))
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-delta-'))
  cli = path.join(tmp, 'pqscan')
  execFileSync('go', ['build', '-o', cli, './cmd/pqscan'], { cwd: repoRoot, stdio: 'inherit' })
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
  rmSync(tmp, { recursive: true, force: true })
})

const canon = canonRows

function oracle(args) {
  return canon(tableFromIPC(execFileSync(cli, ['cat', ...args, '--format', 'arrow', '--quiet'], { maxBuffer: 64 << 20 })))
}

const datCases = readdirSync(path.join(deltaDir, 'dat'))
const versionsOf = (c) => readdirSync(path.join(deltaDir, 'dat', c, 'expected')).map((v) => (v === 'latest' ? null : Number(v.slice(1))))

for (const where of ['http-listing', 'http-probing', 'local']) {
  const open = (rel, o = {}) => {
    const base = { worker: false, wasm: wasmPath, ...o }
    if (where === 'local') return openDataset(path.join(deltaDir, rel) + '/', base)
    return openDataset(`${srv.url}/delta/${rel}/`, base)
  }
  const setMode = () => {
    srv.reset()
    for (const k of Object.keys(srv.mode)) delete srv.mode[k]
    if (where === 'http-probing') srv.mode.list = 'error' // no listing: the bridge probes versions
  }

  test(`${where}: the DAT cases equal their expected contents at every version`, async () => {
    let n = 0
    for (const c of datCases) {
      for (const version of versionsOf(c)) {
        setMode()
        const ds = await open(`dat/${c}/delta`, version == null ? {} : { version })
        const got = canon(await ds.scan().toTable())
        const want = oracle([path.join(deltaDir, 'dat', c, 'expected', version == null ? 'latest' : `v${version}`, 'table_content.parquet')])
        assert.deepEqual(got, want, `${c} ${version ?? 'latest'}`)
        if (version != null) assert.equal(ds.metadata.delta.version, version)
        n++
      }
    }
    assert.equal(n, 12) // 3 + 3 + 4 + 2, as Go's Test_deltaDAT
  })

  test(`${where}: the delta-rs tables read as the Go host reads them, or are refused naming the feature`, async () => {
    const refused = {
      // The log's latest files are not shipped: the missing file is named.
      with_checkpoint_no_last_checkpoint: [where === 'local' ? 'source' : 'http', 'part-00000-70b1dcdf'],
    }
    const names = readdirSync(path.join(deltaDir, 'delta-rs'))
    assert.equal(names.length, 14)
    for (const name of names) {
      setMode()
      const read = async () => canon(await (await open(`delta-rs/${name}`)).scan().toTable())
      if (refused[name]) {
        const [code, text] = refused[name]
        await assert.rejects(read, (e) => e instanceof PqscanError && e.code === code && e.message.includes(text), name)
        continue
      }
      const got = await read()
      assert.deepEqual(got, oracle([path.join(deltaDir, 'delta-rs', name) + '/']), name)
      if (name === 'table_with_column_mapping') {
        // Column mapping: logical names, and the partition column (keyed by its physical
        // name in the log) never null.
        assert.equal(got.length, 5)
        assert.ok(got.every((r) => /^Company Very Short="BM[ES]"\|Super Name="[^"]+"$/.test(r)), got.join('\n'))
      }
    }
  })

  test(`${where}: deletion vectors: rows 0 and 9 of table-with-dv-small are deleted, for rows, filters, row index and top-k`, async () => {
    setMode()
    const ds = await open('delta-rs/table-with-dv-small')
    assert.deepEqual(canon(await ds.scan().toTable()), [1, 2, 3, 4, 5, 6, 7, 8].map((v) => `value=${v}`))
    assert.deepEqual(canon(await ds.scan({ where: 'value >= 5', rowIndex: 'ri' }).toTable()), [5, 6, 7, 8].map((v) => `ri=${v}|value=${v}`))
    assert.deepEqual(canon(await ds.scan({ orderBy: 'value DESC', limit: 1 }).toTable()), ['value=8'])
    if (where === 'http-listing') {
      // The vector file is one range request, the one deletion vector file in the log.
      const dvReqs = srv.log.filter((l) => l.path.includes('deletion_vector_'))
      assert.equal(dvReqs.length, 1)
    }
  })
}

test('http: a listing host reads the log in one listing, a plain CDN probes until a 404', async () => {
  const logReqs = () => srv.log.filter((l) => l.path.includes('/_delta_log/') || l.list)
  srv.reset()
  delete srv.mode.list
  await openDataset(`${srv.url}/delta/delta-rs/simple_table_with_checkpoint/`, { worker: false, wasm: wasmPath })
  const listed = logReqs()
  assert.equal(listed.filter((l) => l.list).length, 1)
  assert.ok(!listed.some((l) => l.path.endsWith('_last_checkpoint')), 'the listing names the checkpoint')
  assert.ok(!listed.some((l) => /0000000000000000000[0-9]\.json$/.test(l.path)), 'no commit before the checkpoint is read')
  srv.reset()
  srv.mode.list = 'error'
  await openDataset(`${srv.url}/delta/delta-rs/simple_table_with_checkpoint/`, { worker: false, wasm: wasmPath })
  const probed = logReqs().map((l) => l.path)
  assert.ok(probed.some((p) => p.endsWith('/_last_checkpoint')))
  assert.ok(probed.some((p) => p.endsWith('/00000000000000000011.json')), 'probes the version after the last commit (404)')
  delete srv.mode.list
})

test('http: a folder without _delta_log/ is a hive folder through the listing; in a Worker too', async () => {
  srv.reset()
  const ds = await openDataset(`${srv.url}/delta/delta-rs/delta-0.8.0-partitioned/`, { noHive: false, wasm: wasmPath })
  assert.ok(ds.metadata.delta, 'that one is a Delta table')
  const want = oracle([path.join(deltaDir, 'delta-rs', 'delta-0.8.0-partitioned') + '/'])
  assert.deepEqual(canon(await ds.scan().toTable()), want)
  const hive = await openDataset(`${srv.url}/delta/delta-rs/delta-0.8.0-partitioned/year=2020/`, { worker: false, wasm: wasmPath })
  assert.equal(hive.metadata.delta, undefined)
  assert.ok(hive.files.length > 0 && hive.files.every((u) => u.includes('/year=2020/') && u.endsWith('.parquet')))
})

test('local: a glob and a hive folder in Node', async () => {
  const dir = path.join(deltaDir, 'delta-rs', 'delta-0.8.0-partitioned')
  const ds = await openDataset(path.join(dir, 'year=2020', '*', '*', '*.parquet'), { worker: false, wasm: wasmPath })
  const want = oracle([path.join(dir, 'year=2020', '**', '*.parquet')])
  assert.deepEqual(canon(await ds.scan().toTable()), want)
  const folder = await openDataset(path.join(dir, 'year=2020') + '/', { worker: false, wasm: wasmPath })
  assert.deepEqual(canon(await folder.scan().toTable()), want)
  assert.ok(statSync(dir).isDirectory())
})

// Faults: every one is a PqscanError naming the object, never a partial or wrong table.
test('faults: truncated and malformed commits, a missing data file, a 500 on a log object', async () => {
  const base = '/delta/dat/basic_append/delta'
  const commit1 = `${base}/_delta_log/00000000000000000001.json`
  const good = new Map([...srv.entries()].filter(([p]) => p.startsWith(base + '/')))
  const copy = (name, edit) => {
    for (const [p, b] of good) srv.set(p.replace(base, `/faults/${name}`), b)
    edit?.(`/faults/${name}`)
    return `${srv.url}/faults/${name}/`
  }
  const o = { worker: false, wasm: wasmPath, maxRetries: 0 } // a 500 fails at once, not after backoff
  const fails = async (url, code, text, what, opts = o) => {
    await assert.rejects(
      async () => (await openDataset(url, opts)).scan().toTable(),
      (e) => {
        assert.ok(e instanceof PqscanError, `${what}: ${e}`)
        assert.equal(e.code, code, `${what}: ${e.message}`)
        assert.ok(e.message.includes(text), `${what}: ${e.message} should name ${text}`)
        return true
      },
      what,
    )
  }
  const c1 = good.get(commit1)
  const truncated = copy('truncated', (r) => srv.set(`${r}/_delta_log/00000000000000000001.json`, c1.subarray(0, c1.length - 40)))
  const malformed = copy('malformed', (r) => srv.set(`${r}/_delta_log/00000000000000000001.json`, new TextEncoder().encode('{"add": {"path": 1}}\nnot json\n')))
  const missing = copy('missing')
  const firstAdd = JSON.parse(new TextDecoder().decode(c1).split('\n').find((l) => l.includes('"add"'))).add.path
  srv.delete(`/faults/missing/${firstAdd}`)
  const five = copy('five')
  for (const list of [false, true]) {
    if (list) delete srv.mode.list
    else srv.mode.list = 'error'
    const how = list ? 'listed' : 'probed'
    await fails(truncated, 'delta', '00000000000000000001.json', `${how}: truncated commit`)
    await fails(malformed, 'delta', '00000000000000000001.json', `${how}: malformed commit`)
    await fails(missing, 'http', firstAdd, `${how}: missing data file`)
    srv.mode[`/faults/five/_delta_log/00000000000000000001.json`] = '500'
    await fails(five, 'http', '_delta_log/00000000000000000001.json', `${how}: 500 on a commit`)
    delete srv.mode[`/faults/five/_delta_log/00000000000000000001.json`]
  }
  // A table with a checkpoint: a 500 on _last_checkpoint (probing) or on the checkpoint
  // Parquet (read by the module through NeedData) names that object too.
  const cp = '/delta/delta-rs/simple_table_with_checkpoint'
  for (const [p, b] of [...srv.entries()].filter(([p]) => p.startsWith(cp + '/'))) srv.set(p.replace(cp, '/faults/cp'), b)
  srv.mode.list = 'error'
  srv.mode['/faults/cp/_delta_log/_last_checkpoint'] = '500'
  await fails(`${srv.url}/faults/cp/`, 'http', '_delta_log/_last_checkpoint', 'probed: 500 on _last_checkpoint')
  delete srv.mode['/faults/cp/_delta_log/_last_checkpoint']
  delete srv.mode.list
  srv.mode['/faults/cp/_delta_log/00000000000000000010.checkpoint.parquet'] = '500'
  await fails(`${srv.url}/faults/cp/`, 'http', '00000000000000000010.checkpoint.parquet', 'listed: 500 on the checkpoint')
  delete srv.mode['/faults/cp/_delta_log/00000000000000000010.checkpoint.parquet']
})

// A generated table with both features: table_with_column_mapping (name mode) given a commit
// that deletes rows 1 and 3 of its 4-row file by a stored vector. Expected: that file's rows
// (read alone, by physical names) but those two, and the other file's row, by logical names.
test('a column-mapped table with a deletion vector, local and over HTTP', async () => {
  const src = path.join(deltaDir, 'delta-rs', 'table_with_column_mapping')
  const dir = path.join(tmp, 'cm-dv')
  cpSync(src, dir, { recursive: true })
  const log0 = readLog(path.join(src, '_delta_log', '00000000000000000000.json'))
  const add = log0.find((a) => a.add?.path.startsWith('BH/')).add
  const uuid = Uint8Array.from({ length: 16 }, (_, i) => i + 1)
  const vec = dvFile([1, 3])
  chmodTree(dir)
  mkdirSync(path.join(dir, 'dv'))
  writeFileSync(path.join(dir, 'dv', dvFileName(uuid)), vec.bytes, { flag: 'w' })
  const dv = { storageType: 'u', pathOrInlineDv: 'dv' + z85(uuid), offset: 1, sizeInBytes: vec.size, cardinality: 2 }
  const features = ['columnMapping', 'deletionVectors']
  writeFileSync(path.join(dir, '_delta_log', '00000000000000000001.json'), commitText([
    { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: features, writerFeatures: features } },
    { remove: { path: add.path, deletionTimestamp: 1, dataChange: true } },
    { add: { ...add, deletionVector: dv } },
  ]))
  const phys = (n) => JSON.parse(log0.find((a) => a.metaData).metaData.schemaString).fields.find((f) => f.name === n).metadata['delta.columnMapping.physicalName']
  const file = execFileSync(cli, ['cat', path.join(src, add.path), '--format', 'jsonl', '--quiet']).toString().trim().split('\n').map((l) => JSON.parse(l))
  const want = [...file.filter((_, i) => i !== 1 && i !== 3).map((r) => ({ 'Company Very Short': 'BMS', 'Super Name': r[phys('Super Name')] })),
    { 'Company Very Short': 'BME', 'Super Name': 'Timothy Lamb' }]
    .map((r) => `Company Very Short=${JSON.stringify(r['Company Very Short'])}|Super Name=${JSON.stringify(r['Super Name'])}`).sort()
  assert.equal(file.length, 4)
  for (const [p, b] of walk(dir)) srv.set(`/cm-dv/${p}`, b)
  for (const where of ['local', 'http']) {
    srv.reset()
    const ds = await openDataset(where === 'local' ? dir + '/' : `${srv.url}/cm-dv/`, { worker: false, wasm: wasmPath })
    assert.deepEqual(canon(await ds.scan().toTable()), want, where)
    assert.deepEqual(canon(await ds.scan({ where: "\"Company Very Short\" = 'BMS'" }).toTable()), want.filter((r) => r.includes('BMS')), where)
  }
})


// The codes of the engine's error kinds (pq_error_kind), as Go's Test_errorKindsAcrossEngines
// reads the same tables: a corrupt data page is 'corrupt' (pqscan.ErrCorrupt), a checkpoint cut
// in half 'not-parquet' (pqscan.ErrNotParquet), an unknown feature 'unsupported'.
test('faults: the engine\'s error kinds are the codes (a corrupt page, a truncated checkpoint)', async () => {
  const copyTo = (from, name, edit) => {
    for (const [p, b] of [...srv.entries()].filter(([p]) => p.startsWith(from + '/'))) srv.set(p.replace(from, `/kinds/${name}`), edit(p, b) ?? b)
    return `${srv.url}/kinds/${name}/`
  }
  const page = copyTo('/delta/dat/basic_append/delta', 'page', (p, b) => {
    if (!/part-00000-3c9f01c2-.*\.parquet$/.test(p)) return
    const c = b.slice()
    c[99] ^= 0xff // inside the first data page: its CRC no longer matches
    return c
  })
  const cp = copyTo('/delta/delta-rs/simple_table_with_checkpoint', 'cp', (p, b) => (p.endsWith('.checkpoint.parquet') ? b.slice(0, b.length >> 1) : undefined))
  for (const [url, code, text] of [[page, 'corrupt', 'page checksum mismatch'], [cp, 'not-parquet', 'not a Parquet file']]) {
    await assert.rejects(
      async () => (await openDataset(url, { worker: false, wasm: wasmPath })).scan().toTable(),
      (e) => e instanceof PqscanError && e.code === code && e.message.includes(text),
      `${url}: ${code}`,
    )
  }
})

test('an empty snapshot (every file removed) is an empty table with the log schema', async () => {
  const base = '/delta/dat/basic_append/delta'
  const adds = []
  for (const [p, b] of [...srv.entries()].filter(([p]) => p.startsWith(base + '/'))) {
    srv.set(p.replace(base, '/empty'), b)
    if (p.endsWith('.json')) for (const l of new TextDecoder().decode(b).split('\n')) if (l.includes('"add"')) adds.push(JSON.parse(l).add.path)
  }
  const removes = adds.map((path) => JSON.stringify({ remove: { path, deletionTimestamp: 0, dataChange: true } })).join('\n')
  srv.set('/empty/_delta_log/00000000000000000002.json', new TextEncoder().encode(removes + '\n'))
  for (const list of [true, false]) {
    if (list) delete srv.mode.list
    else srv.mode.list = 'error'
    const ds = await openDataset(`${srv.url}/empty/`, { worker: false, wasm: wasmPath })
    assert.equal(ds.metadata.delta.version, 2)
    assert.deepEqual(ds.files, [])
    const full = await openDataset(`${srv.url}/empty/`, { worker: false, wasm: wasmPath, version: 1 })
    assert.deepEqual(ds.schema.fields.map((f) => `${f.name}: ${f.type}`), full.schema.fields.map((f) => `${f.name}: ${f.type}`))
    const t = await ds.scan().toTable()
    assert.equal(t.numRows, 0)
    assert.ok((await full.scan().toTable()).numRows > 0)
  }
  delete srv.mode.list
})

test('local: asOf reads the snapshot committed at or before a time (the commit files\' mtimes)', async () => {
  const src = path.join(deltaDir, 'dat', 'basic_append', 'delta')
  const dir = path.join(tmp, 'asof')
  cpSync(src, dir, { recursive: true })
  const jan = new Date('2024-01-01T00:00:00Z')
  const feb = new Date('2024-02-01T00:00:00Z')
  utimesSync(path.join(dir, '_delta_log', '00000000000000000000.json'), jan, jan)
  utimesSync(path.join(dir, '_delta_log', '00000000000000000001.json'), feb, feb)
  const numbers = async (asOf) => {
    const ds = await openDataset(dir + '/', { worker: false, wasm: wasmPath, asOf })
    const t = await ds.scan({ columns: ['number'] }).toTable()
    return { version: ds.metadata.delta.version, numbers: Array.from(t.getChild('number').toArray(), Number).sort() }
  }
  assert.deepEqual(await numbers(new Date('2024-01-15T00:00:00Z')), { version: 0, numbers: [1, 2, 3] })
  assert.deepEqual(await numbers('2024-02-01T00:00:00Z'), { version: 1, numbers: [1, 2, 3, 4, 5] })
  assert.deepEqual(await numbers(feb.getTime() - 1), { version: 0, numbers: [1, 2, 3] })
  await assert.rejects(numbers('2023-12-31T00:00:00Z'), (e) => e instanceof PqscanError && e.code === 'delta' && /no commit at or before 2023-12-31T00:00:00Z/.test(e.message))
  await assert.rejects(numbers('yesterday'), (e) => e instanceof PqscanError && e.code === 'options')
  await assert.rejects(openDataset(dir + '/', { worker: false, wasm: wasmPath, asOf: jan, version: 0 }), (e) => e instanceof PqscanError && e.code === 'options')
})
