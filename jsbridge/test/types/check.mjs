// make test-types / npm run typecheck: tsc --noEmit --strict over usage.ts and over the
// declarations themselves. skipLibCheck keeps tsc from checking apache-arrow's and the DOM's
// declaration files (most of the time otherwise: ~30 s of a 2-core machine), but it would skip
// index.d.ts and worker.d.ts too, where an unknown type name silently becomes `any`. So
// they are also checked as .ts copies (.gen/, the same text with `export declare` where a
// .ts needs it), which skipLibCheck does not skip.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

const here = path.dirname(fileURLToPath(import.meta.url))
const pkg = path.resolve(here, '../..')
const gen = path.join(here, '.gen')
mkdirSync(gen, { recursive: true })
for (const name of ['index', 'worker']) {
  const src = readFileSync(path.join(pkg, `${name}.d.ts`), 'utf8')
  writeFileSync(path.join(gen, `${name}.ts`), src.replace(/^export (function|class) /gm, 'export declare $1 '))
}
try {
  execFileSync(path.join(pkg, 'node_modules/.bin/tsc'), ['-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' })
} catch {
  process.exit(1)
}
