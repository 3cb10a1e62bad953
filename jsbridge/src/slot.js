// The bridge's two modules (wasm/ABI.md): the lean one (single files, the common codecs:
// pqscan-lean.wasm, -tags pqscan_lean) that a page loads first, and the full one (datasets,
// Delta, Iceberg, every codec: pqscan.wasm), compiled only when a query needs it. A Slot is one
// of them: its compiled module, and the one live instance of it (recreated after a trap,
// dropped when idle and large).

import { Instance, compileModule } from './module.js'
import { loadZstd } from './zstd.js'
import { mark } from './marks.js'

/** The default locations of the modules, at the package root. */
export function defaultModules() {
  return { lean: new URL('../pqscan-lean.wasm', import.meta.url).href, full: new URL('../pqscan.wasm', import.meta.url).href }
}

export class Slot {
  /**
   * @param {any} src the module (see compileModule)
   * @param {{fallback?: any, create?: () => Promise<any>, name?: string}} [opts] fallback: the
   *   module compiled instead when src cannot be (a deployment that ships the full module
   *   only); create (testing): makes an Instance-like object in place of Instance.create; name:
   *   the slot's start marks ("full": full.compile, full.instance).
   */
  constructor(src, opts = {}) {
    this.src = src
    this.fallback = opts.fallback
    this.name = opts.name
    // The module's compilation and the host zstd decoder's (zstd.js, the module's only ZSTD
    // decoder) run side by side: both are needed before the instance, and neither waits for
    // the other.
    this.create = opts.create ?? (async () => {
      const zstd = loadZstd().then((z) => (mark('zstd.loaded'), z))
      const m = await this.module()
      return Instance.create(m, { zstd: await zstd })
    })
    this.modulePromise = null
    this.inst = null
    this.instPromise = null
    this.instances = 0 // instances created so far (tests check recreation after traps)
  }

  module() {
    if (!this.modulePromise) {
      if (this.name) mark(`${this.name}.compile`)
      let p = compileModule(this.src)
      if (this.fallback != null) p = p.catch(() => compileModule(this.fallback))
      this.modulePromise = p
      p.catch(() => (this.modulePromise = null))
    }
    return this.modulePromise
  }

  /** Whether a live instance exists (no start to wait for). */
  get live() {
    return !!(this.inst && !this.inst.dead)
  }

  async instance() {
    if (this.live) return this.inst
    if (!this.instPromise) {
      this.instPromise = (async () => {
        const i = await this.create()
        this.instances++
        this.inst = i
        if (this.name) mark(`${this.name}.instance`)
        return i
      })()
      this.instPromise.then(
        () => (this.instPromise = null),
        () => (this.instPromise = null),
      )
    }
    return this.instPromise
  }

  /** Drops the instance when it trapped or its memory grew past retireBytes (call when idle). */
  maybeRetire(retireBytes) {
    if (this.inst && (this.inst.dead || this.inst.memoryBytes > retireBytes)) this.inst = null
  }
}
