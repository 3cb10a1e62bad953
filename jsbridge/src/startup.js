// Start-up helpers of Core (BENCHMARKS.md "Where a cold start goes"): work of an engine's
// first open moved off the critical path of a cold page's first query.

import { Instance, NEED_RANGES, NEED_RANGES_AS_ARRIVED, BATCH, DONE } from './module.js'
import { httpDefaults } from './http.js'
import { mark } from './marks.js'

// The first pq_report of an instance runs code no open has run (the report's encoder and
// strconv's float formatting, which V8 compiles at their first call). Written by hand
// (internal/scan report_json.go, no reflection) it is a few functions, still compiled here
// rather than at the scan's end. After the instance's first open it is made on a throwaway
// session in the next task, while the caller decodes the schema and asks for its scan, so
// that scan's report costs what later ones do. The same work, moved into idle time; a scan
// asked for meanwhile waits at most for what its own report would have cost. Errors are
// ignored: it is only a warm-up.
export function warmReport(inst) {
  if (!(inst instanceof Instance) || inst.reportWarm) return // test doubles log every call: left alone
  inst.reportWarm = true
  setTimeout(() => {
    if (inst.dead) return
    try {
      const h = inst.open({})
      try {
        inst.report(h)
      } finally {
        inst.close(h)
      }
      mark('report.warmed')
    } catch {}
  }, 0)
}

// WARM_IDLE_MS: how long an engine must go unused before it warms up. A query that comes
// meanwhile pays nothing for the warm-up; one that comes during it waits for the step in
// progress (a step of the warm-up's first scan compiles for tens of ms), so the bound keeps
// programmatic sequences (open, then scan a moment later) clear of it and leaves it to the
// idle time of pages waiting for their user (measured: a query 600 ms after init()).
export const WARM_IDLE_MS = 200

// warmQuery scans a small embedded file (internal/warmup: common types, encodings and codecs)
// twice, a filtered scan and a whole one, on the started instance while the engine is idle:
// V8 compiles each wasm function at its first call, on the calling thread, so a first query
// otherwise spends about as long compiling as working (BENCHMARKS.md, "Where a cold first
// query's time goes"). The compiled code belongs to the module, so every instance of it (and
// a pool's Workers, which share the compiled module) gains. One engine call per task: a real
// call waits at most one step, and idle() turning false (a call came) stops it. Errors are
// ignored: it is only a warm-up. Not for an engine started by its first query, which has no
// idle time to use (a warm-up beside a query compiles the same functions at the same time).
export function warmQuery(inst, idle) {
  if (!(inst instanceof Instance) || inst.queryWarm) return
  inst.queryWarm = true
  let file = null
  let where = ''
  let h = 0
  let scans = 0
  const stop = () => {
    if (h) {
      try {
        inst.close(h)
      } catch {}
    }
    h = 0
  }
  const step = () => {
    if (inst.dead || !idle()) return stop()
    try {
      if (!h) {
        h = inst.open({ fileSize: file.length, tailSize: 4096, ...(scans === 0 ? { where } : {}) })
      }
      const k = inst.next(h)
      if (k === NEED_RANGES || k === NEED_RANGES_AS_ARRIVED) {
        for (const r of inst.ranges(h)) inst.push(h, r.off, file.subarray(r.off, r.off + r.len))
      } else if (k === BATCH) {
        inst.ipc(h)
      } else {
        if (k !== DONE) return stop() // a module that cannot read the file: nothing more to warm
        inst.report(h)
        stop()
        if (++scans === 2) return mark('query.warmed')
      }
    } catch {
      return stop()
    }
    setTimeout(step, 0)
  }
  setTimeout(() => {
    if (!idle()) return
    import('./warmup-file.js').then((m) => {
      file = Uint8Array.from(atob(m.WARMUP_FILE), (c) => c.charCodeAt(0))
      where = m.WARMUP_WHERE
      step()
    }, () => {})
  }, WARM_IDLE_MS)
}

// Fetches the range the engine's first step asks for (scan/run.go stTail: the last
// min(tailSize, size) bytes; with the size unknown, the suffix probe of getSize) and keeps it
// in the source, where the engine's own request then finds it (HttpSource.fromMemory, behind
// the gate that lets the first request through alone). Same request, same bytes, same counts:
// only sooner. keep(off, bytes) keeps a piece in the source.
export function prefetchTail(src, tailSize, signal, keep) {
  mark('open.prefetch')
  if (!(src.size >= 0)) return src.getSize(signal)
  const tl = Math.min(tailSize > 0 ? tailSize : httpDefaults.tailSize, src.size)
  if (tl <= 0) return Promise.resolve()
  return src.fetchRanges([{ off: src.size - tl, len: tl }], signal, keep)
}
