import { readFileSync, existsSync } from 'node:fs'
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
