// The JS bridge as an oracle runner for the Go WHERE differential
// (internal/conformance/where_bridge_test.go): reads JSON lines from stdin, one case each,
//
//   {"source": PATH, "dataset": bool, "where": TEXT, "orderBy"?: TEXT, "key"?: NAME, "offset"?: N, "limit"?: N, "version"?: N, "snapshotId"?: TEXT, "unionSchema"?: bool, "byPosition"?: bool}
//
// opens the source with the bridge in Node (in-thread engine: a local file with openParquet,
// a local table or Hive folder, written with a trailing '/', with openDataset) and writes one
// JSON line per case: {"rows": N, "count": N, "keys": [...]} (keys: the first column's values
// as text, for an ordered scan) or {"error": "..."}. Sources are kept open across cases.
import { createInterface } from 'node:readline'
import { openParquet, openDataset, terminateDefaultEngines } from '../../src/index.js'

const [wasm] = process.argv.slice(2)
const o = { worker: false, wasm, metadataCache: false }
const open = new Map()
const source = (c) => {
  const key = JSON.stringify([c.source, c.version, c.snapshotId, c.unionSchema, c.byPosition])
  if (!open.has(key)) {
    const opts = { ...o }
    if (c.version != null) opts.version = c.version
    if (c.snapshotId != null) opts.snapshotId = c.snapshotId
    if (c.unionSchema) opts.unionSchema = true
    if (c.byPosition) opts.byPosition = true
    open.set(key, c.dataset ? openDataset(c.source, opts) : openParquet(c.source, opts))
  }
  return open.get(key)
}
const text = (v) => (v === null || v === undefined ? null : typeof v === 'bigint' ? v.toString() : String(v))

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue
  const c = JSON.parse(line)
  let out
  try {
    const src = await source(c)
    const q = { where: c.where }
    if (c.offset) q.offset = c.offset
    if (c.limit) q.limit = c.limit
    if (c.orderBy) q.orderBy = c.orderBy
    const t = await src.scan(q).toTable()
    out = { rows: t.numRows }
    if (c.orderBy) out.keys = Array.from(t.getChild(c.key) ?? [], text)
    else out.count = (await src.count(q)).count
  } catch (e) {
    out = { error: String(e?.message ?? e) }
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}
terminateDefaultEngines()
