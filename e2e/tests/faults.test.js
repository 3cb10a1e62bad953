// Server faults through the bridge in headless Chromium (the Worker engine, the browser's
// fetch): every faultserver mode gives the Go engine's rows or a clear coded error, never a
// silent part of the rows. Its own pqserve, so the "once" modes count from zero.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { startServer, startBrowser, goRows, sampleDir, holdRequests } from './harness.js'

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
      try {
        const f = await openParquet(url, { wasmURL: '/pqscan/pqscan.wasm', backoffMs: 5, ...opts })
        const s = f.scan(q)
        const t = await s.toTable()
        return { ...normRows(t), http: s.http, open: f.metadata.http }
      } catch (e) {
        return { error: `${e.code ?? e.name}: ${e.message}`, code: e.code ?? e.name }
      }
    },
    { url, q, opts },
  )
}

const cases = [
  { mode: 'reset-once' },
  { mode: '503-once' },
  { mode: '429-once' },
  // The cross-origin server redirects to a third origin, outside the open's scope: the browser
  // follows it (its target is hidden until requested), and the bridge refuses the response.
  { mode: 'redirect', cross: true, code: 'scope' },
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

// The slow first byte, held for as long as the test wants (holdRequests). The deadline, a real
// AbortSignal.timeout, starts once the request is held, so it passes while the first byte is
// outstanding: the open must end with its TimeoutError while the response is still held.
test('slow first byte past an AbortSignal.timeout deadline: TimeoutError while the response is held', async () => {
  const held = await holdRequests(br.ctx, '**/fault/slow/**')
  try {
    await page.evaluate((url) => {
      const ctrl = new AbortController()
      window.__deadline = () => {
        const t = AbortSignal.timeout(100)
        t.addEventListener('abort', () => ctrl.abort(t.reason), { once: true })
      }
      window.__result = (async () => {
        const { openParquet } = await import('/pqscan/dist/pqscan.js')
        try {
          const f = await openParquet(url, { wasmURL: '/pqscan/pqscan.wasm', signal: ctrl.signal })
          await f.scan({ signal: ctrl.signal }).toTable()
          return { name: 'none' }
        } catch (e) {
          return { name: e.name, code: e.code }
        }
      })()
    }, srv.data + 'fault/slow/events.parquet')
    await held.whenHeld(1) // the footer request is in flight, unanswered
    const got = await page.evaluate(() => (window.__deadline(), window.__result))
    assert.equal(got.name, 'TimeoutError', JSON.stringify(got))
    assert.equal(held.routes.length, 1, 'one request, not answered before the open ended')
  } finally {
    await held.release()
  }
})
