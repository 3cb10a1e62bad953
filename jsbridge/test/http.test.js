// The HTTP rules of HttpSource, the same as the Go host's (internal/httprange/httpclient/http.go),
// against a local Node server that misbehaves on request (test/server.js), and against a fetch
// that holds every response until the test releases it (no test depends on timing).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { HttpSource, parseContentRange, parseRetryAfter } from '../src/http.js'
import { startServer } from './server.js'

const file = new Uint8Array(100_000).map((_, i) => (i * 7) & 255)
let srv
before(async () => {
  srv = await startServer(new Map([['/f', file]]))
})
after(() => srv.close())

const fast = { backoffMs: 1, maxBackoffMs: 2 }
function source(mode, opts = {}) {
  srv.reset()
  for (const k of Object.keys(srv.mode)) delete srv.mode[k]
  srv.release()
  if (mode) srv.mode['/f'] = mode
  return new HttpSource(srv.url + '/f', { ...fast, ...opts })
}
async function get(src, ranges, signal) {
  const out = new Map()
  await src.fetchRanges(ranges, signal, (off, b) => out.set(off, b.slice()))
  return out
}
const expectBytes = (b, off, len) => assert.deepEqual(b, file.subarray(off, off + len))

test('parseContentRange', () => {
  const cases = [
    ['bytes 0-9/100', { first: 0, last: 9, total: 100, unsatisfied: false }],
    ['bytes 5-5/*', { first: 5, last: 5, total: -1, unsatisfied: false }],
    ['bytes */100', { first: -1, last: -1, total: 100, unsatisfied: true }],
    ['bytes 9-0/100', null],
    ['bytes 0-100/100', null],
    ['bytes */*', null],
    ['bytes -1-5/10', null],
    ['bytes 0-9 /100', null],
    ['items 0-9/100', null],
    ['bytes 0-9/+100', null],
    ['', null],
    [null, null],
  ]
  for (const [s, want] of cases) assert.deepEqual(parseContentRange(s), want, String(s))
})

test('parseRetryAfter', () => {
  const now = Date.parse('Tue, 01 Jan 2030 00:00:00 GMT')
  assert.equal(parseRetryAfter('3', now), 3000)
  assert.equal(parseRetryAfter('Tue, 01 Jan 2030 00:00:05 GMT', now), 5000)
  assert.equal(parseRetryAfter('Mon, 31 Dec 2029 00:00:00 GMT', now), 0)
  assert.equal(parseRetryAfter('', now), -1)
  assert.equal(parseRetryAfter(null, now), -1)
  assert.equal(parseRetryAfter('soon', now), -1)
})

test('known size: plain bytes=a-b ranges, no probe, exact bytes', async () => {
  const src = source('', { fileSize: file.length })
  const got = await get(src, [{ off: 10, len: 100 }, { off: 50_000, len: 3 }, { off: 99_990, len: 10 }])
  expectBytes(got.get(10), 10, 100)
  expectBytes(got.get(50_000), 50_000, 3)
  expectBytes(got.get(99_990), 99_990, 10)
  assert.deepEqual(srv.log.map((l) => l.range).sort(), ['bytes=10-109', 'bytes=50000-50002', 'bytes=99990-99999'])
  assert.equal(src.stats.roundTrips, 1)
})

test('unknown size: one suffix request learns the size and serves the tail from memory', async () => {
  const src = source('', { tailSize: 1000 })
  const got = await get(src, [{ off: -1000, len: 1000 }])
  expectBytes(got.get(99_000), 99_000, 1000)
  assert.equal(src.size, file.length)
  await get(src, [{ off: 99_500, len: 100 }]) // inside the kept tail: no request
  assert.deepEqual(srv.log.map((l) => l.range), ['bytes=-1000'])
})

