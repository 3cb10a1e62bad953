// Start-up helpers of Core (BENCHMARKS.md "Where a cold start goes"): work of an engine's
// first open moved off the critical path of a cold page's first query.

import { Instance } from './module.js'
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
