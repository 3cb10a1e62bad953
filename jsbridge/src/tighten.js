// Runtime filters (scan.tighten, wasm/ABI.md pq_tighten) between a Scan and whatever drives
// its session: Core in this thread, or the Worker behind WorkerClient. A control object is
// shared by both ends: control.tighten is set once the session is open (until then a tighten
// waits in control.pending) and becomes a no-op when the scan ends, when any tighten still
// waiting resolves, since there is nothing left to filter.

/** Applies (or queues) one tighten; resolves when the engine took it, rejects when it refused. */
export function tightenVia(control, where) {
  return new Promise((resolve, reject) => {
    if (control.tighten) {
      try {
        resolve(control.tighten(where))
      } catch (e) {
        reject(e)
      }
    } else {
      ;(control.pending ??= []).push({ where, resolve, reject })
    }
  })
}

/** The session is open: fn(where) applies a tighten from now on, starting with the queue. */
export function openTighten(control, fn) {
  control.tighten = fn
  for (const p of control.pending?.splice(0) ?? []) tightenVia(control, p.where).then(p.resolve, p.reject)
}

/** The scan ended: later tightens do nothing, and queued ones resolve. */
export function closeTighten(control) {
  control.tighten = () => {}
  for (const p of control.pending?.splice(0) ?? []) p.resolve()
}
