// Datasets: openDataset reads several Parquet files as one table (a table session of the module,
// pq_open_table, NeedData steps) through the one driver loop, against copies of one corpus file
// in Hive key=value directories served by test/server.js (its log shows which file got which
// request). The partition column tells the copies apart.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { openDataset, openParquet, terminateDefaultEngines } from '../src/index.js'
import { drive } from '../src/drive.js'
import { NEED_DATA, BATCH, DONE, ERROR } from '../src/module.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

const tiny = corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')
const paths = ['/ds/part=1/a.parquet', '/ds/part=2/b.parquet', '/ds/part=3/c.parquet']
let srv
before(async () => {
  srv = await startServer(new Map(paths.map((p) => [p, tiny])))
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

const urls = () => paths.map((p) => srv.url + p)
const rowsOf = (t) => t.toArray().map((r) => r.toJSON())
const requested = () => srv.log.map((l) => l.path)
const json = (rows) => JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))

for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'
  const o = { worker, wasm: wasmPath }

  test(`${mode}: rows are the files' rows in order, plus the partition column`, async () => {
    srv.reset()
    const ds = await openDataset(urls(), o)
    assert.deepEqual(ds.files, urls())
    const names = ds.schema.fields.map((f) => f.name)
    assert.equal(names.at(-1), 'part', 'the partition column comes after the file columns')
    assert.equal(String(ds.schema.fields.at(-1).type), 'Int64', 'inferred from the values')
    assert.deepEqual(requested(), [paths[0]], 'open reads the first footer only')
    const single = await openParquet(urls()[0], o)
    assert.deepEqual(names.slice(0, -1), single.schema.fields.map((f) => f.name))
    const q = { columns: ['id', 'string_col', 'bigint_col'], where: 'id >= 100 AND id < 130' }
    const one = rowsOf(await single.scan(q).toTable())
    assert.equal(one.length, 30)
    srv.reset()
    const s = ds.scan({ ...q, columns: [...q.columns, 'part'] })
    const got = rowsOf(await s.toTable())
    const want = [1n, 2n, 3n].flatMap((part) => one.map((r) => ({ ...r, part })))
    assert.equal(json(got), json(want))
    const r = s.report
    assert.equal(r.filesTotal, 3)
    assert.equal(r.filesAfterPartitions, 3)
    assert.equal(r.filesRead, 3)
    assert.deepEqual(r.files.map((f) => f.rowsReturned), [30, 30, 30])
    assert.deepEqual(r.files.map((f) => f.path), urls())
    assert.equal(r.rowsReturned, 90)
    assert.ok(s.http.requests > 0 && s.http.roundTrips > 0 && s.http.roundTrips <= s.http.requests)
    // Every request after the first of a file (the first file's was at open) carries that
    // file's ETag.
    const firsts = new Set([paths[0]])
    for (const l of srv.log) {
      if (firsts.has(l.path)) assert.equal(l.ifMatch, `"v1-${tiny.length}"`, `${l.path} ${l.range}`)
      firsts.add(l.path)
    }
    // The columns of the table only: without 'part' the rows are the file rows.
    const noPart = rowsOf(await ds.scan(q).toTable())
    assert.equal(json(noPart), json([...one, ...one, ...one]))
    ds.close()
    assert.throws(() => ds.scan(), (e) => e.code === 'closed')
  })

  test(`${mode}: a WHERE on the partition column sends no request to the skipped files`, async () => {
    srv.reset()
    const ds = await openDataset(urls(), o)
    srv.reset()
    const s = ds.scan({ columns: ['id', 'part'], where: 'part = 2 AND id < 3' })
    const got = rowsOf(await s.toTable())
    assert.deepEqual(got.map((r) => r.part), [2n, 2n, 2n])
    assert.ok(srv.log.length > 0)
    assert.deepEqual([...new Set(requested())], [paths[1]], 'only part=2 was read')
    assert.deepEqual(s.report.files.map((f) => f.skippedBy ?? ''), ['partition', '', 'partition'])
    assert.equal(s.report.filesAfterPartitions, 1)
    // part = 1: the first file (read at open) only; the others get no request at all.
    srv.reset()
    const ds2 = await openDataset(urls(), o)
    const t = await ds2.scan({ columns: ['id'], where: 'part = 1 AND id = 5' }).toTable()
    assert.equal(t.numRows, 1)
    assert.deepEqual([...new Set(requested())], [paths[0]])
  })

  test(`${mode}: a limit stops before a later file's footer`, async () => {
    srv.reset()
    const ds = await openDataset(urls(), o)
    const s = ds.scan({ columns: ['id', 'part'], limit: 5 })
    const got = rowsOf(await s.toTable())
    assert.equal(got.length, 5)
    assert.ok(got.every((r) => r.part === 1n))
    assert.deepEqual([...new Set(requested())], [paths[0]], 'no byte of part=2 or part=3')
    assert.equal(s.report.filesRead, 1)
    // An offset into the second file: the third is never asked for.
    srv.reset()
    const n = (await openParquet(urls()[0], o)).metadata.numRows
    srv.reset()
    const s2 = ds.scan({ columns: ['id', 'part'], offset: n - 2, limit: 4 })
    const got2 = rowsOf(await s2.toTable())
    assert.deepEqual(got2.map((r) => r.part), [1n, 1n, 2n, 2n])
    assert.ok(!requested().includes(paths[2]), `no request for part=3: ${requested()}`)
  })

  test(`${mode}: an unreachable file fails with an error naming it`, async () => {
    const missing = srv.url + '/ds/part=9/missing.parquet'
    const ds = await openDataset([urls()[0], missing], o)
    const e = await ds.scan({ columns: ['id'] }).toTable().catch((e) => e)
    assert.equal(e.code, 'http', String(e))
    assert.equal(e.status, 404)
    assert.equal(e.file, missing)
    assert.ok(e.message.includes(missing), e.message)
    const e2 = await openDataset([missing, urls()[0]], o).catch((e) => e)
    assert.equal(e2.code, 'http')
    assert.equal(e2.file, missing)
    assert.ok(e2.message.includes(missing), e2.message)
  })

  test(`${mode}: a second scan reads no footer again and pins every file's version`, async () => {
    const ds = await openDataset(urls(), o)
    await ds.scan({ columns: ['id'], where: 'id = 1' }).done()
    srv.reset()
    const s = ds.scan({ columns: ['id'], where: 'id = 2' })
    const t = await s.toTable()
    assert.equal(t.numRows, 3)
    assert.ok(srv.log.every((l) => !l.range.startsWith('bytes=-')), 'no suffix request: sizes are known')
    assert.ok(srv.log.every((l) => l.ifMatch === `"v1-${tiny.length}"`), 'If-Match on every request')
  })
}

