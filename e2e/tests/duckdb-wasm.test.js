// pqscan → DuckDB-WASM in headless Chromium (jsbridge/README.md "With DuckDB-WASM"): pqscan
// scans the sample file from pqserve with a WHERE, its Arrow IPC batches go into DuckDB-WASM
// (insertArrowFromIPCStream) and a GROUP BY runs over them. The oracle is DuckDB-WASM reading
// the same remote file itself (its own Parquet reader, over HTTP range requests) with the same
// WHERE and GROUP BY. The bytes each side fetched are counted by the server (pqserve /__stats)
// and printed; jsbridge/README.md quotes them.
//
// Then the Observable snippet of the same README ("In an Observable notebook cell"), run as
// Observable runs cells: each ```js block of that section is a cell; a named cell
// (`name = expr`) defines name, and its value, once its promise settles, is what later cells see
// (Observable awaits a cell's promise before running the cells that use it). The page is on one
// origin; the bundle, the module and the data on pqserve's other origin (CORS), as a notebook
// imports from a CDN. Observable's Inputs.table is stood in by a function that returns the table
// it is given; its rows are checked against the Go engine.
//
// DuckDB-WASM 1.28.0 (e2e/package.json; the last release with the parquet extension linked in,
// see e2e/bench/src/duckdb.js) is bundled here with esbuild and served, with its module and
// Worker, from node_modules through Playwright routes: nothing is fetched from the internet.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { readFileSync, statSync } from 'node:fs'
import { build } from 'esbuild'
import { startServer, startBrowser, goRows, root, sampleDir } from './harness.js'

const DIST = path.join(root, 'e2e/node_modules/@duckdb/duckdb-wasm/dist')
const WHERES = ['tenant_id = 42', "tenant_id = 42 AND event_type = 'purchase'", 'value > 990']
const GROUP = 'SELECT country, count(*) AS n, sum(value) AS total, count(DISTINCT user_id) AS users FROM %s GROUP BY country ORDER BY country'

let srv, br, page
// The data server's counters of the sample file (pqserve /__stats): requests and body bytes.
async function served() {
  const st = await (await fetch(srv.url + '__stats')).json()
  const c = st['/events.parquet'] ?? { Requests: 0, Bytes: 0 }
  return { requests: c.Requests, bytes: c.Bytes }
}
const minus = (a, b) => ({ requests: a.requests - b.requests, bytes: a.bytes - b.bytes })

