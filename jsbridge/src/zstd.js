// The JS hosts' answer to the module's import pqscan_host.zstd_decompress (wasm/ABI.md "Host
// imports"): the reference C zstd, compiled to wasm by the zstddec package (its 54 KB module is
// embedded in the package as base64, so the bundle works offline).
//
// Why: the module links no ZSTD decoder of its own (internal/decode/codec/zstd.go: it would
// cost ~139 KB brotli of the module), so ZSTD pages are read only through this import; and the
// C decoder compiled to wasm is also the fastest of the alternatives measured in V8
// (BENCHMARKS.md). The bytes go guest memory → decoder memory → guest memory: two copies,
// far cheaper than the decode.
//
// The bounds are the Go host's (wazerohost/hostzstd.go): the module has already bounded the
// buffer by the page header, its memory cap and the input's possible expansion; the decoder is
// given exactly that capacity, so it stops with dstSize_tooSmall (-3) rather than exceed it;
// every other decoder error is -2; a result larger than the capacity is never trusted. The
// module words every answer itself, so errors read the same on every host and natively.

// zstddec (74 KB of JS with its module as base64) is imported when the decoder loads, beside the
// engine's compile: the page bundle of a Worker engine never needs it, and its split build
// (mk/js.mk) then leaves it in a chunk of its own instead of in the code evaluated before the
// engine's start.

// Answers of zstd_decompress besides a decoded length (internal/decode/codec/zstd.go).
export const ZSTD_NOT_PROVIDED = -1
export const ZSTD_CORRUPT = -2
export const ZSTD_TOO_LARGE = -3
export const ZSTD_HOST_FAILED = -4 // the decoder's own failure (its memory), not the page's

// zstd's public error code for "destination buffer is too small" (zstd_errors.h, stable since
// v1.3): ZSTD_decompress returns it as (size_t)-70.
const ERR_DST_SIZE_TOO_SMALL = 70

// HOST_ZSTD_MAX bounds the memory the decoder keeps between pages: its memory is the host's,
// outside the guest's memory cap, and wasm memory never shrinks. A page that grows it past
// this is still decoded (the module has no other decoder, and the page is within the module's
// cap), and then the decoder is replaced by a fresh instance of the same compiled module, so
// the grown memory is collected. Parquet writers cut pages at about 1 MiB, so this only ever
// meets unusual or hostile files.
export const HOST_ZSTD_MAX = 64 << 20

/**
 * A zstd decoder instance (one per thread: the page's, or a Worker's) and the two buffers in
 * its memory that pages are copied through, grown when a page needs more and then reused.
 */
export class ZstdDecoder {
  /**
   * @param {{memory: WebAssembly.Memory, malloc: Function, free: Function, ZSTD_decompress: Function, ZSTD_isError: Function}} x
   *   the decoder's exports
   * @param {(() => Promise<object>) | null} [renew] a fresh instance's exports, for replacing a
   *   decoder whose memory grew past maxBytes or that trapped; null: keep this one
   * @param {number} [maxBytes] the decoder's memory kept between pages (tests lower it)
   */
  constructor(x, renew = null, maxBytes = HOST_ZSTD_MAX) {
    this.renew = renew
    this.maxBytes = maxBytes
    this.renewing = null // the replacement being instantiated
    this.calls = 0 // pages asked for (tests check that a scan used the decoder)
    this.renewals = 0 // instances replaced (tests check the memory bound)
    this.use(x)
  }

  // Starts over with the exports x (null: none until a replacement is ready).
  use(x) {
    this.x = x
    this.src = 0
    this.srcCap = 0
    this.dst = 0
    this.dstCap = 0
  }

