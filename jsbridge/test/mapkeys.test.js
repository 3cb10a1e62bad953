// Maps whose keys are structs or lists (Spark writes struct keys; the corpus has none) through
// the bridge: DuckDB (npm @duckdb/node-api, installed in ../duckdb by `make duckdb-deps`)
// writes the file, pqscan reads it in a worker_threads Worker and in the calling thread, and
// apache-arrow reads the IPC as Map columns with Struct and List keys whose entries equal
// DuckDB's map_entries.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { DataType } from 'apache-arrow'
import { openParquet, terminateDefaultEngines } from '../src/index.js'
import { repoRoot, wasmPath } from './helpers.js'

const { DuckDBInstance } = createRequire(path.join(repoRoot, 'duckdb', 'package.json'))('@duckdb/node-api')
let tmp, file, want
before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-mapkeys-'))
  const out = path.join(tmp, 'maps.parquet')
  const conn = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect()
  // Null maps, empty maps, null struct fields, null list elements and null values.
  await conn.run(`COPY (SELECT i::INTEGER AS id,
      CASE WHEN i % 4 = 1 THEN NULL WHEN i % 4 = 2 THEN MAP {}::MAP(STRUCT(a INTEGER, b VARCHAR), VARCHAR)
        ELSE MAP {{'a': i * 10, 'b': 'p' || i}: 'v' || i, {'a': i * 10 + 1, 'b': NULL}: NULL} END AS m,
      CASE WHEN i % 4 = 1 THEN NULL ELSE MAP {[i::INTEGER, NULL]: i * 2, [i::INTEGER]: NULL} END AS l
    FROM range(7) t(i)) TO '${out}' (FORMAT parquet)`)
  file = new Uint8Array(readFileSync(out))
  const rows = (await conn.runAndReadAll(`SELECT to_json(map_entries(m)), to_json(map_entries(l))
    FROM read_parquet('${out}') ORDER BY id`)).getRowsJson()
  want = rows.map((r) => r.map((v) => (v === null ? null : JSON.parse(v))))
})
after(() => {
  terminateDefaultEngines()
  rmSync(tmp, { recursive: true, force: true })
})

// plain turns an apache-arrow value of type t into a JSON value: structs into objects, lists
// into arrays, maps into DuckDB's map_entries form, [{key, value}, ...].
function plain(t, v) {
  if (v === null || v === undefined) return null
  if (DataType.isMap(t)) {
    const [k, x] = t.children[0].type.children.map((c) => c.type)
    return [...v].map(([key, value]) => ({ key: plain(k, key), value: plain(x, value) }))
  }
  if (DataType.isStruct(t)) return Object.fromEntries(t.children.map((c) => [c.name, plain(c.type, v[c.name])]))
  if (DataType.isList(t)) return [...v].map((x) => plain(t.children[0].type, x))
  return typeof v === 'bigint' ? Number(v) : v
}

for (const worker of [true, false]) {
  const mode = worker ? 'worker' : 'in-thread'
  test(`${mode}: struct- and list-keyed maps read as Maps with DuckDB's entries`, async () => {
    const f = await openParquet(file, { worker, wasm: wasmPath })
    const t = await f.scan({}).toTable()
    const [m, l] = [t.schema.fields[1].type, t.schema.fields[2].type]
    assert.ok(DataType.isMap(m) && DataType.isStruct(m.keyType), String(m))
    assert.deepEqual(m.keyType.children.map((c) => c.name), ['a', 'b'])
    assert.ok(DataType.isMap(l) && DataType.isList(l.keyType), String(l))
    const got = []
    for (let i = 0; i < t.numRows; i++) {
      got.push([plain(m, t.getChild('m').get(i)), plain(l, t.getChild('l').get(i))])
    }
    assert.deepEqual(got, want)
  })
}
