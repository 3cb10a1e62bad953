// Hostile inputs through the bridge in headless Chromium: malformed, encrypted and fuzz files
// give the Go engine's rows or an engine error (code "scan" or the kind the module gives:
// "corrupt", "not-parquet", …; never a trap, a hang or rows where Go fails); the engine's memory
// cap is a "memory-cap" error; a trap (the Go runtime out of wasm memory)
// discards the instance and the next scan works.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readdirSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tableFromIPC } from 'apache-arrow'
import { startServer, startBrowser, corpusDir, root } from './harness.js'

let srv, br, page
before(async () => {
  srv = await startServer()
  br = await startBrowser()
  page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
  await page.goto(srv.url + 'fixtures/blank.html')
})
after(async () => {
  await br?.close()
  srv?.stop()
})

/** The native Go engine (pqserve cat): {rows} or {error}. */
function goResult(rel) {
  try {
    const ipc = execFileSync(path.join(root, 'bin/pqserve'), ['cat', path.join(corpusDir(), rel)], { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
    return { rows: tableFromIPC(ipc).numRows }
  } catch (e) {
    return { error: String(e.stderr ?? e.message).trim() }
  }
}

function scanInPage(url, opts = {}) {
  return page.evaluate(
    async ({ url, opts }) => {
      const { openParquet } = await import('/pqscan/dist/pqscan.js')
      try {
        const f = await openParquet(url, { wasmURL: '/pqscan/pqscan.wasm', ...opts })
        const t = await f.scan(opts.scan ?? {}).toTable()
        return { rows: t.numRows }
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name }
      }
    },
    { url, opts },
  )
}

function hostileFiles() {
  const c = corpusDir()
  const files = readdirSync(path.join(c, 'parquet-testing/bad_data')).filter((f) => f.endsWith('.parquet')).map((f) => 'parquet-testing/bad_data/' + f)
  files.push(
    'parquet-testing/data/nation.dict-malformed.parquet',
    'parquet-testing/data/datapage_v1-corrupt-checksum.parquet',
    'parquet-testing/data/large_string_map.brotli.parquet', // 1 GiB of strings: the 256 MiB memory cap
    'parquet-testing/data/encrypt_columns_and_footer.parquet.encrypted',
    'parquet-testing/data/uniform_encryption.parquet.encrypted',
  )
  // Every fourth fuzz regression file (all of them run in Go: corpus_bad_test.go).
  const fz = readdirSync(path.join(c, 'arrow-testing/parquet/fuzzing')).filter((f) => !f.endsWith('.md')).sort()
  for (let i = 0; i < fz.length; i += 4) files.push('arrow-testing/parquet/fuzzing/' + fz[i])
  return files
}

// The codes of the engine's failures: "scan", or the error kind the module reports with it
// (jsbridge/src/errors.js ERROR_KINDS).
const ENGINE_CODES = ['scan', 'corrupt', 'not-parquet', 'encrypted', 'memory-cap']

// No file may hang the engine: the test's timeout turns a hang into a failure (there is no
// per-file time threshold; how long a file takes is not what this test checks).
test('malformed, encrypted and fuzz files: the Go engine\'s row count or an engine error, never a trap', { timeout: 15 * 60_000 }, async (t) => {
  const problems = []
  let rejected = 0
  let decoded = 0
  for (const rel of hostileFiles()) {
    const want = goResult(rel)
    const got = await scanInPage(srv.corpus + rel)
    if (want.error !== undefined) {
      if (!ENGINE_CODES.includes(got.code)) problems.push(`${rel}: Go failed (${want.error.split('\n')[0]}), browser: ${JSON.stringify(got)}`)
      else rejected++
    } else if (got.error !== undefined || got.rows !== want.rows) {
      problems.push(`${rel}: Go read ${want.rows} rows, browser: ${JSON.stringify(got)}`)
    } else decoded++
  }
  t.diagnostic(`${rejected} rejected with an engine error, ${decoded} decoded with Go's row count`)
  assert.deepEqual(problems, [])
  assert.ok(rejected > 10, `rejected ${rejected}, decoded ${decoded}`)
})

test('the engine memory cap (memoryCap) is a "memory-cap" error, not a trap', async () => {
  const got = await scanInPage(srv.corpus + 'parquet-testing/data/alltypes_tiny_pages_plain.parquet', { scan: { memoryCap: 1024 } })
  assert.equal(got.code, 'memory-cap', JSON.stringify(got))
  assert.match(got.error, /memory cap/)
})

test('a trap (the guest runs out of wasm memory) discards the instance; the next scan works (Worker and in-thread)', async () => {
  const r = await page.evaluate(async (url) => {
    const { createEngine } = await import('/pqscan/dist/pqscan.js')
    const out = []
    for (const worker of [true, false]) {
      const eng = createEngine({ worker, wasmURL: '/pqscan/pqscan.wasm' })
      try {
        const f = await eng.openParquet(url)
        const trap = await eng.impl.debugTrap()
        const t = await f.scan({ columns: ['id'] }).toTable()
        out.push({ worker, trap: trap.code ?? trap, rows: t.numRows })
      } catch (e) {
        out.push({ worker, error: `${e.code ?? e.name}: ${e.message}` })
      } finally {
        eng.terminate?.()
      }
    }
    return out
  }, srv.corpus + 'parquet-testing/data/alltypes_plain.parquet')
  assert.deepEqual(r, [
    { worker: true, trap: 'trap', rows: 8 },
    { worker: false, trap: 'trap', rows: 8 },
  ])
})
