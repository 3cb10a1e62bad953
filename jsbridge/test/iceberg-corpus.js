// The Iceberg corpus (../shared/testdata/iceberg) for the tests that read it in Node and in
// Chromium (e2e): its tables (MANIFEST.tsv rows) and each table's snapshots with their
// expected rows.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parseExact } from '../src/exact-json.js'
import { addTree, corpusDir } from './helpers.js'
import { startServer } from './server.js'

export const iceDir = path.join(corpusDir(), 'iceberg')

/** A test server (server.js, 127.0.0.1) serving the corpus's tables under /ice/<table>/. */
export function serveIcebergTables() {
  const files = new Map()
  addTree(files, path.join(iceDir, 'tables'), '/ice/')
  return startServer(files)
}

/** The corpus's tables: MANIFEST.tsv's rows as objects keyed by its header. */
export function icebergTables() {
  const lines = readFileSync(path.join(iceDir, 'MANIFEST.tsv'), 'utf8').trim().split('\n')
  const cols = lines.shift().split('\t')
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [cols[i], v])))
}

/**
 * A corpus table's snapshots in its snapshot-log order, the last the current one: id (exact
 * text: the ids exceed 2^53), asOf (a time at which it is current: a millisecond before the
 * next one), the expected rows (parsed, integers beyond 2^53 as BigInts) and the metadata
 * file's parsed JSON (for icebird).
 */
export function icebergSnapshots(r) {
  const root = path.join(iceDir, 'tables', r.name, r.table_root)
  const text = readFileSync(path.join(root, 'metadata', r.metadata_file), 'utf8')
  const meta = JSON.parse(text)
  const log = meta['snapshot-log']
  const ids = [...text.slice(text.indexOf('"snapshot-log"')).matchAll(/"snapshot-id"\s*:\s*(\d+)/g)].map((x) => x[1])
  const dir = path.join(iceDir, 'expected', r.name, 'oracle', 'icebird')
  return log.map((e, i) => {
    const current = i === log.length - 1
    const file = path.join(dir, current ? 'rows.current.jsonl' : `rows.snapshot-${ids[i]}.jsonl`)
    const want = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map(parseExact)
    return { id: ids[i], current, asOf: current ? e['timestamp-ms'] : log[i + 1]['timestamp-ms'] - 1, want, meta, parsedId: e['snapshot-id'] }
  })
}

