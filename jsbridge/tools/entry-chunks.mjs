// Drops the browser entry's side-effect imports of esbuild's runtime-helper chunks
// (mk/js.mk, after the split build). esbuild puts a helper used by several lazy chunks
// (apache-arrow's, zstddec's: `__export`) into a shared chunk and imports it from the entry
// too, though the entry uses none of it; a page then fetches that chunk after the entry and
// before evaluating it — one more dependent request (a whole round trip on a cold page
// across a network) for a few hundred bytes of definitions. A chunk is dropped from the
// entry only when it imports nothing and exports only `__`-prefixed names (esbuild's
// helpers: definitions without side effects); the lazy chunks keep their own imports of it.
//
//   node tools/entry-chunks.mjs dist/pqscan.js
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const entry = process.argv[2]
let src = readFileSync(entry, 'utf8')
const dir = path.dirname(entry)
for (const m of src.matchAll(/^import "\.\/(chunk-[A-Za-z0-9_-]+\.js)";\n/gm)) {
  const chunk = readFileSync(path.join(dir, m[1]), 'utf8')
  const exported = /export\s*\{([^}]*)\}/.exec(chunk)?.[1].split(',').map((s) => s.trim()).filter(Boolean) ?? []
  const helpersOnly = !/^\s*import\b/m.test(chunk) && exported.length > 0 && exported.every((n) => /^__\w+$/.test(n))
  if (helpersOnly) src = src.replace(m[0], '')
  else console.log(`entry-chunks: ${m[1]} is not esbuild's helpers alone: the entry keeps importing it`)
}
writeFileSync(entry, src)
