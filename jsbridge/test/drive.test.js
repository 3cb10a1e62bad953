// The one driver loop (src/drive.js) and what Core does with it: the stall guard, and the
// metadata step (kind 5, pq_metadata, the fileKey option) of modules that have it, simulated
// here on top of the module of today (test/metadata-instance.js) until the real one lands.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { drive } from '../src/drive.js'
import { Core, HTTP_MAX_GAP } from '../src/core.js'
import { Instance, compileModule, NEED_RANGES, BATCH, DONE, ERROR } from '../src/module.js'
import { MetadataInstance } from './metadata-instance.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

// An engine that keeps asking for the same ranges: pq_next is NEED_RANGES forever (a batch
// once, when batchAt says so). After `limit` calls it gives up with an error step, so that a
// loop without the guard fails with code "scan" instead of hanging the test.
function loopingInstance({ batchAt = -1, limit = 200 } = {}) {
  return {
    calls: 0,
    pushes: 0,
    dead: false,
    memoryBytes: 0,
    hasMetadata: false,
    open: () => 1,
    next() {
      this.calls++
      if (this.calls > limit) return ERROR
      if (this.calls === batchAt) return BATCH
      return NEED_RANGES
    },
    ranges: () => [{ off: 0, len: 4 }, { off: 8, len: 2 }],
    push() {
      this.pushes++
    },
    ipc: () => new Uint8Array([1]),
    schema: () => null,
    report: () => ({ rowsReturned: 0 }),
    error: () => 'the fake engine gave up after looping',
    setSize() {},
    close() {},
  }
}

const fakeSource = () => ({
  size: 16,
  fetches: 0,
  async fetchRanges(ranges, signal, deliver) {
    this.fetches++
    for (const r of ranges) deliver(r.off, new Uint8Array(r.len))
  },
})

async function run(gen) {
  const steps = []
  for await (const st of gen) steps.push(st.type)
  return steps
}

test('stall guard: the same ranges again without a batch fail with "stalled"', async () => {
  const inst = loopingInstance()
  const src = fakeSource()
  await assert.rejects(run(drive(inst, 1, src, { label: 'fake.parquet' })), (e) => e.code === 'stalled' && /fake\.parquet/.test(e.message) && /0\+4 8\+2/.test(e.message))
  assert.equal(inst.calls, 2, 'stopped at the second ask')
  assert.equal(src.fetches, 1, 'fetched once')
})

test('stall guard: the same ranges after a batch are progress, not a stall', async () => {
  const inst = loopingInstance({ batchAt: 2 })
  const steps = await run(drive(inst, 1, fakeSource())).catch((e) => e)
  assert.equal(steps.code, 'stalled')
  assert.equal(inst.calls, 4, 'NEED_RANGES, BATCH, NEED_RANGES (same ranges: fine), NEED_RANGES (stall)')
})

test('stall guard: every host path (Core.openFile and Core.scan) runs the guarded loop', async () => {
  const core = new Core({ createInstance: async () => loopingInstance() })
  const bytes = new Blob([new Uint8Array(16)])
  await assert.rejects(core.openFile(bytes), (e) => e.code === 'stalled')
  // A scan of an opened file: open with a fake whose footer "reads" at once, then loop.
  const inst = loopingInstance()
  inst.schema = () => new Uint8Array([1])
  const core2 = new Core({ createInstance: async () => inst })
  const f = await core2.openFile(bytes)
  inst.schema = () => null
  inst.calls = 0
  await assert.rejects(run(core2.scan(f.id, {})), (e) => e.code === 'stalled')
})

test('drive yields ranges, pushed, batch and done in the engine order', async () => {
  const seq = [NEED_RANGES, BATCH, NEED_RANGES, BATCH, DONE]
  let i = 0
  let n = 0
  const inst = { ...loopingInstance(), next: () => seq[i++], ranges: () => [{ off: n++, len: 1 }] }
  assert.deepEqual(await run(drive(inst, 1, fakeSource())), ['ranges', 'pushed', 'batch', 'ranges', 'pushed', 'batch', 'done'])
})

// The metadata step, on top of the real engine.
const tiny = corpusFile('parquet-testing/data/alltypes_tiny_pages_plain.parquet')
let srv, module
before(async () => {
  srv = await startServer(new Map([['/tiny.parquet', tiny]]))
  module = await compileModule(readFileSync(wasmPath))
})
after(() => srv.close())

function cores() {
  const made = []
  const meta = new Core({ createInstance: async () => made[made.push(await MetadataInstance.create(module)) - 1] })
  // A module without pq_metadata (the ABI before the metadata step): the real one with the
  // export hidden, so the bridge takes its fallback path (schema polling, tail re-push).
  const legacy = new Core({
    createInstance: async () => {
      const i = await Instance.create(module)
      Object.defineProperty(i, 'hasMetadata', { value: false })
      return i
    },
  })
  return { meta, legacy, made }
}

async function rows(core, id, q) {
  const out = []
  let done = null
  for await (const m of core.scan(id, q)) if (m.type === 'batch') out.push(m.ipc.length); else done = m
  return { batches: out, report: done.report, http: done.http }
}

