// Files hyparquet-writer writes (another writer, with its own statistics truncation, column
// and offset indexes, bloom filters, encodings and row group sizes), read by the engine (full
// module, in-thread) and by hyparquet: every value agrees, and predicates counted by the engine
// (its pruning on those statistics, indexes and filters) equal the rows a filter over the
// written data keeps.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { parquetReadObjects } from 'hyparquet'
import { createEngine } from '../src/index.js'
import { wasmPath } from './helpers.js'

const N = 1500

// Deterministic data: nulls, NaN and infinities, -0, non-ASCII and long strings (past the
// writer's 16-byte statistics truncation), repeated values for dictionaries.
function data() {
  const id = [], i64 = [], f = [], d = [], b = [], s = [], bin = [], ts = []
  for (let i = 0; i < N; i++) {
    id.push(i)
    i64.push(i % 11 === 0 ? null : BigInt(i) * 1000000007n * (i % 2 ? -1n : 1n))
    f.push(i % 13 === 0 ? null : Math.fround(((i * 7919) % 2001 - 1000) / 8))
    d.push([NaN, Infinity, -Infinity, -0][i % 97] ?? (i % 17 === 0 ? null : ((i * 104729) % 100003) / 7 - 5000))
    b.push(i % 5 === 0 ? null : i % 3 === 0)
    s.push(i % 9 === 0 ? null : ['', 'ünïcödé ✓', 'prefix-shared-by-many-' + (i % 50), 'z'.repeat(40) + i][i % 4])
    bin.push(i % 7 === 0 ? null : Uint8Array.from([i & 255, (i >> 8) & 255, 255 - (i & 255)]))
    ts.push(i % 19 === 0 ? null : new Date(Date.UTC(2026, 0, 1) + i * 3600_000 * 7))
  }
  return { id, i64, f, d, b, s, bin, ts }
}

const variants = [
  ['defaults', {}, {}],
  ['uncompressed, small pages and row groups, column indexes and bloom filters', { codec: 'UNCOMPRESSED', pageSize: 512, rowGroupSize: [100, 300] },
    { columnIndex: true, bloomFilter: true }],
  ['no statistics', { statistics: false, rowGroupSize: 400 }, {}],
  ['delta and byte-stream-split encodings', { pageSize: 2048, rowGroupSize: 700 }, { columnIndex: true },
    { id: 'DELTA_BINARY_PACKED', i64: 'DELTA_BINARY_PACKED', f: 'BYTE_STREAM_SPLIT', d: 'BYTE_STREAM_SPLIT', s: 'DELTA_LENGTH_BYTE_ARRAY' }],
]

function canon(v) {
  if (v === null || v === undefined) return null
  if (typeof v === 'bigint') return 'n:' + v
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : String(v)
  if (v instanceof Date) return 't:' + v.getTime()
  if (v instanceof Uint8Array) return 'b:' + Buffer.from(v).toString('hex')
  return typeof v === 'string' ? 's:' + v : JSON.stringify(v)
}

// The engine's values in the same form: timestamps come back as epoch milliseconds.
function canonEngine(name, v) {
  if (name === 'ts' && v !== null) return 't:' + Number(v)
  return canon(v)
}

const predicates = [
  ['id BETWEEN 100 AND 199', (r) => r.id >= 100 && r.id <= 199],
  ['i64 > 0', (r) => r.i64 !== null && r.i64 > 0n],
  ['f < -100', (r) => r.f !== null && r.f < -100],
  ['d >= 1000', (r) => r.d !== null && r.d >= 1000 && !Number.isNaN(r.d)],
  ["s = 'prefix-shared-by-many-7'", (r) => r.s === 'prefix-shared-by-many-7'],
  ["s > 'zzzzzzzzzzzzzzzzzzzz'", (r) => r.s !== null && r.s > 'zzzzzzzzzzzzzzzzzzzz'],
  ["s LIKE 'prefix%'", (r) => r.s !== null && r.s.startsWith('prefix')],
  ['b IS NULL', (r) => r.b === null],
  ['b', (r) => r.b === true],
  ["ts >= TIMESTAMP '2026-06-01 00:00:00'", (r) => r.ts !== null && r.ts.getTime() >= Date.UTC(2026, 5, 1)],
  ['s IS NOT NULL AND id < 40', (r) => r.s !== null && r.id < 40],
]

