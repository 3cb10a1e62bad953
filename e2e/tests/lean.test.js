// The two modules in headless Chromium: openParquet with the package's defaults fetches the
// lean module (pqscan-lean.wasm) only; a file with a BROTLI column (a codec the lean module
// leaves out) is read by the full module (pqscan.wasm), fetched then, with hyparquet's expected
// rows, and so is a shredded VARIANT column; openDataset fetches the full module. In the
// Worker and in the page.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { startServer, startBrowser, corpusDir } from './harness.js'

const brotliWant = JSON.parse(readFileSync(path.join(corpusDir(), 'hyparquet/brotli_compressed.json'), 'utf8'))
const variantWant = JSON.parse(readFileSync(path.join(corpusDir(), 'hyparquet/shredded-nested-object.json'), 'utf8'))

let srv, br
before(async () => {
  srv = await startServer()
  br = await startBrowser()
})
after(async () => {
  await br?.close()
  srv?.stop()
})

// Runs the queries in a fresh page; returns the rows as JSON values and the modules fetched
// after each step.
async function inPage(worker) {
  const page = await br.ctx.newPage()
  const wasm = []
  page.on('request', (r) => r.url().endsWith('.wasm') && wasm.push(path.basename(new URL(r.url()).pathname)))
  try {
    await page.goto(srv.url + 'fixtures/blank.html')
    return await page.evaluate(
      async ({ worker, wasm }) => {
        const { createEngine } = await import('/pqscan/dist/pqscan.js')
        const text = new TextDecoder()
        const val = (v) => (typeof v === 'bigint' ? Number(v) : v instanceof Uint8Array ? text.decode(v) : v)
        const rows = (t) => t.toArray().map((r) => Object.values(r.toJSON()).map(val))
        const eng = createEngine({ worker })
        const out = {}
        try {
          const lz4 = await eng.query('/corpus/parquet-testing/data/lz4_raw_compressed.parquet').toTable()
          out.lz4Rows = lz4.numRows
          out.afterLz4 = (await eng.impl.debugStats()).fullInstances
          out.brotli = rows(await eng.query('/corpus/hyparquet/brotli_compressed.parquet').toTable())
          out.afterBrotli = (await eng.impl.debugStats()).fullInstances
          // A VARIANT column, shredded: the full module unshreds it; variantJSON gives its JSON.
          const v = await eng.query('/corpus/hyparquet/shredded-nested-object.parquet', { variantJSON: true }).toTable()
          out.variant = v.toArray().map((r) => [Number(r.id), JSON.parse(r.var)])
        } catch (e) {
          out.error = `${e.code ?? e.name}: ${e.message}`
        } finally {
          eng.terminate()
        }
        return out
      },
      { worker, wasm },
    ).then((out) => ({ ...out, wasm }))
  } finally {
    await page.close()
  }
}

for (const worker of [true, false]) {
  test(`openParquet loads the lean module, and the full one for a BROTLI file (worker: ${worker})`, async () => {
    const out = await inPage(worker)
    assert.equal(out.error, undefined)
    assert.equal(out.lz4Rows, 4)
    assert.equal(out.afterLz4, 0, 'an LZ4_RAW file is read by the lean module')
    assert.deepEqual(out.brotli, brotliWant)
    assert.equal(out.afterBrotli, 1, 'the full module was instantiated')
    // Through JSON once more, as hyparquet's expected rows were written (no -0 there).
    assert.deepEqual(JSON.parse(JSON.stringify(out.variant)), variantWant)
    assert.deepEqual(out.wasm.filter((f) => f.startsWith('pqscan')), ['pqscan-lean.wasm', 'pqscan.wasm'])
  })
}
