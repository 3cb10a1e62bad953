// getObject (src/http-object.js), the one whole-object GET of listings and Delta logs: the
// range source's retries (5xx, 429 with Retry-After), validators pinned across retries, and
// the size cap checked per chunk while the body streams (bytes counted as the server hands
// them out, not time); then the same through listDataset and openDataset on a Delta table.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { getObject } from '../src/http-object.js'
import { listDataset } from '../src/listing.js'
import { openDataset, terminateDefaultEngines } from '../src/index.js'
import { startServer } from './server.js'
import { corpusDir, wasmPath } from './helpers.js'

const table = 'dat/basic_append/delta'
let srv
before(async () => {
  const files = new Map()
  const dir = path.join(corpusDir(), 'delta', table)
  const add = (rel) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) add(r)
      else files.set(`/t/${r}`, new Uint8Array(readFileSync(path.join(dir, r))))
    }
  }
  add('')
  files.set('/obj.json', new TextEncoder().encode('{"a":1}\n'))
  srv = await startServer(files)
})
after(async () => {
  terminateDefaultEngines()
  await srv.close()
})

const reset = () => {
  srv.reset()
  for (const k of Object.keys(srv.mode)) delete srv.mode[k]
}

// A pull stream of `total` bytes (Infinity: endless) in chunks, counting what it hands out.
function countingFetch({ total = Infinity, chunk = 4096, contentLength } = {}) {
  const served = { bytes: 0 }
  const fetch = async () => {
    let left = total
    const body = new ReadableStream({
      pull(ctrl) {
        if (left <= 0) return ctrl.close()
        const n = Math.min(chunk, left)
        left -= n
        served.bytes += n
        ctrl.enqueue(new Uint8Array(n).fill(0x20))
      },
    })
    const headers = contentLength != null ? { 'Content-Length': String(contentLength) } : {}
    return new Response(body, { status: 200, headers })
  }
  return { fetch, served }
}

test('getObject: a body over the cap fails having read about the cap, and nothing when Content-Length says so', async () => {
  const cap = 64 << 10
  const chunk = 4096
  for (const [name, contentLength, most] of [['streamed', undefined, cap + 3 * chunk], ['Content-Length', 1 << 30, chunk]]) {
    const { fetch, served } = countingFetch({ chunk, contentLength })
    await assert.rejects(getObject('http://127.0.0.1/big.json', { fetch, maxBytes: cap }), (e) => e.code === 'too-large' && e.message.includes('big.json') && e.message.includes(String(cap)), name)
    assert.ok(served.bytes <= most, `${name}: ${served.bytes} bytes served, at most ${most} expected`)
  }
  const { fetch } = countingFetch({ total: cap })
  assert.equal((await getObject('http://127.0.0.1/ok.json', { fetch, maxBytes: cap })).length, cap, 'exactly the cap is fine')
})

test('getObject: 503 and 429 are retried (Retry-After honoured), 404 is null, 500 every time fails naming the URL', async () => {
  for (const [mode, retryAfter] of [['503-once'], ['429-once', '0'], ['429-once', '1']]) {
    reset()
    srv.mode['/obj.json'] = mode
    if (retryAfter) srv.mode.retryAfter = retryAfter
    // maxRetryAfterMs: a Retry-After of 1 s waits 1 ms here.
    const b = await getObject(`${srv.url}/obj.json`, { maxRetryAfterMs: 1, backoffMs: 1 })
    assert.equal(new TextDecoder().decode(b), '{"a":1}\n', mode)
    assert.equal(srv.log.length, 2, `${mode}: requests`)
  }
  reset()
  assert.equal(await getObject(`${srv.url}/nope.json`), null)
  assert.equal(srv.log.length, 1, '404 is not retried')
  reset()
  srv.mode['/obj.json'] = '500'
  await assert.rejects(getObject(`${srv.url}/obj.json`, { maxRetries: 2, backoffMs: 1 }), (e) => e.code === 'http' && e.status === 500 && /obj\.json: HTTP 500: internal error/.test(e.message))
  assert.equal(srv.log.length, 3, '500: the first attempt and 2 retries')
  reset()
})

test('getObject: a retry after a cut body asks for the same version; another version is file-changed', async () => {
  const calls = []
  const fetchWith = (secondETag) => async (url, init) => {
    calls.push(new Headers(init.headers).get('If-Match'))
    if (calls.length === 1) {
      const body = new ReadableStream({
        start(ctrl) {
          ctrl.enqueue(new Uint8Array(4))
          ctrl.error(new Error('connection reset'))
        },
      })
      return new Response(body, { status: 200, headers: { ETag: '"a"', 'Content-Length': '8' } })
    }
    return new Response(new Uint8Array(8), { status: 200, headers: { ETag: secondETag } })
  }
  const b = await getObject('http://127.0.0.1/c.json', { fetch: fetchWith('"a"'), backoffMs: 1 })
  assert.equal(b.length, 8)
  assert.deepEqual(calls, [null, '"a"'])
  calls.length = 0
  await assert.rejects(getObject('http://127.0.0.1/c.json', { fetch: fetchWith('"b"'), backoffMs: 1 }), (e) => e.code === 'file-changed' && /"a" → "b"/.test(e.message))
})

test('listDataset: a listing page over the cap fails having read about the cap', async () => {
  const { fetch, served } = countingFetch({ total: 40 << 20, chunk: 64 << 10 })
  await assert.rejects(listDataset('http://127.0.0.1/b/', { fetch }), (e) => e.code === 'too-large' && e.message.includes('list-type=2'))
  assert.ok(served.bytes <= (16 << 20) + 3 * (64 << 10), `${served.bytes} bytes served`)
})

test('listDataset: every page failing once with 503 or 429 is retried', async () => {
  for (const [list, retryAfter] of [['error-once'], ['429-once', '0'], ['429-once', '1']]) {
    reset()
    srv.mode.list = list
    srv.mode.listPage = 2
    if (retryAfter) srv.mode.retryAfter = retryAfter
    const got = await listDataset(`${srv.url}/t/_delta_log/*`, { maxRetryAfterMs: 1, backoffMs: 1 })
    const want = [...srv.entries()].filter(([p]) => /^\/t\/_delta_log\/[^/]+$/.test(p)).length
    assert.equal(got.length, want, list)
    const pages = Math.ceil(want / 2)
    assert.equal(srv.log.filter((l) => l.list).length, 2 * pages, `${list}: each of ${pages} pages twice`)
  }
  reset()
})

test('openDataset on a Delta table: a 503 or 429 on a commit is retried, listed and probed', async () => {
  const rows = async (o = {}) => (await (await openDataset(`${srv.url}/t/`, { worker: false, wasm: wasmPath, maxRetryAfterMs: 1, backoffMs: 1, ...o })).scan().toTable()).numRows
  reset()
  const want = await rows()
  assert.ok(want > 0)
  for (const list of [undefined, 'error']) {
    for (const [mode, retryAfter] of [['503-once'], ['429-once', '0'], ['429-once', '1']]) {
      reset()
      if (list) srv.mode.list = list // no listing: the bridge probes the log
      srv.mode['/t/_delta_log/00000000000000000001.json'] = mode
      if (retryAfter) srv.mode.retryAfter = retryAfter
      assert.equal(await rows(), want, `${mode} ${list ?? 'listed'}`)
      assert.equal(srv.log.filter((l) => l.path === '/t/_delta_log/00000000000000000001.json').length, 2, `${mode} ${list ?? 'listed'}: commit requests`)
    }
  }
  reset()
})
