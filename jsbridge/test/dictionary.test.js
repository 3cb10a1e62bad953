// Arrow dictionary output (dictionaryArrays: true) read by apache-arrow: the string column is a
// Dictionary vector and its values equal the plain output's.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { Type } from 'apache-arrow'
import { openParquet, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusFile, wasmPath } from './helpers.js'

const files = new Map([['/dict.parquet', corpusFile('parquet-testing/data/alltypes_tiny_pages.parquet')]])
let srv
before(async () => {
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

test('dictionaryArrays: apache-arrow reads a Dictionary vector with the plain values', async () => {
  const o = { worker: false, wasm: readFileSync(wasmPath) }
  const f = await openParquet(srv.url + '/dict.parquet', o)
  const plain = await f.scan({ columns: ['id', 'string_col'], where: 'id < 3000' }).toTable()
  const dict = await f.scan({ columns: ['id', 'string_col'], where: 'id < 3000', dictionaryArrays: true }).toTable()
  assert.equal(dict.schema.fields[1].type.typeId, Type.Dictionary)
  assert.notEqual(plain.schema.fields[1].type.typeId, Type.Dictionary)
  assert.ok(plain.numRows > 0)
  assert.deepEqual(dict.toArray().map((r) => r.toJSON()), plain.toArray().map((r) => r.toJSON()))
})
