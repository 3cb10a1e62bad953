// What copying 32 MB out of a wasm memory costs in a headless Chromium page, by method
// (e2e/bench/NOTES.md: into fresh ArrayBuffers ~28 ms here, into a reused one ~5).
//
//   node e2e/bench/copyout-browser.mjs [EXTRA_CHROMIUM_FLAG]
import { createRequire } from 'node:module'
const require = createRequire(new URL('../package.json', import.meta.url))
const { chromium } = require('playwright-core')
const br = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', ...(process.argv[2] ? [process.argv[2]] : [])] })
const page = await br.newPage()
await page.goto('about:blank')
const res = await page.evaluate(() => {
  const mem = new WebAssembly.Memory({ initial: 1024 })
  const buf = new Uint8Array(mem.buffer); for (let i = 0; i < buf.length; i += 4096) buf[i] = i & 255
  const out = []
  const SZ = 512 << 10, N = 64
  const pre = new Uint8Array(32 << 20)
  const cases = {
    'copy into one preallocated buffer': () => { for (let i = 0; i < N; i++) pre.set(new Uint8Array(mem.buffer, i * SZ, SZ), i * SZ) },
    'new Uint8Array(SZ), kept': () => { const k = []; for (let i = 0; i < N; i++) k.push(new Uint8Array(SZ)); return k },
    'slice, kept': () => { const k = []; for (let i = 0; i < N; i++) k.push(new Uint8Array(mem.buffer, i * SZ, SZ).slice()); return k },
    'new + set, kept': () => { const k = []; for (let i = 0; i < N; i++) { const u = new Uint8Array(SZ); u.set(new Uint8Array(mem.buffer, i * SZ, SZ)); k.push(u) } return k },
    'buffer.slice, kept': () => { const k = []; for (let i = 0; i < N; i++) k.push(new Uint8Array(mem.buffer.slice(i * SZ, i * SZ + SZ))); return k },
    'slice, dropped': () => { for (let i = 0; i < N; i++) new Uint8Array(mem.buffer, i * SZ, SZ).slice() },
    'copy within wasm memory': () => { buf.copyWithin(48 << 20, 0, 32 << 20) },
  }
  for (let k = 0; k < 2; k++) for (const [name, f] of Object.entries(cases)) {
    const ts = []
    for (let r = 0; r < 15; r++) { const t0 = performance.now(); f(); ts.push(performance.now() - t0) }
    ts.sort((a, b) => a - b); out.push(`${name}: ${ts[7].toFixed(1)} ms per 32 MB`)
  }
  return out
})
console.log(res.join('\n'))
await br.close()
