import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

const here = path.dirname(fileURLToPath(import.meta.url))
export const repoRoot = path.resolve(here, '../..')

/** The corpus directory: $PQSCAN_TESTDATA or ../shared/testdata relative to the repo root. */
export function corpusDir() {
  const cands = [process.env.PQSCAN_TESTDATA, path.resolve(repoRoot, '../shared/testdata')].filter(Boolean)
  for (const c of cands) if (existsSync(c)) return c
  throw new Error(`corpus not found (tried ${cands.join(', ')}); set PQSCAN_TESTDATA`)
}

export function corpusFile(rel) {
  return new Uint8Array(readFileSync(path.join(corpusDir(), rel)))
}

/** The module built by `make wasm` (the package's own copy when present). */
export const wasmPath = existsSync(path.join(here, '../pqscan.wasm')) ? path.join(here, '../pqscan.wasm') : path.join(repoRoot, 'wazerohost/pqscan.wasm')

/** The lean module (pqscan-lean.wasm), found as wasmPath is. */
export const leanWasmPath = existsSync(path.join(here, '../pqscan-lean.wasm')) ? path.join(here, '../pqscan-lean.wasm') : path.join(repoRoot, 'wazerohost/pqscan-lean.wasm')

/** Every file under dir as [relative path, bytes]. */
export function walk(dir, rel = '') {
  const out = []
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) out.push(...walk(dir, r))
    else out.push([r, new Uint8Array(readFileSync(path.join(dir, r)))])
  }
  return out
}

/** Adds every file below dir to files (a test server's map), keyed prefix + its path under dir. */
export function addTree(files, dir, prefix) {
  for (const [r, b] of walk(dir)) files.set(prefix + r, b)
}

/**
 * An Arrow table's rows as sorted strings of sorted name=value pairs (row order is not
 * significant in a table), values through one canonical form so that an oracle's types
 * (e.g. timestamp units) and ours compare by value.
 */
export function canonRows(table) {
  const names = table.schema.fields.map((f) => f.name)
  const val = (v) => {
    if (v == null) return 'null'
    if (typeof v === 'bigint') return String(v)
    if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
    if (typeof v === 'object' && typeof v.toJSON === 'function') return JSON.stringify(v.toJSON(), (_, x) => (typeof x === 'bigint' ? String(x) : x))
    return JSON.stringify(v)
  }
  return table
    .toArray()
    .map((r) => names.map((n) => `${n}=${val(r[n])}`).sort().join('|'))
    .sort()
}
