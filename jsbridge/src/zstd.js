// The JS hosts' answer to the module's optional import pqscan_host.zstd_decompress (wasm/ABI.md
// "Host imports"): the reference C zstd, compiled to wasm by the zstddec package (its 54 KB
// module is embedded in the package as base64, so the bundle works offline).
//
// Why: inside the pqscan module ZSTD pages are decoded by klauspost's portable Go decoder, which
// was two thirds of a full scan in V8 (BENCHMARKS.md "wazero and V8 against native"); the C
// decoder compiled to wasm does the same work in a fraction of the time (e2e/bench/NOTES.md has
// the measurement against the alternatives). The bytes go guest memory → decoder memory →
// guest memory: two copies, far cheaper than the decode they replace.
//
// The bounds are the Go host's (wazerohost/hostzstd.go): the module has already bounded the
// buffer by the page header, its memory cap and the input's possible expansion; the decoder is
// given exactly that capacity, so it stops with dstSize_tooSmall (-3) rather than exceed it;
// every other decoder error is -2; a result larger than the capacity is never trusted. On any
// failure the module decodes the page again itself, so errors read the same on every host.

// zstddec (74 KB of JS with its module as base64) is imported when the decoder loads, beside the
// engine's compile: the page bundle of a Worker engine never needs it, and its split build
// (mk/js.mk) then leaves it in a chunk of its own instead of in the code evaluated before the
// engine's start.

// Results of zstd_decompress besides a decoded length (internal/decode/codec/hostzstd.go).
export const ZSTD_NOT_PROVIDED = -1
export const ZSTD_CORRUPT = -2
export const ZSTD_TOO_LARGE = -3

// zstd's public error code for "destination buffer is too small" (zstd_errors.h, stable since
// v1.3): ZSTD_decompress returns it as (size_t)-70.
const ERR_DST_SIZE_TOO_SMALL = 70

// HOST_ZSTD_MAX bounds the bytes (input plus output) a page may make the decoder hold: its
// memory is the host's, outside the guest's memory cap, and wasm memory never shrinks. Larger
// pages are declined (-2) and the module decodes them itself, within its own cap. Parquet
// writers cut pages at about 1 MiB, so this only ever meets hostile or unusual files.
export const HOST_ZSTD_MAX = 64 << 20

/**
 * A zstd decoder instance (one per thread: the page's, or a Worker's) and the two buffers in
 * its memory that pages are copied through, grown when a page needs more and then reused.
 */
export class ZstdDecoder {
  /** @param {{memory: WebAssembly.Memory, malloc: Function, free: Function, ZSTD_decompress: Function, ZSTD_isError: Function}} x */
  constructor(x) {
    this.x = x
    this.src = 0
    this.srcCap = 0
    this.dst = 0
    this.dstCap = 0
    this.calls = 0 // pages asked for (tests check that a scan used the decoder)
    this.broken = false
  }

  // A buffer of at least n bytes in the decoder's memory at this[ptrKey], or 0 when malloc fails.
  buffer(ptrKey, capKey, n) {
    if (this[capKey] >= n && this[ptrKey] !== 0) return this[ptrKey]
    if (this[ptrKey] !== 0) this.x.free(this[ptrKey])
    const c = Math.max(n, 1 << 20)
    this[ptrKey] = this.x.malloc(c) >>> 0
    this[capKey] = this[ptrKey] === 0 ? 0 : c
    return this[ptrKey]
  }

  /**
   * Decodes the ZSTD frames at guest[src, +srcLen) into guest[dst, +dstCap): the decoded length,
   * or ZSTD_CORRUPT / ZSTD_TOO_LARGE. Writes nothing into guest memory outside [dst, +result).
   * Never throws: the import runs inside a module call, where an exception would be a trap.
   * @param {WebAssembly.Memory} guest the module's memory
   */
  decompress(guest, dst, dstCap, src, srcLen) {
    if (this.broken) return ZSTD_NOT_PROVIDED
    this.calls++
    dst >>>= 0
    dstCap >>>= 0
    src >>>= 0
    srcLen >>>= 0
    if (srcLen === 0 || dstCap === 0 || srcLen + dstCap > HOST_ZSTD_MAX) return ZSTD_CORRUPT
    const g = guest.buffer
    if (src + srcLen > g.byteLength || dst + dstCap > g.byteLength) return ZSTD_CORRUPT
    try {
      const sp = this.buffer('src', 'srcCap', srcLen)
      const dp = sp && this.buffer('dst', 'dstCap', dstCap)
      if (sp === 0 || dp === 0) return ZSTD_CORRUPT // the decoder's memory cannot grow: the module decodes
      // Views of the decoder's memory are taken after malloc, which may have grown it.
      new Uint8Array(this.x.memory.buffer, sp, srcLen).set(new Uint8Array(g, src, srcLen))
      const r = this.x.ZSTD_decompress(dp, dstCap, sp, srcLen) >>> 0
      if (this.x.ZSTD_isError(r)) return 2 ** 32 - r === ERR_DST_SIZE_TOO_SMALL ? ZSTD_TOO_LARGE : ZSTD_CORRUPT
      if (r > dstCap) return ZSTD_TOO_LARGE // never trusted
      new Uint8Array(g, dst, r).set(new Uint8Array(this.x.memory.buffer, dp, r))
      return r
    } catch {
      // The decoder trapped: its heap may be inconsistent, so it is not asked again; this
      // page (and every later one) is the module's to decode.
      this.broken = true
      return ZSTD_CORRUPT
    }
  }
}

let loading = null

/**
 * The thread's decoder, loaded once: a promise of a ZstdDecoder, or of null when the decoder
 * cannot be had here (then the import answers "not provided" and the module decodes itself).
 * @returns {Promise<ZstdDecoder|null>}
 */
export function loadZstd() {
  if (!loading) loading = load().catch(() => null)
  return loading
}

// zstddec keeps its instance private; its declared _init hook receives the instantiation
// result, which gives the raw exports (malloc, ZSTD_decompress, …) so that pages need not go
// through decode()'s per-call allocations and extra copy. If another user of zstddec in this
// realm already initialized it, _init is not called again and the decoder is not provided.
async function load() {
  const { ZSTDDecoder } = await import('zstddec')
  const d = new ZSTDDecoder()
  let inst = null
  const base = d._init
  d._init = (r) => {
    inst = r.instance
    return base.call(d, r)
  }
  await d.init()
  const x = inst?.exports
  const fns = ['malloc', 'free', 'ZSTD_decompress', 'ZSTD_isError']
  if (!x || !(x.memory instanceof WebAssembly.Memory) || fns.some((f) => typeof x[f] !== 'function')) return null
  return new ZstdDecoder(x)
}

/**
 * The pqscan_host import object for one module instance. decoder null: "not provided".
 * memory() returns the instance's memory (known only once it is instantiated).
 * @param {ZstdDecoder|{decompress: Function}|null} decoder
 * @param {() => WebAssembly.Memory} memory
 */
export function hostImports(decoder, memory) {
  if (!decoder) return { zstd_decompress: () => ZSTD_NOT_PROVIDED }
  return { zstd_decompress: (dst, dstCap, src, srcLen) => decoder.decompress(memory(), dst, dstCap, src, srcLen) }
}