test('validators: If-Match on later requests; a changed file is "file-changed"', async () => {
  let src = source('', { fileSize: file.length })
  await get(src, [{ off: 0, len: 10 }])
  await get(src, [{ off: 10, len: 10 }])
  assert.equal(srv.log[0].ifMatch, undefined)
  assert.equal(srv.log[1].ifMatch, `"v1-${file.length}"`)

  src = source('change-after-first', { fileSize: file.length })
  await get(src, [{ off: 0, len: 10 }])
  await assert.rejects(get(src, [{ off: 10, len: 10 }]), (e) => e.code === 'file-changed' && /412/.test(e.message))
})

test('a size other than the given fileSize is "file-changed"', async () => {
  const src = source('', { fileSize: file.length + 1 })
  await assert.rejects(get(src, [{ off: 0, len: 10 }]), (e) => e.code === 'file-changed' && /size given in fileSize/.test(e.message))
})

test('a server that ignores Range: the body is read once and every range served from it', async () => {
  const src = source('ignore-range', { fileSize: file.length, concurrency: 4 })
  const ranges = Array.from({ length: 8 }, (_, i) => ({ off: i * 10_000, len: 500 }))
  const got = await get(src, ranges)
  for (const r of ranges) expectBytes(got.get(r.off), r.off, r.len)
  assert.equal(srv.log.length, 1, 'one download of the whole file')
  await get(src, [{ off: 12345, len: 7 }])
  assert.equal(srv.log.length, 1)
  assert.equal(src.stats.bytes, file.length)
})

test('Content-Range must match the request exactly', async () => {
  const src = source('wrong-range', { fileSize: file.length })
  await assert.rejects(get(src, [{ off: 100, len: 10 }]), (e) => e.code === 'bad-content-range')
})

test('a 206 without Content-Range names the CORS header to expose', async () => {
  const src = source('no-content-range', { fileSize: file.length })
  await assert.rejects(get(src, [{ off: 100, len: 10 }]), (e) => e.code === 'bad-content-range' && /Access-Control-Expose-Headers: Content-Range, Content-Length, ETag/.test(e.message))
})

test('Content-Encoding other than identity is an error', async () => {
  const src = source('gzip', { fileSize: file.length })
  await assert.rejects(get(src, [{ off: 100, len: 10 }]), (e) => e.code === 'encoding')
})

for (const mode of ['503-once', '429-once', 'reset-once']) {
  test(`retried: ${mode}`, async () => {
    const src = source(mode, { fileSize: file.length })
    const got = await get(src, [{ off: 0, len: 1000 }])
    expectBytes(got.get(0), 0, 1000)
    assert.equal(src.stats.retries, 1)
    assert.equal(srv.log.length, 2)
  })
}

test('a body shorter than announced is retried, then reported', async () => {
  const src = source('short-body', { fileSize: file.length, maxRetries: 2 })
  await assert.rejects(get(src, [{ off: 0, len: 1000 }]), (e) => e.code === 'short-body')
  assert.equal(srv.log.length, 3)
  assert.equal(src.stats.retries, 2)
})

test('404 is not retried', async () => {
  const src = source('404', { fileSize: file.length })
  await assert.rejects(get(src, [{ off: 0, len: 10 }]), (e) => e.code === 'http' && e.status === 404)
  assert.equal(srv.log.length, 1)
})

// A fetch that answers 206 with the file's bytes, but only when the test calls release():
// until then every request stays in flight, so what is in flight at a time is exact.
function heldFetch() {
  const f = { pending: [], inflight: 0, maxInflight: 0, aborted: 0 }
  f.fetch = (url, init) =>
    new Promise((resolve, reject) => {
      f.inflight++
      f.maxInflight = Math.max(f.maxInflight, f.inflight)
      const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(new Headers(init.headers).get('Range'))
      const body = file.slice(Number(a), Number(b) + 1)
      const headers = { 'Content-Range': `bytes ${a}-${b}/${file.length}`, 'Content-Length': String(body.length), ETag: '"v1"' }
      const req = {
        respond() {
          f.inflight--
          resolve(new Response(body, { status: 206, headers }))
        },
      }
      init.signal?.addEventListener('abort', () => {
        f.aborted++
        f.inflight--
        f.pending = f.pending.filter((r) => r !== req)
        reject(init.signal.reason)
      })
      f.pending.push(req)
    })
  // Answers what is in flight, then lets the source issue what it issues next.
  f.release = async () => {
    for (const r of f.pending.splice(0)) r.respond()
    await settle()
  }
  return f
}
// Runs every task the source has queued (fetch calls, body reads) before the next check.
const settle = () => new Promise((r) => setImmediate(r))

