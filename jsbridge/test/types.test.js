// The names the package exports at run time are the ones index.d.ts declares (the tsc check
// over test/types/usage.ts, make test-types, covers what the declarations say), and the
// ./worker entry exports nothing, as worker.d.ts says.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import * as pq from '../src/index.js'

test('index.d.ts declares exactly the runtime exports of src/index.js', () => {
  const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
  const declared = [...dts.matchAll(/^export (?:declare )?(?:function|class|const) (\w+)/gm)].map((m) => m[1])
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(pq).sort())
})