before(async () => {
  const bundle = await build({
    stdin: { contents: "export * as duckdb from '@duckdb/duckdb-wasm'", resolveDir: path.join(root, 'e2e'), loader: 'js' },
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'warning',
  })
  const js = bundle.outputFiles[0].contents
  srv = await startServer()
  br = await startBrowser()
  await br.ctx.route('**/duckdb/*', (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop()
    if (name === 'duckdb.js') return route.fulfill({ body: Buffer.from(js), contentType: 'text/javascript' })
    if (!/^duckdb-(browser-)?(eh|mvp)(\.worker\.js|\.wasm)$/.test(name)) return route.fulfill({ status: 404 })
    return route.fulfill({ body: readFileSync(path.join(DIST, name)), contentType: name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' })
  })
  page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
  await page.goto(srv.url + 'fixtures/blank.html')
})
after(async () => {
  await br?.close()
  srv?.stop()
})

test('pqscan rows go into DuckDB-WASM and a GROUP BY over them equals DuckDB-WASM reading the remote file itself', async () => {
  const url = srv.data + 'events.parquet'
  const size = statSync(path.join(sampleDir, 'events.parquet')).size
  await page.evaluate(async () => {
    const { duckdb } = await import('/duckdb/duckdb.js')
    const base = new URL('/duckdb/', location.href).href
    const bundle = await duckdb.selectBundle({
      mvp: { mainModule: base + 'duckdb-mvp.wasm', mainWorker: base + 'duckdb-browser-mvp.worker.js' },
      eh: { mainModule: base + 'duckdb-eh.wasm', mainWorker: base + 'duckdb-browser-eh.worker.js' },
    })
    const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(bundle.mainWorker))
    await db.instantiate(bundle.mainModule)
    window.__duck = { duckdb, db, conn: await db.connect() }
  })
  const rowsOf = `(t) => t.toArray().map((r) => Object.fromEntries(Object.entries(r.toJSON()).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])))`

  for (const [k, WHERE] of WHERES.entries()) {
  // 1. The recipe: pqscan fetches the few pages the WHERE needs; DuckDB-WASM gets Arrow IPC.
  const s0 = await served()
  const viaPqscan = await page.evaluate(
    async ({ url, where, group, rowsOf }) => {
      const { conn } = window.__duck
      const { openParquet } = await import('/pqscan/dist/pqscan.js')
      const file = await openParquet(url, { wasmURL: '/pqscan/pqscan.wasm' })
      const scan = file.scan({ columns: ['country', 'value', 'user_id'], where, raw: true })
      let create = true
      for await (const ipc of scan) {
        await conn.insertArrowFromIPCStream(ipc, { name: 'subset', create })
        create = false
      }
      const t = await conn.query(group.replace('%s', 'subset'))
      const n = await conn.query('SELECT count(*) AS n FROM subset')
      await conn.query('DROP TABLE subset')
      return { rows: eval(rowsOf)(t), inserted: Number(n.get(0).n), report: scan.report, http: scan.http, open: file.metadata.http }
    },
    { url, where: WHERE, group: GROUP, rowsOf },
  )
  // 2. The oracle: DuckDB-WASM reads the remote file itself.
  const s1 = await served()
  const direct = await page.evaluate(
    async ({ url, where, group, rowsOf }) => {
      const { duckdb, db, conn } = window.__duck
      // A new name each time: nothing DuckDB cached from an earlier query is reused.
      const name = `remote${Math.random().toString(36).slice(2)}.parquet`
      await db.registerFileURL(name, url, duckdb.DuckDBDataProtocol.HTTP, false)
      const t = await conn.query(group.replace('%s', `read_parquet('${name}') WHERE ${where}`))
      await db.dropFile(name)
      return { rows: eval(rowsOf)(t) }
    },
    { url, where: WHERE, group: GROUP, rowsOf },
  )
  const s2 = await served()
  assert.ok(viaPqscan.rows.length >= 3, `${WHERE}: ${viaPqscan.rows.length} countries`)
  assert.equal(viaPqscan.inserted, viaPqscan.report.rowsReturned)
  assert.equal(viaPqscan.rows.reduce((n, r) => n + r.n, 0), viaPqscan.inserted)
  assert.deepEqual(viaPqscan.rows.map(({ total, ...r }) => r), direct.rows.map(({ total, ...r }) => r))
  for (const [i, r] of viaPqscan.rows.entries()) {
    // Sums of doubles in another order: equal to a relative 1e-9.
    assert.ok(Math.abs(r.total - direct.rows[i].total) <= 1e-9 * Math.abs(direct.rows[i].total), `${r.country}: ${r.total} vs ${direct.rows[i].total}`)
  }
  const p = minus(s1, s0)
  const d = minus(s2, s1)
  // The server's count is pqscan's own (open + scan).
  assert.equal(p.bytes, viaPqscan.open.bytes + viaPqscan.http.bytes)
  assert.equal(p.requests, viaPqscan.open.requests + viaPqscan.http.requests)
  assert.ok(d.requests > 0 && d.bytes > 0)
  console.log(`${WHERE} over the ${size}-byte sample (4 row groups): pqscan fetched ${p.bytes} bytes in ${p.requests} requests (${viaPqscan.report.roundTrips} engine round trips); DuckDB-WASM reading the file itself ${d.bytes} bytes in ${d.requests} requests`)
  }
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
