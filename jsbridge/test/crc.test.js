// Page CRCs through the bridge: the noVerifyCrc option reaches the module and the report's
// pagesCrcUnverified comes back. A file shaped as Parquet.jl writes them (crc 0 on every page,
// internal/scan/testdata/quirks) reads with its pages counted as unverified; the corpus's file
// with wrong CRCs fails unless noVerifyCrc.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { openParquet, terminateDefaultEngines, PqscanError } from '../src/index.js'
import { corpusDir, repoRoot, wasmPath } from './helpers.js'

const zeroPath = path.join(repoRoot, 'internal/scan/testdata/quirks/crc_zero_parquetjl.parquet')
const corruptPath = path.join(corpusDir(), 'parquet-testing/data/datapage_v1-corrupt-checksum.parquet')

after(() => terminateDefaultEngines())

for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'
  const o = { worker, wasm: wasmPath }

  test(`${mode}: a CRC of 0 is not checked and is counted`, async () => {
    const f = await openParquet(zeroPath, o)
    for (const noVerifyCrc of [false, true]) {
      const s = f.scan({ noVerifyCrc })
      const t = await s.toTable()
      assert.deepEqual([...t.getChild('int32').toArray()], [10, 20, 10, 30, 40])
      assert.deepEqual([...t.getChild('s')], ['a', null, 'c', null, 'e'])
      assert.equal(s.report.pagesCrcUnverified, 4, `noVerifyCrc ${noVerifyCrc}`)
    }
    f.close()
  })

  test(`${mode}: a wrong CRC fails unless noVerifyCrc`, async () => {
    const f = await openParquet(corruptPath, o)
    const e = await f.scan().toTable().catch((e) => e)
    assert.ok(e instanceof PqscanError, String(e?.stack ?? e))
    assert.equal(e.code, 'corrupt') // pqscan.ErrCorrupt, as the Go engines classify it
    assert.match(e.message, /page checksum mismatch: column a/)
    const s = f.scan({ noVerifyCrc: true })
    assert.equal((await s.toTable()).numRows, 5120)
    assert.equal(s.report.pagesCrcUnverified, 4)
    f.close()
  })
}
