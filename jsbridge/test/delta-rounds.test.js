// The Delta session's rounds in the bridge: a log round that reads a checkpoint and the
// commits after it is one NeedObjects step whose checkpoint ranges (pq_ranges, wasm/ABI.md)
// readSnapshot fetches with the objects, so no NeedData step follows it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { compileModule, Instance, NEED_OBJECTS, NEED_DATA, DONE } from '../src/module.js'
import { readSnapshot, localDeltaIO } from '../src/delta.js'
import { BlobSource } from '../src/blob.js'
import { nodeFileReader } from '../src/node-file.js'
import { corpusDir, wasmPath } from './helpers.js'

test('readSnapshot: a checkpoint read in the same round as the commits after it costs no extra step', async () => {
  const inst = await Instance.create(await compileModule(new Uint8Array(readFileSync(wasmPath))))
  const root = path.join(corpusDir(), 'delta', 'delta-rs', 'simple_table_with_checkpoint')
  const io = await localDeltaIO(root, async (p) => new BlobSource(await nodeFileReader(path.join(root, p))))
  delete io.list // probe, as over a CDN: _last_checkpoint, then the checkpoint and commits 11.. together
  const steps = []
  const next = inst.next.bind(inst)
  inst.next = (h) => {
    const k = next(h)
    steps.push(k)
    return k
  }
  const snap = await readSnapshot(inst, io)
  assert.deepEqual(steps, [NEED_OBJECTS, NEED_OBJECTS, DONE], `steps ${steps} (${NEED_DATA} is NeedData)`)
  assert.equal(snap.version, 10)
  assert.ok(snap.paths.length > 0)
})