test('parallel requests never exceed the concurrency cap', async () => {
  const ranges = Array.from({ length: 20 }, (_, i) => ({ off: i * 1000, len: 100 }))
  for (const cap of [1, 3, 6]) {
    const f = heldFetch()
    const src = new HttpSource('http://held/f', { ...fast, fileSize: file.length, concurrency: cap, fetch: f.fetch })
    const first = get(src, [{ off: 0, len: 1 }]) // the first request shows that Range works
    await settle()
    await f.release()
    await first
    f.maxInflight = 0
    let done = false
    const all = get(src, ranges).finally(() => (done = true))
    await settle()
    assert.equal(f.inflight, cap, `cap ${cap}: in flight at once`)
    for (let i = 0; !done && i < 1000; i++) await f.release()
    assert.equal((await all).size, 20)
    assert.equal(f.maxInflight, cap, `cap ${cap}`)
  }
})

// Rounds taken as they arrive (drive.js) fetch the next ranges while a call is in flight:
// the cap is the source's, across its calls, not each call's.
test('concurrent fetchRanges calls share the concurrency cap', async () => {
  const f = heldFetch()
  const cap = 3
  const src = new HttpSource('http://held/f', { ...fast, fileSize: file.length, concurrency: cap, fetch: f.fetch })
  const first = get(src, [{ off: 0, len: 1 }])
  await settle()
  await f.release()
  await first
  f.maxInflight = 0
  let done = 0
  const a = get(src, Array.from({ length: 8 }, (_, i) => ({ off: i * 1000, len: 100 }))).finally(() => done++)
  const b = get(src, Array.from({ length: 8 }, (_, i) => ({ off: 50000 + i * 1000, len: 100 }))).finally(() => done++)
  await settle()
  assert.equal(f.inflight, cap, 'in flight at once over both calls')
  for (let i = 0; done < 2 && i < 1000; i++) await f.release()
  assert.equal((await a).size, 8)
  assert.equal((await b).size, 8)
  assert.equal(f.maxInflight, cap)
})

test('until Range support is known, requests go one at a time', async () => {
  const f = heldFetch()
  const src = new HttpSource('http://held/f', { ...fast, fileSize: file.length, concurrency: 6, fetch: f.fetch })
  const all = get(src, Array.from({ length: 6 }, (_, i) => ({ off: i * 1000, len: 100 })))
  await settle()
  // The first request is alone; the other five go together after its 206.
  assert.equal(f.inflight, 1)
  await f.release()
  assert.equal(f.inflight, 5)
  await f.release()
  assert.equal((await all).size, 6)
  assert.equal(f.maxInflight, 5)
})

// The timeout only turns a hang (an abort that is not honoured) into a failure.
test('abort cancels in-flight requests promptly', { timeout: 30_000 }, async () => {
  const src = source('', { fileSize: file.length })
  srv.hold()
  const ctrl = new AbortController()
  const p = get(src, [{ off: 0, len: 10 }, { off: 100, len: 10 }], ctrl.signal)
  await srv.whenHeld(1) // a request reached the server, which does not answer it
  ctrl.abort()
  // Rejected while the server still holds the response, and the request was dropped.
  await assert.rejects(p, (e) => e.name === 'AbortError')
  await srv.whenClosed(1)
  srv.release()
})
