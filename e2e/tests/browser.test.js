// The bridge and the demo in headless Chromium, against bin/pqserve on 127.0.0.1.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { statSync } from 'node:fs'
import { startServer, startBrowser, goRows, corpusDir, sampleDir, outDir, ensureOut, holdRequests } from './harness.js'

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

const SAMPLE_WHERE = "tenant_id = 42 AND event_type = 'purchase'"

async function fixturePage() {
  await page.goto(srv.url + 'fixtures/blank.html')
}

// Runs the bridge in the page; returns canonical rows plus counters, or {error}.
function scanInPage(url, q, opts) {
  return page.evaluate(
    async ({ url, q, opts }) => {
      const { openParquet } = await import('/pqscan/dist/pqscan.js')
      const { normRows } = await import('/fixtures/norm.js')
      try {
        const f = await openParquet(url, { wasmURL: '/pqscan/pqscan.wasm', ...opts })
        const s = f.scan(q)
        const t = await s.toTable()
        return { ...normRows(t), report: s.report, http: s.http, open: f.metadata.http }
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name }
      }
    },
    { url, q, opts },
  )
}

test('the demo page answers the default query with the right rows and counters', async () => {
  const want = goRows(path.join(sampleDir, 'events.parquet'), { where: SAMPLE_WHERE, limit: 100 })
  assert.ok(want.rows.length > 10, 'the sample query matches rows')
  await page.goto(srv.url)
  await page.waitForFunction(() => window.__demo && window.__demo.runs >= 1, null, { timeout: 30000 })
  const st = await page.evaluate(() => window.__demo)
  assert.equal(st.error, null)
  assert.equal(st.rows, want.rows.length)
  const size = statSync(path.join(sampleDir, 'events.parquet')).size
  assert.equal(st.report.fileSize, size)
  assert.equal(st.report.rowGroupsTotal, 4)
  assert.equal(st.report.rowGroupsAfterStats, 1, 'statistics keep only the row group of tenant 42')
  assert.ok(st.report.pagesAfterPageIndex < st.report.pagesTotal / 4, `page index: ${st.report.pagesAfterPageIndex} of ${st.report.pagesTotal}`)
  assert.equal(st.report.rowsReturned, want.rows.length)
  assert.ok(st.http.bytes < size / 10, `scan fetched ${st.http.bytes} of ${size} bytes`)
  // The rendered table and grid.
  assert.equal(await page.locator('#table tbody tr').count(), Math.min(50, want.rows.length), 'the first page of the result (50 rows a page)')
  assert.equal(await page.locator('#grid [data-rg].read').count(), 1)
  assert.equal(await page.locator('#grid [data-rg].stats').count(), 3)
  const firstRow = await page.locator('#table tbody tr').first().locator('td').allTextContents()
  assert.equal(firstRow[1], want.rows[0][1].replace(/n$/, ''), 'tenant_id of the first row')
  ensureOut()
  await page.screenshot({ path: path.join(outDir, 'demo.png'), fullPage: true })
  // Explain from the UI: no rows, a plan.
  await page.click('#explain')
  await page.waitForFunction(() => window.__demo.runs >= 2 && !window.__demo.busy)
  const ex = await page.evaluate(() => window.__demo)
  assert.equal(ex.error, null)
  assert.equal(ex.report.rowsReturned, 0)
  assert.ok(ex.report.explainDataBytes > 0)
  // A local file picked with the file input: the same query, read by slices of the File.
  await page.setInputFiles('#file', path.join(sampleDir, 'events.parquet'))
  await page.waitForFunction(() => window.__demo.runs >= 3 && !window.__demo.busy)
  const local = await page.evaluate(() => window.__demo)
  assert.equal(local.error, null)
  assert.equal(local.rows, want.rows.length)
  assert.ok(local.http.bytes > 0 && local.http.bytes < size / 10, `read ${local.http.bytes} of ${size} bytes of the File`)
})

