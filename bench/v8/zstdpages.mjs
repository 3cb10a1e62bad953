// ZSTD decoders for the JS host, in V8, on the pages of a real scan: the module scans FILE (the
// given columns, default all) through the JS bridge with a recording host decoder, which keeps
// every compressed page the module hands over (and its buffer capacity); then each decoder
// decodes all those pages into a buffer standing for guest memory, REPS rounds interleaved,
// and the decoded bytes are checked against the first decoder's.
//
//   node bench/v8/zstdpages.mjs FILE.parquet [REPS] [COLUMN,...]
//
// Decoders: "zstddec raw" (jsbridge/src/zstd.js, what the bridge uses), "zstddec decode()" (the
// package's own API: a malloc per page and a copy out), and, when installed (not dependencies
// of the package: `cd jsbridge && npm install --no-save fzstd @bokuweb/zstd-wasm`), fzstd (pure
// JS) and @bokuweb/zstd-wasm (the C decoder, built with its compressor).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { ZstdDecoder } from '../../jsbridge/src/zstd.js'
import { recordZstdPages } from './record-pages.mjs'

const [file, repsArg = '5', colsArg = ''] = process.argv.slice(2)
const reps = Number(repsArg)
const columns = colsArg ? colsArg.split(',') : []
const require = createRequire(new URL('../../jsbridge/package.json', import.meta.url))
const { ZSTDDecoder } = await import(pathToFileURL(require.resolve('zstddec')).href)

const { pages, ours } = await recordZstdPages(file, columns)
let inBytes = 0
let maxCap = 0
for (const p of pages) {
  inBytes += p.src.length
  maxCap = Math.max(maxCap, p.cap, p.src.length)
}

// The stand-in for guest memory: a page is copied in at 0, decoded to maxCap.
const guest = new WebAssembly.Memory({ initial: Math.ceil((2 * maxCap + 65536) / 65536) })
const gsrc = 0
const gdst = maxCap
const view = () => new Uint8Array(guest.buffer)

const decoders = [
  ['zstddec raw', () => {
    const d = new ZstdDecoder(ours.x) // the bridge's decoder, its own buffers
    return (p) => {
      view().set(p.src, gsrc)
      return d.decompress(guest, gdst, p.cap, gsrc, p.src.length)
    }
  }],
  ['zstddec decode()', () => {
    const d = new ZSTDDecoder()
    return (p) => {
      const out = d.decode(p.src, p.cap)
      view().set(out, gdst)
      return out.length
    }
  }],
]
try {
  const fzstd = require('fzstd')
  // With an output buffer fzstd returns the whole buffer, not the decoded length: it
  // allocates the output itself here, which is then copied in as the others' is.
  decoders.push(['fzstd', () => (p) => {
    const out = fzstd.decompress(p.src)
    if (out.length > p.cap) return -3
    view().set(out, gdst)
    return out.length
  }])
} catch {}
try {
  const bw = require('@bokuweb/zstd-wasm')
  await bw.init()
  const M = require(new URL('module.js', pathToFileURL(require.resolve('@bokuweb/zstd-wasm'))).pathname).Module // not exported
  decoders.push(['@bokuweb/zstd-wasm raw', () => {
    const sp = M._malloc(maxCap)
    const dp = M._malloc(maxCap)
    return (p) => {
      M.HEAPU8.set(p.src, sp)
      const r = M._ZSTD_decompress(dp, p.cap, sp, p.src.length) >>> 0
      if (M._ZSTD_isError(r)) return -2
      view().set(new Uint8Array(M.HEAPU8.buffer, dp, r), gdst)
      return r
    }
  }])
} catch {}

// ZSTD_WASM=a.wasm,b.wasm: other builds of zstd's C decoder that export what zstddec's does
// (memory, malloc, free, ZSTD_decompress, ZSTD_isError; no imports), driven by the bridge's
// ZstdDecoder (e2e/bench/NOTES.md: clang -O2/-O3, SIMD, bulk memory).
for (const f of (process.env.ZSTD_WASM || '').split(',').filter(Boolean)) {
  const { instance } = await WebAssembly.instantiate(readFileSync(f), {})
  decoders.push([f.split('/').pop(), () => {
    const d = new ZstdDecoder(instance.exports)
    return (p) => {
      view().set(p.src, gsrc)
      return d.decompress(guest, gdst, p.cap, gsrc, p.src.length)
    }
  }])
}
const runs = decoders.map(([name, make]) => ({ name, fn: make(), times: [] }))
// The first decoder's output of every page, to check the others (one untimed pass each).
const want = pages.map((p) => {
  const n = runs[0].fn(p)
  return n < 0 ? n : view().slice(gdst, gdst + n)
})
let outBytes = 0
for (const w of want) outBytes += w.length ?? 0
for (const r of runs.slice(1)) {
  for (let i = 0; i < pages.length; i++) {
    const n = r.fn(pages[i])
    const w = want[i]
    if (typeof w === 'number' ? n !== w : n !== w.length || !view().subarray(gdst, gdst + n).every((b, j) => b === w[j])) {
      throw new Error(`${r.name} decodes page ${i} differently`)
    }
  }
}
for (let rep = 0; rep < reps; rep++) {
  for (const r of runs) {
    const t0 = process.hrtime.bigint()
    for (const p of pages) r.fn(p)
    r.times.push(Number(process.hrtime.bigint() - t0) / 1e9)
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
console.log(`${pages.length} pages, ${(inBytes / 2 ** 20).toFixed(1)} MiB compressed → ${(outBytes / 2 ** 20).toFixed(1)} MiB; columns: ${columns.join(',') || 'all'}; ${reps} rounds`)
for (const r of runs) {
  const m = med(r.times)
  console.log(`${r.name.padEnd(24)} median ${m.toFixed(3)} s (${(outBytes / 2 ** 20 / m).toFixed(0)} MiB/s out); rounds ${r.times.map((t) => t.toFixed(3)).join(' ')}`)
}
