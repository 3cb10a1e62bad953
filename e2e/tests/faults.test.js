// Server faults through the bridge in headless Chromium (the Worker engine, the browser's
// fetch): every faultserver mode gives the Go engine's rows or a clear coded error, never a
// silent part of the rows. Its own pqserve, so the "once" modes count from zero.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { startServer, startBrowser, goRows, sampleDir } from './harness.js'

let srv, br, page, want
const Q = { where: "tenant_id = 42 AND event_type = 'purchase'", columns: ['tenant_id', 'user_id', 'value'] }

before(async () => {
  srv = await startServer()
  br = await startBrowser()
  page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
  await page.goto(srv.url + 'fixtures/blank.html')
  want = goRows(path.join(sampleDir, 'events.parquet'), Q)
  assert.ok(want.rows.length > 10, 'the query matches rows')
})
after(async () => {
  await br?.close()
  srv?.stop()
})

// One scan in the page: canonical rows and the HTTP counters, or the error's code and message.
function scanInPage(url, q, opts = {}) {
  return page.evaluate(
    async ({ url, q, opts }) => {
      const { openParquet } = await import('/pqscan/dist/pqscan.js')
      const { normRows } = await import('/fixtures/norm.js')
      const t0 = performance.now()
      try {
        const f = await openParquet(url, { wasmURL: '/pqscan/pqscan.wasm', backoffMs: 5, ...opts })
        const s = f.scan(q)
        const t = await s.toTable()
        return { ...normRows(t), http: s.http, open: f.metadata.http, ms: performance.now() - t0 }
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name, ms: performance.now() - t0 }
      }
    },
    { url, q, opts },
  )
}

const cases = [
  { mode: 'reset-once' },
  { mode: '503-once' },
  { mode: '429-once' },
  { mode: 'redirect', cross: true }, // the cross-origin server redirects to a third origin
  { mode: 'wrong-range', code: 'bad-content-range' },
  { mode: 'no-content-range', code: 'bad-content-range' },
  { mode: 'short-body', code: 'short-body' },
  { mode: 'reset-always', code: ['short-body', 'http'] },
  { mode: 'etag-change', code: 'file-changed' },
  { mode: 'truncate', code: 'file-changed' },
  // Chromium asks for identity when it sends Range and fails a gzip answer at the network level
  // (net::ERR_CONTENT_DECODING_FAILED, "Failed to fetch"), so the bridge's own Content-Encoding
  // check (code "encoding", tested in Node by jsbridge/test/http.test.js) is not reached.
  { mode: 'gzip', code: ['encoding', 'http'], netError: /ERR_CONTENT_DECODING_FAILED/ },
]

for (const c of cases) {
  test(`fault ${c.mode}: ${c.code ? `error "${[c.code].flat().join('" or "')}"` : "the Go engine's rows"}`, async () => {
    const base = c.cross ? srv.crossOrigin : srv.data
    const failed = []
    const onFail = (r) => failed.push(r.failure()?.errorText)
    br.ctx.on('requestfailed', onFail)
    const got = await scanInPage(base + `fault/${c.mode}/events.parquet`, Q).finally(() => br.ctx.off('requestfailed', onFail))
    if (c.netError) assert.ok(got.code === 'encoding' || failed.some((e) => c.netError.test(e)), `network errors: ${failed}`)
    if (c.code) {
      assert.ok([c.code].flat().includes(got.code), `want ${c.code}, got ${JSON.stringify(got)}`)
      assert.equal(got.rows, undefined, 'no rows with an error')
    } else {
      assert.equal(got.error, undefined, got.error)
      assert.deepEqual(got.rows, want.rows) // whole, never partial
    }
  })
}

test('slow first byte past an AbortSignal.timeout deadline: TimeoutError, promptly', async () => {
  const got = await page.evaluate(async (url) => {
    const { openParquet } = await import('/pqscan/dist/pqscan.js')
    const t0 = performance.now()
    try {
      const f = await openParquet(url, { wasmURL: '/pqscan/pqscan.wasm', signal: AbortSignal.timeout(300) })
      await f.scan({ signal: AbortSignal.timeout(300) }).toTable()
      return { name: 'none', ms: performance.now() - t0 }
    } catch (e) {
      return { name: e.name, code: e.code, ms: performance.now() - t0 }
    }
  }, srv.data + 'fault/slow/events.parquet')
  assert.ok(['TimeoutError', 'AbortError'].includes(got.name), JSON.stringify(got))
  assert.ok(got.ms < 1500, `stopped after ${got.ms} ms (a response takes 2 s)`)
})