const CASES = [
  ['parquet-testing/data/alltypes_plain.parquet', {}],
  ['parquet-testing/data/alltypes_tiny_pages_plain.parquet', { columns: ['id', 'int_col', 'string_col', 'timestamp_col'], where: 'id >= 1000 AND id < 1300' }],
  ['parquet-testing/data/alltypes_tiny_pages_plain.parquet', { limit: 50, offset: 7000 }],
  ['parquet-testing/data/datapage_v2.snappy.parquet', {}],
  ['parquet-testing/data/nested_structs.rust.parquet', {}],
  ['parquet-testing/data/nested_lists.snappy.parquet', {}],
  ['parquet-testing/data/nested_maps.snappy.parquet', {}],
  ['parquet-testing/data/nulls.snappy.parquet', {}],
  ['parquet-testing/data/delta_byte_array.parquet', {}],
  ['parquet-testing/data/lz4_raw_compressed_larger.parquet', {}],
  ['parquet-testing/data/int32_with_null_pages.parquet', { where: 'int32_field > 0' }],
  ['parquet-testing/data/fixed_length_decimal.parquet', {}],
  ['parquet-testing/data/int96_from_spark.parquet', {}],
  ['hyparquet/byte_stream_split.zstd.parquet', {}],
]

test('the JS API in a page (Worker and in-thread) matches the Go engine on corpus files', async () => {
  await fixturePage()
  for (const [rel, q] of CASES) {
    const want = goRows(path.join(corpusDir(), rel), q)
    for (const worker of [true, false]) {
      const got = await scanInPage(srv.corpus + rel, q, { worker })
      assert.equal(got.error, undefined, `${rel} worker=${worker}: ${got.error}`)
      assert.deepEqual(got.names, want.names, `${rel}: columns`)
      assert.equal(got.rows.length, want.rows.length, `${rel} worker=${worker}: row count`)
      assert.deepEqual(got.rows, want.rows, `${rel} worker=${worker}: values`)
    }
  }
})

// query(): openParquet and scan in one call, the open and the scan posted to the Worker
// together; the same rows as the Go engine and the same requests as the two calls.
test('query() in a page (Worker and in-thread) matches the Go engine and the two calls', async () => {
  await fixturePage()
  for (const [rel, q] of CASES) {
    const want = goRows(path.join(corpusDir(), rel), q)
    for (const worker of [true, false]) {
      const got = await page.evaluate(
        async ({ url, q, worker }) => {
          const { query, openParquet } = await import('/pqscan/dist/pqscan.js')
          const { normRows } = await import('/fixtures/norm.js')
          try {
            const o = { wasmURL: '/pqscan/pqscan.wasm', worker }
            const s = query(url, { ...o, ...q })
            const t = await s.toTable()
            const f = await openParquet(url, o)
            const two = f.scan(q)
            await two.done()
            f.close()
            return { ...normRows(t), requests: s.http.requests, bytes: s.http.bytes, twoRequests: two.http.requests, twoBytes: two.http.bytes }
          } catch (e) {
            return { error: `${e.code ?? e.name}: ${e.message}` }
          }
        },
        { url: srv.corpus + rel, q, worker },
      )
      assert.equal(got.error, undefined, `${rel} worker=${worker}: ${got.error}`)
      assert.deepEqual(got.names, want.names, `${rel}: columns`)
      assert.deepEqual(got.rows, want.rows, `${rel} worker=${worker}: values`)
      assert.deepEqual([got.requests, got.bytes], [got.twoRequests, got.twoBytes], `${rel} worker=${worker}: the scan's requests and bytes`)
    }
  }
})

