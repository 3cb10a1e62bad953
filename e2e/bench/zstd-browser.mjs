// zstd decoders in Chromium, on the pages of a real scan (e2e/bench/NOTES.md): the
// Node counterpart bench/v8/zstdpages.mjs runs in Node's V8, whose tier-up and code quality
// differ from Chromium's. The module scans FILE's COLUMNS through the bridge in Node with a
// recording host decoder; the pages go to a headless Chromium page (Debian's chromium via
// playwright-core), which decodes them with each decoder module, ROUNDS rounds interleaved, and
// prints each one's median and first/last rounds (the first ones include V8's tier-up).
//
//   node e2e/bench/zstd-browser.mjs FILE.parquet COLUMNS [ROUNDS] [extra.wasm,...]
//
// Decoders: zstddec's module (what the bridge uses), plus any builds given that export
// memory, malloc, free, ZSTD_decompress and ZSTD_isError and import nothing.
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { recordZstdPages } from '../../bench/v8/record-pages.mjs'

const [file, cols, roundsArg = '15', extra = ''] = process.argv.slice(2)
const require = createRequire(new URL('../package.json', import.meta.url))
const { chromium } = require('playwright-core')
const jsRequire = createRequire(new URL('../../jsbridge/package.json', import.meta.url))

const { pages } = await recordZstdPages(file, cols.split(','))
let size = 8
for (const p of pages) size += 8 + p.src.length
const packed = new Uint8Array(size)
const dv = new DataView(packed.buffer)
dv.setUint32(0, pages.length, true)
let o = 8
for (const p of pages) {
  dv.setUint32(o, p.cap, true)
  dv.setUint32(o + 4, p.src.length, true)
  packed.set(p.src, o + 8)
  o += 8 + p.src.length
}
const zstddecJS = readFileSync(jsRequire.resolve('zstddec'), 'utf8')
const files = new Map([['/pages.bin', packed], ['/zstddec.wasm', Buffer.from(zstddecJS.match(/const wasm = "([A-Za-z0-9+/=]+)"/)[1], 'base64')]])
for (const f of extra.split(',').filter(Boolean)) files.set('/' + f.split('/').pop(), readFileSync(f))

// The page's side: every decoder gets its own buffers, sized for the largest page.
async function inPage(mods, rounds) {
  const buf = new Uint8Array(await (await fetch('/pages.bin')).arrayBuffer())
  const dv = new DataView(buf.buffer)
  const pages = []
  let o = 8, maxCap = 0, maxLen = 0
  for (let i = 0, n = dv.getUint32(0, true); i < n; i++) {
    const cap = dv.getUint32(o, true), len = dv.getUint32(o + 4, true)
    pages.push({ cap, src: buf.subarray(o + 8, o + 8 + len) })
    o += 8 + len
    maxCap = Math.max(maxCap, cap)
    maxLen = Math.max(maxLen, len)
  }
  const decs = []
  for (const name of mods) {
    const { instance } = await WebAssembly.instantiate(await (await fetch(name)).arrayBuffer(), { env: { emscripten_notify_memory_growth: () => {} } })
    const x = instance.exports
    const sp = x.malloc(maxLen) >>> 0, dp = x.malloc(maxCap) >>> 0
    decs.push({ name, times: [], out: 0, fn: (p) => {
      new Uint8Array(x.memory.buffer, sp, p.src.length).set(p.src)
      return x.ZSTD_decompress(dp, p.cap, sp, p.src.length) >>> 0
    } })
  }
  for (const d of decs) for (const p of pages) d.out += d.fn(p)
  for (let r = 0; r < rounds; r++) for (const d of decs) { const t0 = performance.now(); for (const p of pages) d.fn(p); d.times.push(performance.now() - t0) }
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
  return decs.map((d) => ({ name: d.name, out: d.out, median: med(d.times), first: d.times.slice(0, 3), last: d.times.slice(-3) }))
}

const srv = http.createServer((req, res) => {
  if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html>')
  const b = files.get(req.url)
  if (!b) return res.writeHead(404).end()
  res.writeHead(200, { 'content-type': req.url.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream' }).end(b)
}).listen(0, '127.0.0.1')
await new Promise((r) => srv.once('listening', r))
const br = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] })
try {
  const page = await br.newPage()
  await page.goto(`http://127.0.0.1:${srv.address().port}/`)
  const mods = [...files.keys()].filter((k) => k.endsWith('.wasm'))
  const res = await page.evaluate(`(${inPage})(${JSON.stringify(mods)}, ${Number(roundsArg)})`)
  const outs = new Set(res.map((r) => r.out))
  if (outs.size !== 1) throw new Error(`decoders disagree on the decoded bytes: ${res.map((r) => `${r.name} ${r.out}`).join(', ')}`)
  console.log(`${pages.length} pages, ${(res[0].out / 2 ** 20).toFixed(1)} MiB out; columns ${cols}; ${roundsArg} rounds; ${(await br.version())}`)
  const f = (a) => a.map((t) => t.toFixed(0)).join(' ')
  for (const r of res) console.log(`${r.name.padEnd(24)} median ${r.median.toFixed(1)} ms; first rounds ${f(r.first)}, last ${f(r.last)}`)
} finally {
  await br.close()
  srv.close()
}