test('known sizes ({url, size}): plain ranges, no probe; explain and onProgress work over a dataset', async () => {
  srv.reset()
  const o = { worker: false, wasm: wasmPath }
  const ds = await openDataset(urls().map((url) => ({ url, size: tiny.length })), o)
  assert.ok(srv.log.every((l) => /^bytes=\d+-\d+$/.test(l.range)), srv.log.map((l) => l.range).join(' '))
  const plan = await ds.explain({ where: 'id = 3' })
  assert.equal(plan.filesTotal, 3)
  assert.equal(plan.rowsReturned, 0)
  assert.equal(plan.filesRead, 3)
  assert.ok(plan.files.every((f) => f.rowsReturned === 0))
  const seen = []
  const s = ds.scan({ columns: ['id'], where: 'id = 3', onProgress: (p) => seen.push(p) })
  await s.done()
  assert.equal(s.report.rowsReturned, 3)
  const last = seen.at(-1)
  assert.equal(last.phase, 'done')
  assert.equal(last.rowsReturned, 3)
  assert.equal(last.filesRead, 3)
  assert.equal(last.fileSize, 3 * tiny.length)
  assert.ok(last.bytesFetched > 0 && last.requests > 0)
})

test('the sources of a dataset share the concurrency limit', async () => {
  srv.reset()
  const ds = await openDataset(urls(), { worker: false, wasm: wasmPath, concurrency: 1 })
  srv.reset()
  await ds.scan({ where: 'id < 3000' }).done()
  assert.ok(new Set(requested()).size === 3)
  assert.equal(srv.stats.maxInflight, 1, 'one request at a time over all files')
  const ds2 = await openDataset(urls(), { worker: false, wasm: wasmPath, concurrency: 2 })
  srv.reset()
  await ds2.scan({ where: 'id < 3000' }).done()
  assert.ok(srv.stats.maxInflight <= 2, `at most 2 in flight: ${srv.stats.maxInflight}`)
})

test('Blobs with paths: partitions from {blob, path}, the same rows as URLs', async () => {
  const o = { worker: false, wasm: wasmPath }
  const q = { columns: ['id', 'part'], where: 'id < 4 AND part >= 2' }
  const byURL = rowsOf(await (await openDataset(urls(), o)).scan(q).toTable())
  const blobs = paths.map((p) => ({ blob: new Blob([tiny]), path: p.slice(1) }))
  const byBlob = rowsOf(await (await openDataset(blobs, o)).scan(q).toTable())
  assert.equal(byURL.length, 8)
  assert.equal(json(byBlob), json(byURL))
})