test('hyparquet-writer files: values and predicate counts agree', async () => {
  const cols = data()
  const types = { id: 'INT32', i64: 'INT64', f: 'FLOAT', d: 'DOUBLE', b: 'BOOLEAN', s: 'STRING', bin: 'BYTE_ARRAY', ts: 'TIMESTAMP' }
  const engine = createEngine({ worker: false, wasm: wasmPath })
  try {
    for (const [label, opts, colOpts, encodings = {}] of variants) {
      const buf = parquetWriteBuffer({
        ...opts,
        columnData: Object.entries(cols).map(([name, values]) => ({
          name, data: values, type: types[name], ...colOpts, ...(encodings[name] ? { encoding: encodings[name] } : {}),
        })),
      })
      const want = await parquetReadObjects({ file: buf, utf8: false })
      assert.equal(want.length, N, label)
      const f = await engine.openParquet(new Blob([buf]))
      const t = await f.scan().toTable()
      assert.equal(t.numRows, N, label)
      for (const name of Object.keys(cols)) {
        const col = t.getChild(name)
        for (let i = 0; i < N; i++) {
          const got = canonEngine(name, col.get(i))
          const exp = canon(want[i][name])
          if (got !== exp) assert.fail(`${label}: row ${i} column ${name}: engine ${got}, hyparquet ${exp}`)
        }
      }
      const rows = Object.keys(cols).length && Array.from({ length: N }, (_, i) => Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, v[i]])))
      for (const [where, keep] of predicates) {
        const expect = rows.filter(keep).length
        const { count: n } = await f.count({ where })
        assert.equal(n, expect, `${label}: count WHERE ${where}`)
        const s = await f.scan({ where, columns: ['id'] }).toTable()
        assert.equal(s.numRows, expect, `${label}: scan WHERE ${where}`)
      }
      f.close()
    }
  } finally {
    engine.terminate()
  }
})

// VARIANT columns, shredded by hyparquet-writer (objects into typed fields, nested objects and
// lists too) or not: the engine's JSON text of each value parses to what hyparquet decodes.
test('hyparquet-writer VARIANT columns: the same values, shredded or not', async () => {
  const vals = []
  for (let i = 0; i < 400; i++) {
    vals.push([
      null,
      { a: i, b: 's' + i, c: { d: [1, 2, i] } },
      [i, 'x', null, { y: i % 3 === 0 }],
      'str' + i,
      { a: i * 1.5, e: i % 2 === 0, b: null },
      i,
      { a: 'not a number', c: { d: 'not a list' } },
      {},
      true,
    ][i % 9])
  }
  const engine = createEngine({ worker: false, wasm: wasmPath })
  try {
    for (const shredding of [true, false]) {
      const buf = parquetWriteBuffer({ columnData: [{ name: 'v', data: vals, type: 'VARIANT', ...(shredding ? { shredding } : {}) }] })
      const want = await parquetReadObjects({ file: buf })
      const f = await engine.openParquet(new Blob([buf]))
      const t = await f.scan({ variantJSON: true }).toTable()
      const col = t.getChild('v')
      assert.equal(col.length, vals.length)
      for (let i = 0; i < vals.length; i++) {
        const got = col.get(i)
        assert.deepEqual(got === null ? null : JSON.parse(got), want[i].v ?? null, `shredding ${shredding}, row ${i}`)
      }
      f.close()
    }
  } finally {
    engine.terminate()
  }
})
