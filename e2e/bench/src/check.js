// The result check every contender computes in the page and the oracle computes in Node:
// rows as canonical strings (int64 and timestamps as decimal integers — timestamps in
// microseconds —, doubles through String(Number), strings as is, null as \0), columns in the
// query's order, rows sorted, then FNV-1a 64 over the rows joined by \n. Q3 answers a count
// and a sum instead (the sum is compared with a relative tolerance: summation order differs).

export const ALL = ['event_time', 'tenant_id', 'user_id', 'event_type', 'country', 'value', 'payload']

export function canon(v) {
  if (v === null || v === undefined) return '\0'
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) > 2 ** 53 ? BigInt(v).toString() : String(v)
  if (v instanceof Date) return (BigInt(v.getTime()) * 1000n).toString()
  return String(v)
}

const enc = new TextEncoder()
export function fnv64(s) {
  let h = 0xcbf29ce484222325n
  const p = 0x100000001b3n
  for (const b of enc.encode(s)) h = BigInt.asUintN(64, (h ^ BigInt(b)) * p)
  return h.toString(16).padStart(16, '0')
}

/** rows: arrays of canonical strings. */
export function checksum(rows) {
  const lines = rows.map((r) => r.join('\x1f')).sort()
  return fnv64(lines.join('\n'))
}

/** Canonical rows of an apache-arrow Table (any version) for the given column names. */
export function arrowRows(table, cols) {
  const getters = cols.map((name) => {
    const col = table.getChild(name)
    if (!col) throw new Error(`result has no column ${name}`)
    if (String(col.type).startsWith('Timestamp')) {
      const raw = []
      for (const d of col.data) for (let i = 0; i < d.length; i++) raw.push(d.values[d.offset + i])
      const unit = col.type.unit // 0 s, 1 ms, 2 µs, 3 ns
      const mul = [1000000n, 1000n, 1n, 1n][unit]
      const div = unit === 3 ? 1000n : 1n
      return (r) => (col.isValid(r) ? ((BigInt(raw[r]) * mul) / div).toString() : '\0')
    }
    return (r) => canon(col.get(r))
  })
  const out = []
  for (let r = 0; r < table.numRows; r++) out.push(getters.map((g) => g(r)))
  return out
}

export function sumColumn(table, name) {
  let s = 0, n = 0
  const col = table.getChild(name)
  for (const d of col.data) {
    const v = d.values
    for (let i = 0; i < d.length; i++) s += v[d.offset + i]
    n += d.length
  }
  return { rows: n, sum: s }
}
