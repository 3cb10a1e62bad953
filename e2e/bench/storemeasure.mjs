// Which browser store the metadata cache uses (jsbridge/src/metacache-stores.js): IndexedDB
// against the Cache API in headless Chromium, in a page and in a Worker, for what a returning
// visit does: one get of a stored entry (64 KiB: a footer with its page index; 1 MiB: a large
// one) right after the page starts, and one put. Medians of 30 gets, ms.
//   node e2e/bench/storemeasure.mjs   (CHROMIUM=/usr/bin/chromium)
import { chromium } from 'playwright-core'
import http from 'node:http'

const page0 = `<!doctype html><script type="module">
const code = ${JSON.stringify(`
const idb = () => new Promise((res, rej) => { const r = indexedDB.open('m', 1); r.onupgradeneeded = () => r.result.createObjectStore('e', { keyPath: 'key' }); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error) })
const tx = (db, mode, f) => new Promise((res, rej) => { const t = db.transaction('e', mode); const out = f(t.objectStore('e')); t.oncomplete = () => res(out.result); t.onerror = () => rej(t.error) })
async function run() {
  const out = {}
  for (const n of [64 << 10, 1 << 20]) {
    const v = new Uint8Array(n).map((_, i) => i)
    let t0 = performance.now(); const db = await idb(); const open = performance.now() - t0
    t0 = performance.now(); await tx(db, 'readwrite', (s) => s.put({ key: 'k' + n, value: v })); const iput = performance.now() - t0
    const ig = []; for (let i = 0; i < 30; i++) { t0 = performance.now(); await tx(db, 'readonly', (s) => s.get('k' + n)); ig.push(performance.now() - t0) }
    db.close()
    t0 = performance.now(); const c = await caches.open('m'); const copen = performance.now() - t0
    t0 = performance.now(); await c.put('http://127.0.0.1/k' + n, new Response(v)); const cput = performance.now() - t0
    const cg = []; for (let i = 0; i < 30; i++) { t0 = performance.now(); const r = await c.match('http://127.0.0.1/k' + n); await r.arrayBuffer(); cg.push(performance.now() - t0) }
    const med = (a) => a.sort((x, y) => x - y)[a.length >> 1]
    out[n] = { idb: { open, put: iput, get: med(ig) }, cache: { open: copen, put: cput, get: med(cg) } }
  }
  return out
}`)}
const run = new Function(code + ';return run')()
window.page = run()
window.worker = new Promise((res) => { const w = new Worker(URL.createObjectURL(new Blob([code + ';run().then((r) => postMessage(r))'], { type: 'text/javascript' }))); w.onmessage = (e) => res(e.data) })
</script>`
const srv = http.createServer((q, r) => r.writeHead(200, { 'Content-Type': 'text/html' }).end(page0)).listen(0, '127.0.0.1')
await new Promise((r) => srv.once('listening', r))
const br = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] })
const p = await (await br.newContext()).newPage()
await p.goto(`http://127.0.0.1:${srv.address().port}/`)
p.on('pageerror', (e) => console.error('pageerror', e.message))
await p.waitForFunction(() => window.page && window.worker, null, { timeout: 20000 })
const r = { page: await p.evaluate(() => window.page), worker: await p.evaluate(() => window.worker) }
const f = (x) => x.toFixed(2)
for (const [where, o] of Object.entries(r)) for (const [n, m] of Object.entries(o)) console.log(`${where} ${n / 1024} KiB: IndexedDB open ${f(m.idb.open)} put ${f(m.idb.put)} get ${f(m.idb.get)} | Cache API open ${f(m.cache.open)} put ${f(m.cache.put)} get ${f(m.cache.get)} ms`)
await br.close()
srv.close()
