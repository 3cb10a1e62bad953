// ALP-encoded FLOAT and DOUBLE columns (parquet-format AlpEncoding.md) read by the engine
// (the full module, and the lean one, which hands the file to the full one at its footer)
// against hyparquet, which decodes ALP on its own: the same bits in every row, -0 and
// subnormals included. A NaN is compared as NaN: JS arrays of numbers do not keep NaN
// payloads (internal/scan's Test_alpColumns checks those bit for bit). The file is
// internal/scan/testdata/quirks/alp_columns.parquet, built in internal/scan/quirks_files_test.go.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { parquetReadObjects } from 'hyparquet'
import { createEngine } from '../src/index.js'
import { repoRoot, wasmPath, leanWasmPath } from './helpers.js'

const file = readFileSync(path.join(repoRoot, 'internal/scan/testdata/quirks/alp_columns.parquet'))
const buf = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength)

function bits(v, float) {
  if (v === null || v === undefined) return 'null'
  if (Number.isNaN(v)) return 'NaN'
  const dv = new DataView(new ArrayBuffer(8))
  if (float) {
    dv.setFloat32(0, v, true)
    return dv.getUint32(0, true).toString(16)
  }
  dv.setFloat64(0, v, true)
  return dv.getBigUint64(0, true).toString(16)
}

test('ALP columns: the engine reads what hyparquet reads, bit for bit', async () => {
  const rows = await parquetReadObjects({ file: buf })
  assert.equal(rows.length, 4500)
  const want = { d: rows.map((r) => bits(r.d, false)), f: rows.map((r) => bits(r.f, true)) }
  assert.equal(want.d.filter((b) => b === 'NaN').length, 3)
  assert.ok(want.d.includes('8000000000000000'), '-0')
  for (const [wasm, wasmFull] of [[wasmPath], [leanWasmPath, wasmPath]]) {
    const engine = createEngine({ worker: false, wasm, wasmFull })
    const f = await engine.openParquet(new Blob([file]))
    const t = await f.scan({ batchRows: 1000 }).toTable()
    for (const [name, float] of [['d', false], ['f', true]]) {
      const col = t.getChild(name)
      const got = []
      for (let i = 0; i < col.length; i++) got.push(bits(col.get(i), float))
      assert.deepEqual(got, want[name], `${path.basename(wasm)} column ${name}`)
    }
    f.close()
    if (wasmFull) assert.equal((await engine.impl.debugStats()).fullInstances, 1, 'the full module was loaded')
    engine.terminate()
  }
})