  // Replaces the instance once a fresh one is instantiated; pages asked for meanwhile are
  // decoded by the old one (or, after a trap, answered ZSTD_HOST_FAILED). Import calls are
  // synchronous, so the swap never happens during one.
  retire() {
    if (this.renewing || !this.renew) return
    this.renewing = this.renew()
      .then((x) => {
        this.use(x)
        this.renewals++
      })
      .catch(() => {}) // kept as it is; the next page that needs it tries again
      .finally(() => (this.renewing = null))
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
   * or ZSTD_CORRUPT / ZSTD_TOO_LARGE / ZSTD_HOST_FAILED. Writes nothing into guest memory
   * outside [dst, +result). Never throws: the import runs inside a module call, where an
   * exception would be a trap.
   * @param {WebAssembly.Memory} guest the module's memory
   */
  decompress(guest, dst, dstCap, src, srcLen) {
    this.calls++
    dst >>>= 0
    dstCap >>>= 0
    src >>>= 0
    srcLen >>>= 0
    const g = guest.buffer
    if (src + srcLen > g.byteLength || dst + dstCap > g.byteLength) return ZSTD_HOST_FAILED // a bug, not the page
    if (!this.x) return ZSTD_HOST_FAILED // trapped, and the replacement is not ready
    try {
      const sp = this.buffer('src', 'srcCap', Math.max(srcLen, 1))
      const dp = sp && this.buffer('dst', 'dstCap', Math.max(dstCap, 1))
      if (sp === 0 || dp === 0) return ZSTD_HOST_FAILED // the decoder's memory cannot grow
      // Views of the decoder's memory are taken after malloc, which may have grown it.
      new Uint8Array(this.x.memory.buffer, sp, srcLen).set(new Uint8Array(g, src, srcLen))
      const r = this.x.ZSTD_decompress(dp, dstCap, sp, srcLen) >>> 0
      if (this.x.ZSTD_isError(r)) return 2 ** 32 - r === ERR_DST_SIZE_TOO_SMALL ? ZSTD_TOO_LARGE : ZSTD_CORRUPT
      if (r > dstCap) return ZSTD_TOO_LARGE // never trusted
      new Uint8Array(g, dst, r).set(new Uint8Array(this.x.memory.buffer, dp, r))
      return r
    } catch {
      // The decoder trapped: its heap may be inconsistent, so it is not asked again.
      this.use(null)
      this.retire()
      return ZSTD_HOST_FAILED
    } finally {
      if (this.x && this.x.memory.buffer.byteLength > this.maxBytes) this.retire()
    }
  }
}

let loading = null

/**
 * The thread's decoder, loaded once: a promise of a ZstdDecoder, or of null when the decoder
 * cannot be had here (then the import answers "not provided", and the module fails on the
 * first ZSTD page with an error that says so).
 * @returns {Promise<ZstdDecoder|null>}
 */
export function loadZstd() {
  if (!loading) loading = load().catch(() => null)
  return loading
}

// zstddec keeps its instance private; its declared _init hook receives the instantiation
// result, which gives the raw exports (malloc, ZSTD_decompress, …) so that pages need not go
// through decode()'s per-call allocations and extra copy, and the compiled module, from which
// a replacement instance is made (ZstdDecoder.retire). If another user of zstddec in this
// realm already initialized it, _init is not called again and the decoder is not provided.
async function load() {
  const { ZSTDDecoder } = await import('zstddec')
  const d = new ZSTDDecoder()
  let res = null
  const base = d._init
  d._init = (r) => {
    res = r
    return base.call(d, r)
  }
  await d.init()
  const x = checked(res?.instance?.exports)
  if (!x) return null
  const module = res.module
  // The module's one import tells zstddec's JS of memory growth; a replacement is used only
  // through its exports, whose memory views are taken on every call.
  const renew = module instanceof WebAssembly.Module
    ? async () => {
      const fresh = checked((await WebAssembly.instantiate(module, { env: { emscripten_notify_memory_growth: () => {} } })).exports)
      if (!fresh) throw new Error('zstd: the new instance lacks an export')
      return fresh
    }
    : null
  return new ZstdDecoder(x, renew)
}

// The exports the decoder uses, or null when the instance lacks one.
function checked(x) {
  const fns = ['malloc', 'free', 'ZSTD_decompress', 'ZSTD_isError']
  if (!x || !(x.memory instanceof WebAssembly.Memory) || fns.some((f) => typeof x[f] !== 'function')) return null
  return x
}

/**
 * The pqscan_host import object for one module instance. decoder null: "not provided" (the
 * module then cannot read ZSTD pages).
 * memory() returns the instance's memory (known only once it is instantiated).
 * @param {ZstdDecoder|{decompress: Function}|null} decoder
 * @param {() => WebAssembly.Memory} memory
 */
export function hostImports(decoder, memory) {
  if (!decoder) return { zstd_decompress: () => ZSTD_NOT_PROVIDED }
  return { zstd_decompress: (dst, dstCap, src, srcLen) => decoder.decompress(memory(), dst, dstCap, src, srcLen) }
}
