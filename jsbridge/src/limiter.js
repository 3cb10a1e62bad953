// Limiter bounds the requests in flight: one per HttpSource by default, or one shared by the
// sources of a dataset (so `concurrency` bounds all its files), and held across overlapping
// fetchRanges calls of one source (rounds taken as they arrive can overlap).

import { abortReason } from './errors.js'

/**
 * A counting semaphore: at most n holders at a time. acquire(signal) resolves to a release
 * function (call it once).
 */
export class Limiter {
  constructor(n) {
    this.free = Math.max(1, n | 0)
    this.waiting = []
  }

  async acquire(signal) {
    if (signal?.aborted) throw abortReason(signal)
    if (this.free > 0) {
      this.free--
      return this.releaser()
    }
    await new Promise((resolve, reject) => {
      const w = { resolve: () => (signal?.removeEventListener('abort', onAbort), resolve()) }
      const onAbort = () => {
        this.waiting = this.waiting.filter((x) => x !== w)
        reject(abortReason(signal))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiting.push(w)
    })
    return this.releaser()
  }

  releaser() {
    let done = false
    return () => {
      if (done) return
      done = true
      const w = this.waiting.shift()
      if (w) w.resolve() // the slot passes to the next waiter
      else this.free++
    }
  }
}