test('options: hive off, an inconsistent layout and an empty list are errors of code options', async () => {
  const o = { worker: false, wasm: wasmPath }
  const ds = await openDataset(urls(), { ...o, noHive: true })
  assert.ok(!ds.schema.fields.some((f) => f.name === 'part'))
  const bad = await openDataset([urls()[0], srv.url + '/ds/other.parquet'], o).catch((e) => e)
  assert.equal(bad.code, 'options', String(bad))
  await assert.rejects(openDataset([], o), (e) => e.code === 'options')
  // root: the part of the URLs before the partition directories (here it hides "ds=…").
  srv.set('/r/ds=x/part=1/a.parquet', tiny)
  srv.set('/r/ds=x/part=2/b.parquet', tiny)
  const rooted = await openDataset([srv.url + '/r/ds=x/part=1/a.parquet', srv.url + '/r/ds=x/part=2/b.parquet'], { ...o, root: srv.url + '/r/ds=x/' })
  assert.deepEqual(rooted.schema.fields.slice(-1).map((f) => f.name), ['part'])
})

test('an abort signal cancels a dataset scan', async () => {
  const ds = await openDataset(urls(), { worker: false, wasm: wasmPath })
  srv.hold()
  const ctrl = new AbortController()
  const p = ds.scan({ columns: ['id'], signal: ctrl.signal }).toTable()
  await srv.whenHeld(1)
  ctrl.abort()
  const e = await p.catch((e) => e)
  srv.release()
  assert.equal(e.name, 'AbortError')
})

// The loop itself, with a fake table engine.
function tableEngine(seq, triples) {
  let i = 0
  return {
    log: [],
    next() {
      return seq[i++] ?? ERROR
    },
    dataRanges: () => triples,
    pushFile(h, file, off, b) {
      this.log.push(`push ${file}@${off}+${b.length}`)
    },
    setFileSize(h, file, n) {
      this.log.push(`size ${file}=${n}`)
    },
    ipc: () => new Uint8Array([1]),
    error: () => 'the fake engine gave up',
  }
}

const fakeFile = (url, size, known = true) => ({
  url,
  size: known ? size : -1,
  fetches: 0,
  async fetchRanges(ranges, signal, deliver) {
    this.fetches++
    this.size = size
    for (const r of ranges) {
      const off = r.off < 0 ? size + r.off : r.off
      deliver(off, new Uint8Array(r.off < 0 ? -r.off : r.len))
    }
  },
})

async function steps(gen) {
  const out = []
  for await (const st of gen) out.push(st.type)
  return out
}

test('stall guard: the same NeedData triples again without a batch fail with "stalled"', async () => {
  const triples = [{ file: 0, off: 0, len: 4 }, { file: 1, off: 8, len: 2 }]
  const inst = tableEngine([NEED_DATA, NEED_DATA, NEED_DATA], triples)
  const srcs = [fakeFile('a', 16), fakeFile('b', 16)]
  const e = await steps(drive(inst, 1, srcs, { label: 'fake table' })).catch((e) => e)
  assert.equal(e.code, 'stalled', String(e))
  assert.match(e.message, /0:0\+4 1:8\+2/)
  assert.match(e.message, /fake table/)
  assert.deepEqual(srcs.map((s) => s.fetches), [1, 1], 'each file fetched once')
  // With a batch in between the same triples are progress.
  const inst2 = tableEngine([NEED_DATA, BATCH, NEED_DATA, DONE], triples)
  assert.deepEqual(await steps(drive(inst2, 1, [fakeFile('a', 16), fakeFile('b', 16)])), ['ranges', 'pushed', 'batch', 'ranges', 'pushed', 'done'])
})

test('drive: a suffix of a file without a size calls pq_set_file_size before its first push', async () => {
  const inst = tableEngine([NEED_DATA, DONE], [{ file: 0, off: 10, len: 2 }, { file: 1, off: -4, len: 4 }])
  await steps(drive(inst, 1, [fakeFile('a', 16), fakeFile('b', 20, false)]))
  assert.deepEqual(inst.log, ['push 0@10+2', 'size 1=20', 'push 1@16+4'])
  const bad = tableEngine([NEED_DATA], [{ file: 2, off: 0, len: 1 }])
  await assert.rejects(steps(drive(bad, 1, [fakeFile('a', 16)])), (e) => e.code === 'abi')
  const single = tableEngine([NEED_DATA], [])
  await assert.rejects(steps(drive(single, 1, fakeFile('a', 16))), (e) => e.code === 'abi', 'NeedData for a single-file session')
})

test('drive: the first failing file aborts the others and is named', async () => {
  const inst = tableEngine([NEED_DATA], [{ file: 0, off: 0, len: 1 }, { file: 1, off: 0, len: 1 }])
  let aborted = false
  const slow = {
    url: 'https://x/slow.parquet',
    size: 16,
    fetchRanges: (r, signal) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => ((aborted = true), reject(signal.reason)))),
  }
  const { PqscanError } = await import('../src/errors.js')
  const failing = { url: 'https://x/bad.parquet', size: 16, fetchRanges: async () => { throw new PqscanError('short-body', 'pqscan: short body') } }
  const e = await steps(drive(inst, 1, [slow, failing])).catch((e) => e)
  assert.equal(e.code, 'short-body')
  assert.equal(e.file, 'https://x/bad.parquet')
  assert.match(e.message, /bad\.parquet/)
  assert.ok(aborted, 'the other file was aborted')
})