test('metadata step: open stops at it, exposes createdBy and keyValue, and polls no schema', async () => {
  const { meta, legacy, made } = cores()
  srv.reset()
  const f = await meta.openFile(srv.url + '/tiny.parquet', {})
  const inst = made[0]
  const open = inst.log.find((l) => l.op === 'open').o
  assert.equal(open.metadata, true)
  assert.equal(open.fileKey, `${srv.url}/tiny.parquet\n"v1-${tiny.length}"\n${tiny.length}`, 'url, ETag, size')
  assert.equal(open.fileSize, tiny.length, 'the size came from the probe, before pq_open')
  assert.deepEqual(srv.log.map((l) => l.range), ['bytes=-65536'], 'the same one suffix request as before')
  assert.equal(inst.schemaCalls, 1, 'pq_schema once, at the metadata step')
  const g = await legacy.openFile(srv.url + '/tiny.parquet', {})
  for (const k of ['url', 'fileSize', 'numRows', 'numRowGroups', 'etag']) assert.equal(f.metadata[k], g.metadata[k], k)
  assert.deepEqual(f.schemaIPC, g.schemaIPC)
  assert.equal(f.metadata.createdBy, 'simulated')
  assert.deepEqual(f.metadata.keyValue, [{ key: 'origin', value: 'metadata-instance.js' }])
  assert.equal(g.metadata.createdBy, undefined, 'not available from a module without pq_metadata')
})

test('metadata step over the real module: createdBy, key/value metadata and the schema from pq_metadata', async () => {
  const core = new Core({ createInstance: async () => Instance.create(module) })
  const f = await core.openFile(srv.url + '/tiny.parquet', {})
  assert.match(f.metadata.createdBy, /^parquet-mr version/)
  assert.ok(f.metadata.numRows > 0 && f.metadata.numRowGroups > 0)
  const old = await cores().legacy.openFile(srv.url + '/tiny.parquet', {})
  assert.deepEqual(f.schemaIPC, old.schemaIPC, 'the same schema as the polling path')
  assert.equal(f.metadata.numRows, old.metadata.numRows)
  const a = await rows(core, f.id, { columns: ['id'], where: 'id < 10' })
  assert.ok(a.report.rowsReturned > 0)
})

test('metadata step: scans pass the fileKey and the engine asks for no tail byte again', async () => {
  const { meta, legacy, made } = cores()
  const q = { columns: ['id', 'string_col'], where: 'id >= 1000 AND id < 1100' }
  const f = await meta.openFile(srv.url + '/tiny.parquet', { fileSize: tiny.length })
  const g = await legacy.openFile(srv.url + '/tiny.parquet', { fileSize: tiny.length })
  const inst = made[0]
  const key = inst.log.find((l) => l.op === 'open').o.fileKey
  // The engine's first open: its tail was fetched while the instance started (core.js
  // prefetchTail), so the validator is known before pq_open and the key names the version.
  assert.equal(key, `${srv.url}/tiny.parquet\n"v1-${tiny.length}"\n${tiny.length}`, 'first open: url, ETag, size')
  // A started engine: a known size has no validator before pq_open; the key names the source.
  await meta.openFile(srv.url + '/tiny.parquet', { fileSize: tiny.length })
  assert.match(inst.log.filter((l) => l.op === 'open')[1].o.fileKey, /\n#\d+\n/, 'a known size: no validator before pq_open, the key names the source')
  const a = await rows(meta, f.id, q)
  const b = await rows(legacy, g.id, q)
  assert.deepEqual(a.batches, b.batches)
  assert.equal(a.report.rowsReturned, b.report.rowsReturned)
  const scanOpen = inst.log.filter((l) => l.op === 'open')[2].o
  assert.equal(scanOpen.fileKey, key)
  assert.equal(scanOpen.metadata, undefined)
  const tailStart = tiny.length - Math.min(65536, tiny.length)
  const scanPushes = inst.log.filter((l) => l.op === 'push' && l.h === inst.lastHandle)
  assert.ok(scanPushes.length > 0)
  assert.deepEqual(scanPushes.filter((p) => p.off + p.len > tailStart), [], 'no tail byte pushed by the host in the scan')
})

test('metadata step: a Blob is keyed by the Blob object and its size', async () => {
  const { meta, made } = cores()
  const blob = new Blob([tiny])
  await meta.openFile(blob)
  await meta.openFile(blob)
  await meta.openFile(new Blob([tiny]))
  const keys = made[0].log.filter((l) => l.op === 'open').map((l) => l.o.fileKey)
  assert.equal(keys[0], keys[1])
  assert.notEqual(keys[0], keys[2])
  assert.match(keys[0], new RegExp(`^blob:\\d+\\n${tiny.length}$`))
  assert.equal(made[0].cachedOpens, 1, 'the second open of the same Blob found the footer kept')
})

test('an empty Blob ends with an error instead of looping (the engine asks for the suffix again)', async () => {
  // fileSize 0 is "unknown" on the wire, so the engine keeps asking for the suffix of a file
  // that has none; before the guard, openFile never returned.
  const core = new Core({ createInstance: async () => Instance.create(module) })
  const e = await core.openFile(new Blob([])).catch((e) => e)
  assert.ok(e.code === 'stalled' || e.code === 'scan', String(e))
})

test('scans over HTTP merge ranges up to 16 KiB apart unless maxGap is given; other sources keep the engine default', async () => {
  const { meta, made } = cores()
  const q = { columns: ['id', 'string_col'], where: 'id >= 1000 AND id < 1100' }
  const f = await meta.openFile(srv.url + '/tiny.parquet', { fileSize: tiny.length })
  const a = await rows(meta, f.id, q)
  const b = await rows(meta, f.id, { ...q, maxGap: 8 << 10 })
  const blob = await meta.openFile(new Blob([tiny]))
  const c = await rows(meta, blob.id, q)
  const scans = made[0].log.filter((l) => l.op === 'open' && l.o.metadata === undefined).map((l) => l.o.maxGap)
  assert.deepEqual(scans, [HTTP_MAX_GAP, 8 << 10, undefined])
  assert.equal(HTTP_MAX_GAP, 16 << 10)
  assert.deepEqual(a.batches, b.batches, 'the same answer either way')
  assert.deepEqual(a.batches, c.batches)
})
