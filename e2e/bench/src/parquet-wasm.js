// parquet-wasm (arrow-rs in wasm) + apache-arrow, on the page's thread. Its API reads row
// groups × columns (with limit/offset) and exposes no statistics, so filters run in JS:
// Q1/Q2 read the predicate columns of every row group, then the projected columns of the row
// groups holding matches (only the row span from the first to the last match, via
// offset/limit), and keep the matching rows.
import init, { ParquetFile } from 'parquet-wasm/esm/parquet_wasm.js'
import { tableFromIPC } from 'apache-arrow'
import { ALL, arrowRows, checksum, sumColumn } from './check.js'

export async function load() {
  await init('/nm/parquet-wasm/esm/parquet_wasm_bg.wasm')
}

async function read(f, opts) {
  const t = await f.read(opts)
  return tableFromIPC(t.intoIPCStream())
}

function raw(col) {
  const out = []
  for (const d of col.data) for (let i = 0; i < d.length; i++) out.push(d.values[d.offset + i])
  return out
}

export async function run(q, url) {
  const f = await ParquetFile.fromUrl(url)
  try {
    if (q.name === 'Q3') return sumColumn(await read(f, { columns: ['value'] }), 'value')
    if (q.name === 'Q4') {
      const rows = arrowRows(await read(f, { limit: q.limit }), ALL)
      return { rows: rows.length, checksum: checksum(rows) }
    }
    const md = f.metadata()
    const nrg = md.numRowGroups()
    const predCols = q.name === 'Q1' ? ['tenant_id', 'event_time'] : ['user_id']
    const T = BigInt(q.tenant ?? 0), lo = BigInt(q.lo ?? 0), hi = BigInt(q.hi ?? 0), U = BigInt(q.user ?? 0)
    const match = q.name === 'Q1'
      ? (p, i) => p[0][i] === T && p[1][i] >= lo && p[1][i] < hi
      : (p, i) => p[0][i] === U
    const cols = q.columns ?? ALL
    const out = []
    const preds = await Promise.all(Array.from({ length: nrg }, (_, rg) => read(f, { rowGroups: [rg], columns: predCols })))
    await Promise.all(preds.map(async (pt, rg) => {
      const p = predCols.map((c) => raw(pt.getChild(c)).map(BigInt))
      const hits = []
      for (let i = 0; i < p[0].length; i++) if (match(p, i)) hits.push(i)
      if (!hits.length) return
      const first = hits[0], last = hits[hits.length - 1]
      const t = await read(f, { rowGroups: [rg], columns: cols, offset: first, limit: last - first + 1 })
      const rows = arrowRows(t, cols)
      for (const h of hits) out.push(rows[h - first])
    }))
    return { rows: out.length, checksum: checksum(out) }
  } finally {
    f.free()
  }
}