// The bundled C decoder (jsbridge/src/zstd.js), the module's only ZSTD decoder, must load in a
// page and in its Worker (from the bundle alone: zstddec's module is embedded) and give Go's rows.
test('ZSTD pages: the bundled host decoder in the page and its Worker; Go\'s rows', async () => {
  await fixturePage()
  for (const rel of ['hyparquet/byte_stream_split.zstd.parquet', 'parquet-testing/data/geospatial/geography-lines.parquet']) {
    const want = goRows(path.join(corpusDir(), rel), {})
    for (const worker of [true, false]) {
      const got = await page.evaluate(
        async ({ url, worker }) => {
          const { createEngine } = await import('/pqscan/dist/pqscan.js')
          const { normRows } = await import('/fixtures/norm.js')
          const eng = createEngine({ worker, wasmURL: '/pqscan/pqscan.wasm' })
          try {
            const t = await (await eng.openParquet(url)).scan().toTable()
            return { ...normRows(t), stats: await eng.impl.debugStats() }
          } catch (e) {
            return { error: `${e.code ?? e.name}: ${e.message}` }
          } finally {
            eng.terminate()
          }
        },
        { url: srv.corpus + rel, worker },
      )
      const what = `${rel} worker=${worker}`
      assert.equal(got.error, undefined, `${what}: ${got.error}`)
      assert.deepEqual(got.rows, want.rows, `${what}: values`)
      assert.equal(got.stats.hostZstd, true, `${what}: the instance has the host decoder`)
      assert.ok(got.stats.hostZstdCalls > 0, `${what}: the host decoder was asked`)
    }
  }
})

test("the JS API inside a user's module Worker matches the Go engine", async () => {
  await fixturePage()
  for (const [rel, q] of CASES.slice(0, 3)) {
    const want = goRows(path.join(corpusDir(), rel), q)
    for (const worker of [false, true]) {
      const got = await page.evaluate(
        ({ url, q, worker }) =>
          new Promise((resolve) => {
            const w = new Worker('/fixtures/user-worker.js', { type: 'module' })
            w.onmessage = (e) => (w.terminate(), resolve(e.data))
            w.onerror = (e) => (w.terminate(), resolve({ ok: false, error: e.message }))
            w.postMessage({ url, q, worker })
          }),
        { url: srv.corpus + rel, q, worker },
      )
      assert.ok(got.ok, `${rel} nested worker=${worker}: ${got.error}`)
      assert.deepEqual(got.rows, want.rows, `${rel} (in a Worker, worker=${worker})`)
    }
  }
})

// The scan's requests are held unanswered (holdRequests): the abort must reject the scan while
// the response is still held, and the page's main thread must run tasks during the scan.
test('abort mid-scan rejects with AbortError while the response is held, and the page stays usable', async () => {
  await fixturePage()
  await page.evaluate(async (url) => {
    const { openParquet } = await import('/pqscan/dist/pqscan.js')
    window.__file = await openParquet(url, { wasmURL: '/pqscan/pqscan.wasm' })
  }, srv.data + 'events.parquet')
  const held = await holdRequests(br.ctx, '**/events.parquet')
  try {
    await page.evaluate(() => {
      const ctrl = new AbortController()
      window.__abort = () => ctrl.abort()
      window.__events = []
      window.__result = window.__file
        .scan({ signal: ctrl.signal })
        .toTable()
        .then(
          () => 'none',
          (e) => e.name,
        )
        .finally(() => window.__events.push('scan settled'))
    })
    await held.whenHeld(1) // the scan's first request is in flight, unanswered
    // The main thread is free while the Worker scans: a task of the page runs before the scan ends.
    assert.deepEqual(await page.evaluate(() => (window.__events.push('page task'), window.__events)), ['page task'])
    const name = await page.evaluate(() => (window.__abort(), window.__result))
    assert.equal(name, 'AbortError')
    assert.deepEqual(await page.evaluate(() => window.__events), ['page task', 'scan settled'])
    await held.whenDropped(1) // and the browser cancelled the held requests
    // The first round may have several requests in flight (the sample has several row
    // groups): every held one is aborted, none answered.
    const errs = held.errors()
    assert.ok(errs.length >= 1 && errs.every((e) => e === 'net::ERR_ABORTED'), JSON.stringify(errs))
  } finally {
    await held.release()
  }
  const rows = await page.evaluate(async () => (await window.__file.scan({ columns: ['tenant_id'], limit: 3 }).toTable()).numRows)
  assert.equal(rows, 3, 'the file and the page stay usable')
})

