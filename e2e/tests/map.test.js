// The demo's map view in headless Chromium, against bin/pqserve and the generated places
// (pqserve gen-geo, .cache/sample/geo/): for a viewport given in the URL, then one dragged and
// one zoomed with the mouse, the canvas draws exactly the rows the query returned, and those
// are the native Go engine's answer to the same ST_Intersects query (ids compared). The
// screenshot goes to e2e/out/demo-map.png.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { startServer, startBrowser, sampleDir, outDir, ensureOut, goRows } from './harness.js'

const places = path.join(sampleDir, 'geo/places.parquet')
const buildings = path.join(sampleDir, 'geo/buildings.parquet')
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

async function waitRun(n) {
  await page.waitForFunction((n) => window.__demo && window.__demo.runs >= n && !window.__demo.busy, n, { timeout: 60000 })
  return page.evaluate(() => window.__demo)
}

// The ids the page returned and the Go engine's for the page's WHERE, sorted.
async function check(st, what, file = places) {
  assert.equal(st.error, null, what)
  const where = await page.inputValue('#where')
  assert.match(where, /^ST_Intersects\(geometry, ST_MakeEnvelope\(/)
  const got = await page.evaluate(() => [...window.__demoTable.getChild('id')].map(String).sort())
  const want = goRows(file, { columns: ['id'], where }).rows.map(([id]) => String(id).replace(/n$/, '')).sort()
  assert.deepEqual(got, want, `${what}: the rows are the Go engine's`)
  assert.equal(st.rows, want.length, what)
  assert.equal(st.map.drawn, want.length, `${what}: every returned row is drawn`)
  assert.equal(st.map.skipped, 0, what)
  assert.equal(await page.getAttribute('#mapcanvas', 'data-drawn'), String(want.length))
  assert.match(await page.textContent('#mapinfo'), new RegExp(`^${want.length.toLocaleString('en-US')} geometries drawn`))
  return want.length
}

test('the map draws the rows of the viewport query, and dragging or zooming queries the new envelope', async () => {
  await page.goto(srv.url + '?map&env=2.3,48.84,2.4,48.87')
  let st = await waitRun(1)
  assert.equal(await page.isVisible('#map'), true)
  assert.deepEqual(st.map.env, [2.3, 48.84, 2.4, 48.87])
  const n0 = await check(st, 'URL viewport')
  assert.ok(n0 > 100, `${n0} rows in the first viewport`)
  // Some pixels of the canvas have the points' colour.
  const blue = await page.evaluate(() => {
    const c = document.getElementById('mapcanvas')
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data
    let n = 0
    for (let i = 0; i < d.length; i += 4) if (d[i + 2] > 150 && d[i] < 150) n++
    return n
  })
  assert.ok(blue > 100, `${blue} point pixels`)
  ensureOut()
  await page.screenshot({ path: path.join(outDir, 'demo-map.png'), fullPage: true })

  // Drag east by 120 px: the viewport moves west, a new query runs.
  const box = await page.locator('#mapcanvas').boundingBox()
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2
  await page.mouse.move(cx, cy)
  await page.mouse.down()
  await page.mouse.move(cx + 60, cy, { steps: 3 })
  await page.mouse.move(cx + 120, cy, { steps: 3 })
  await page.mouse.up()
  st = await waitRun(2)
  assert.ok(st.map.env[0] < 2.3 && st.map.env[2] < 2.4, `moved west: ${st.map.env}`)
  assert.ok(Math.abs(st.map.env[1] - 48.84) < 1e-9, 'not north or south')
  await check(st, 'dragged viewport')

  // Zoom out around the centre: a larger envelope, more rows.
  await page.mouse.move(cx, cy)
  await page.mouse.wheel(0, 400)
  st = await waitRun(3)
  assert.ok(st.map.env[2] - st.map.env[0] > 0.1 * 1.5, `zoomed out: ${st.map.env}`)
  const n2 = await check(st, 'zoomed viewport')
  assert.ok(n2 > n0, `${n2} rows after zooming out, ${n0} before`)
})

test('the map draws building footprints (polygons, multipolygons) of a viewport', async () => {
  await page.goto(srv.url + '?map&url=/data/geo/buildings.parquet&env=2.34,48.85,2.36,48.86')
  const st = await waitRun(1)
  const n = await check(st, 'buildings', buildings)
  assert.ok(n > 50, `${n} buildings`)
  await page.screenshot({ path: path.join(outDir, 'demo-map-buildings.png'), fullPage: true })
})

test('a viewport across the antimeridian queries the wrapping envelope and draws both sides', async () => {
  await page.goto(srv.url + '?map&env=179.95,-18.2,180.03,-18.05')
  const st = await waitRun(1)
  assert.equal(await page.inputValue('#where'), 'ST_Intersects(geometry, ST_MakeEnvelope(179.95, -18.2, -179.97, -18.05))')
  const n = await check(st, 'antimeridian')
  const sides = await page.evaluate(() => {
    const x = window.__demoTable.getChild('geometry')
    let east = 0, west = 0
    for (let i = 0; i < x.length; i++) {
      const b = x.get(i)
      if (new DataView(b.buffer, b.byteOffset).getFloat64(5, true) > 0) east++
      else west++
    }
    return { east, west }
  })
  assert.ok(sides.east > 0 && sides.west > 0, `${n} rows: ${JSON.stringify(sides)}`)
})
