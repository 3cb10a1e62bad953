// The ZSTD pages of a real scan, for the decoder benchmarks (zstdpages.mjs in Node,
// e2e/bench/zstd-browser.mjs in Chromium): the module scans FILE's columns ([] = all) through
// the JS bridge with a recording host decoder, which keeps every compressed page the module
// hands over and its buffer capacity, and decodes it with the bridge's own decoder.
import { readFileSync } from 'node:fs'
import { Core } from '../../jsbridge/src/core.js'
import { Instance, compileModule } from '../../jsbridge/src/module.js'
import { loadZstd } from '../../jsbridge/src/zstd.js'

/** @returns {Promise<{pages: {src: Uint8Array, cap: number}[], ours: object}>} ours: the bridge's decoder. */
export async function recordZstdPages(file, columns) {
  const ours = await loadZstd()
  const pages = []
  const recorder = {
    decompress(guest, dst, dstCap, src, srcLen) {
      pages.push({ src: new Uint8Array(guest.buffer, src, srcLen).slice(), cap: dstCap })
      return ours.decompress(guest, dst, dstCap, src, srcLen)
    },
  }
  const module = await compileModule(readFileSync(new URL('../../wazerohost/pqscan.wasm', import.meta.url)))
  const core = new Core({ createInstance: () => Instance.create(module, { zstd: recorder }) })
  const { id } = await core.openFile(new Blob([readFileSync(file)]))
  for await (const _ of core.scan(id, { columns })) void _
  return { pages, ours }
}