test('cross-origin: exposed headers work; hidden Content-Range is a clear CORS error', async () => {
  await fixturePage()
  const q = { where: SAMPLE_WHERE, columns: ['tenant_id', 'user_id', 'value'] }
  const want = goRows(path.join(sampleDir, 'events.parquet'), q)
  const ok = await scanInPage(srv.crossOrigin + 'events.parquet', q, {})
  assert.equal(ok.error, undefined, ok.error)
  assert.deepEqual(ok.rows, want.rows)
  const size = statSync(path.join(sampleDir, 'events.parquet')).size
  for (const opts of [{}, { fileSize: size }]) {
    const bad = await scanInPage(srv.crossOrigin + 'fault/no-expose/events.parquet', q, opts)
    assert.equal(bad.code, 'cors', JSON.stringify(bad))
    assert.match(bad.error, /Access-Control-Expose-Headers: Content-Range, Content-Length, ETag/)
  }
})

test('bundle and module on another origin, as in a notebook: the Worker starts from a same-origin blob', async () => {
  // A notebook (Observable, a JS notebook on its own origin) imports the bundle from a CDN; the
  // bundle's worker.js is then cross-origin, which new Worker() refuses (SecurityError).
  await fixturePage()
  const workers = []
  const onWorker = (w) => workers.push(w.url())
  page.on('worker', onWorker)
  const q = { where: SAMPLE_WHERE, columns: ['tenant_id', 'event_type', 'value'] }
  const want = goRows(path.join(sampleDir, 'events.parquet'), q)
  const got = await page.evaluate(
    async ({ cdn, url, q }) => {
      const { openParquet, terminateDefaultEngines } = await import(cdn + 'pqscan/dist/pqscan.js')
      const { normRows } = await import('/fixtures/norm.js')
      try {
        const f = await openParquet(url, { wasmURL: cdn + 'pqscan/pqscan.wasm' }) // worker: true, the default
        const t = await f.scan(q).toTable()
        return normRows(t)
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}` }
      } finally {
        terminateDefaultEngines()
      }
    },
    { cdn: srv.crossOrigin, url: srv.crossOrigin + 'events.parquet', q },
  )
  page.off('worker', onWorker)
  assert.equal(got.error, undefined, got.error)
  assert.deepEqual(got.rows, want.rows)
  assert.ok(workers.some((u) => u.startsWith('blob:')), `a Worker from a blob URL ran: ${JSON.stringify(workers)}`)
})

test('a local file (Blob/File, as from <input type=file>) is read by slices in the Worker', async () => {
  await fixturePage()
  const q = { where: SAMPLE_WHERE, columns: ['tenant_id', 'event_type', 'value'] }
  const want = goRows(path.join(sampleDir, 'events.parquet'), q)
  const size = statSync(path.join(sampleDir, 'events.parquet')).size
  const got = await page.evaluate(
    async ({ url, q }) => {
      const { openParquet } = await import('/pqscan/dist/pqscan.js')
      const { normRows } = await import('/fixtures/norm.js')
      const file = new File([await (await fetch(url)).blob()], 'events.parquet')
      try {
        const f = await openParquet(file, { wasmURL: '/pqscan/pqscan.wasm' })
        const s = f.scan(q)
        const t = await s.toTable()
        return { ...normRows(t), read: s.http.bytes, url: f.metadata.url }
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}` }
      }
    },
    { url: srv.data + 'events.parquet', q },
  )
  assert.equal(got.error, undefined, got.error)
  assert.deepEqual(got.rows, want.rows)
  assert.equal(got.url, 'events.parquet')
  assert.ok(got.read > 0 && got.read < size / 10, `read ${got.read} of ${size} bytes`)
})

test('a server that ignores Range: one download, same rows', async () => {
  await fixturePage()
  const q = { where: SAMPLE_WHERE, columns: ['tenant_id', 'event_type', 'value'] }
  const want = goRows(path.join(sampleDir, 'events.parquet'), q)
  const got = await scanInPage(srv.data + 'fault/ignore-range/events.parquet', q, {})
  assert.equal(got.error, undefined, got.error)
  assert.deepEqual(got.rows, want.rows)
  assert.equal(got.open.requests, 1, 'the whole file came with the first response')
  assert.equal(got.http.requests, 0, 'the scan was served from it')
})
