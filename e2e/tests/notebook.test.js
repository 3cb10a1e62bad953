// The Observable snippet of jsbridge/README.md ("In an Observable notebook cell"), run in
// headless Chromium as Observable runs cells: each ```js block of that section is a cell; a
// named cell (`name = expr`) defines name, and its value, once its promise settles, is what
// later cells see (Observable awaits a cell's promise before running the cells that use it).
// The page is on one origin; the bundle, the module and the data on pqserve's other origin
// (CORS), as a notebook imports from a CDN. Observable's Inputs.table is stood in by a
// function that returns the table it is given; its rows are checked against the Go engine.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { startServer, startBrowser, goRows, root, sampleDir } from './harness.js'

let srv, br, page
before(async () => {
  srv = await startServer()
  br = await startBrowser()
  page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
})
after(async () => {
  await br?.close()
  srv?.stop()
})

/** The ```js blocks of the README section whose heading starts with heading. */
function cells(heading) {
  const md = readFileSync(path.join(root, 'jsbridge/README.md'), 'utf8')
  const start = md.indexOf(`## ${heading}`)
  assert.ok(start >= 0, `README has a "${heading}" section`)
  const end = md.indexOf('\n## ', start + 3)
  const section = md.slice(start, end < 0 ? undefined : end)
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1].trim())
}

test("the README's Observable cells run in Chromium with the bundle, module and data on another origin", async () => {
  const src = cells('In an Observable notebook cell')
  assert.equal(src.length, 3)
  // The README's placeholder hosts → pqserve's other origin (it serves /pqscan/ and the data).
  const code = src.map((c) => c.replaceAll('https://your.host/', srv.crossOrigin).replaceAll('https://data.example.com/', srv.crossOrigin))
  await page.goto(srv.url + 'fixtures/blank.html')
  const got = await page.evaluate(async (code) => {
    const AsyncFunction = (async () => {}).constructor
    const scope = { Inputs: { table: (t) => t } } // the stand-in for Observable's Inputs.table
    let last
    try {
      for (const cell of code) {
        const m = /^([A-Za-z_$][\w$]*)\s*=\s*([\s\S]+)$/.exec(cell)
        const body = m ? m[2] : cell
        const names = Object.keys(scope)
        const value = await new AsyncFunction(...names, `return (${body})`)(...names.map((n) => scope[n]))
        if (m) scope[m[1]] = value
        last = value
      }
      const { normRows } = await import('/fixtures/norm.js')
      return { ...normRows(last), defined: Object.keys(scope) }
    } catch (e) {
      return { error: `${e.code ?? e.name}: ${e.message}` }
    }
  }, code)
  assert.equal(got.error, undefined, got.error)
  assert.deepEqual(got.defined, ['Inputs', 'pqscan', 'file'])
  assert.ok(got.names.includes('country'))
  const want = goRows(path.join(sampleDir, 'events.parquet'), { where: "country = 'DE'", limit: 500 })
  assert.equal(want.rows.length, 500)
  assert.deepEqual(got.rows, want.rows)
})
