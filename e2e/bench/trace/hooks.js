// Timeline hooks (e2e/bench/timeline.js): performance marks around the bridge's
// steps, on whichever side this bundle runs (the page or the Worker), by wrapping prototype
// methods and the thread's fetch / postMessage. A diagnostic build only: jsbridge itself has no
// hooks, so what is timed is the code that ships, plus the ~µs cost of each mark.
import { Instance } from '../../../jsbridge/src/module.js'
import { HttpSource, Limiter } from '../../../jsbridge/src/http.js'

export const marks = []
// One clock for both threads: ms since the epoch, sub-ms (timeOrigin differs per thread).
export const now = () => performance.timeOrigin + performance.now()
export const mark = (ev, d) => marks.push({ t: now(), ev, d })

// Wraps obj[name] (sync or async) with a begin mark and an end mark carrying the duration.
export function span(obj, name, label = name, detail = () => undefined) {
  const f = obj[name]
  obj[name] = function (...a) {
    const t0 = now()
    const end = () => marks.push({ t: now(), ev: label, t0, d: detail.apply(this, a) })
    let r
    try {
      r = f.apply(this, a)
    } catch (e) {
      end()
      throw e
    }
    if (r && typeof r.then === 'function') return r.finally(end)
    end()
    return r
  }
}

export function hookEngine() {
  for (const n of ['next', 'push', 'ranges', 'dataRanges', 'metadata', 'schema', 'ipc', 'open', 'report', 'close', 'setSize']) {
    if (Instance.prototype[n]) span(Instance.prototype, n, `call ${n}`, n === 'push' ? (h, off, b) => `${off}+${b.length}` : undefined)
  }
  span(HttpSource.prototype, 'fetchRanges', 'fetchRanges', (r) => `${r.length} ranges`)
  span(HttpSource.prototype, 'send', 'send (fetch → headers)', (c, spec) => spec)
  span(HttpSource.prototype, 'tryRange', 'tryRange (fetch → body read)', (c, r) => `${r.off}+${r.len}`)
  span(Limiter.prototype, 'acquire', 'limiter')
}

// The thread's fetch: the synchronous part of each call (its dispatch), and every body chunk
// read (ReadableStreamDefaultReader.read resolving), counted per run.
export function hookFetch() {
  const f = globalThis.fetch
  globalThis.fetch = function (...a) {
    const t0 = now()
    const p = f.apply(this, a)
    marks.push({ t: now(), ev: 'fetch() call (sync)', t0 })
    return p
  }
  const read = ReadableStreamDefaultReader.prototype.read
  ReadableStreamDefaultReader.prototype.read = function (...a) {
    return read.apply(this, a).then((r) => {
      mark('body chunk', r.done ? 'done' : r.value.length)
      return r
    })
  }
}
