// One scan spread over a pool of Workers (the engine's option `workers`), the calling thread's
// half; core-units.js is the Workers' half. The engine's Worker plans the scan (a session that
// stops after the index round and cuts what is left into units: runs of rows, each scanned by
// its own session); when the units hold at least two units' worth of bytes they run on the
// pool, the engine's Worker included, one unit per Worker at a time, handed out as Workers
// free up; else the same scan goes on in the engine's Worker as one session, from the bytes
// the plan fetched. The pool's other Workers start on the first scan worth splitting (a
// selective query never starts them), each given the module this thread compiled once and
// the file's tail and index bytes, so it opens the file without a request.
//
// A dataset's units are runs of its files, or of a large file's rows (core-units.js
// planDataset: table sessions with filesFrom/filesTo and rowsFrom/rowsTo, each run's slice of
// an offset and a limit cut by the plan), planned in the engine's Worker (a plan session for
// each large file only); the pool's Workers open the dataset from the plan's share.
//
// Order and memory: batches are handed on in file order. The memory cap (memoryCap) is the
// scan's, shared as the native pool shares it (internal/unitpool): the accounted bytes are
// the estimated bytes of the units running (their compressed bytes) and the batches waiting
// here. A unit starts only when it fits within the cap, and a unit that is not the one the
// output waits for (the head) waits with a batch while the accounted bytes are over it (its
// Worker then waits for acks: worker.js WINDOW). The head never waits, so the scan always
// progresses, and units start at most 2×workers past it. The report's peakBytes is the most
// the accounted bytes reached. Errors and cancellation are a single scan's: the first unit
// error (or the abort) stops every unit and is what the scan throws, with no batch after it.

import { abortReason } from './errors.js'
import { openTighten, closeTighten, tightenVia } from './tighten.js'

/**
 * The least compressed bytes a unit holds: below it a unit's own session start and index
 * decode cost more than a core saves, and a scan with less than two units' worth (or a file
 * smaller than that) runs as one session, as without a pool.
 */
export const UNIT_MIN_BYTES = 1 << 20

/** The cap of the default pool size: most scans saturate the network or memory before more. */
export const MAX_DEFAULT_WORKERS = 4

/** The engine's default memory cap (protocol.DefaultMemoryCap), when the scan sets none. */
const DEFAULT_MEMORY_CAP = 256 << 20

/**
 * The default pool size: the cores the platform reports but one, which the calling thread
 * needs to take the batches (decoding IPC, the application's own work), capped; 1 (no pool)
 * on one or two cores. Measured in headless Chromium on two cores (BENCHMARKS.md, "A scan over
 * a pool of Workers"): two Workers beside the page made Q3 slower on the 1M-row-group files.
 */
export async function defaultWorkers() {
  let n = globalThis.navigator?.hardwareConcurrency
  if (!(n > 0) && typeof process !== 'undefined') {
    try {
      const os = await import('node:os')
      n = os.availableParallelism?.() ?? os.cpus().length
    } catch {}
  }
  return Math.max(1, Math.min(MAX_DEFAULT_WORKERS, n > 0 ? n - 1 : 1))
}

/**
 * Whether a scan with options o may be split: its answer must be its units' answers in order,
 * and each unit's slice known before it runs (with a where, which rows an offset or a limit
 * keeps depends on the rows before).
 */
export function splittable(o = {}) {
  const where = o.where != null && String(o.where).trim() !== ''
  return !o.count && !o.minMax && !o.orderBy && !o.explain && (!where || (!(o.limit > 0) && !(o.offset > 0)))
}

/**
 * Joins consecutive units of the plan ([rowGroup, start, end, bytes]) into units of about
 * target bytes: a run of rows across row groups is a unit too (its session prunes the rows
 * between them again with the same indexes).
 */
export function mergeUnits(units, target) {
  const out = []
  let cur = null
  for (const [, start, end, bytes] of units) {
    if (cur && cur.end === start && cur.bytes + bytes <= target * 1.25) {
      cur.end = end
      cur.bytes += bytes
    } else {
      cur = { start, end, bytes }
      out.push(cur)
    }
  }
  return out
}

/**
 * The scan of file on eng (a WorkerEngine) over its pool of `workers`: yields the messages of
 * WorkerEngine.scan ({type: 'batch', ipc} in file order, then {type: 'done', report, http}).
 */
export async function* scanPooled(eng, file, opts, hooks, workers) {
  let plan = null
  const minBytes = eng.opts.unitMinBytes ?? UNIT_MIN_BYTES // tests lower it to split small files
  for await (const m of eng.scanOne(file, opts, { ...hooks, plan: { minBytes } })) {
    if (m.type === 'units') {
      plan = m
      break
    }
    yield m // the plan found nothing worth splitting: the one session's messages
  }
  if (plan) yield* runUnits(eng, plan, opts, hooks, workers, minBytes)
}

async function* runUnits(eng, plan, opts, { signal, onProgress, control }, workers, minBytes) {
  const files = plan.units[0]?.files != null // a dataset's runs of files
  const total = files ? 0 : plan.units.reduce((n, u) => n + u[3], 0)
  const units = files ? plan.units : mergeUnits(plan.units, Math.max(minBytes, total / (2 * workers)))
  const ctrl = new AbortController()
  const onAbort = () => ctrl.abort(abortReason(signal))
  if (signal?.aborted) onAbort()
  signal?.addEventListener('abort', onAbort, { once: true })
  const { limit, offset, ...unitOpts } = opts // the plan narrowed the units to the slice
  const st = units.map((u, i) => ({ u, i, q: [], done: false, report: null, http: null, progress: null, wake: null, control: {} }))
  const cap = opts.memoryCap > 0 ? opts.memoryCap : DEFAULT_MEMORY_CAP
  let held = 0 // accounted bytes: units running and batches waiting here
  let peak = 0
  const account = (n) => {
    held += n
    peak = Math.max(peak, held)
  }
  const members = [{ eng, file: plan.file, used: false }]
  const free = [0]
  const tights = [] // runtime filters accepted so far: every unit starts with them
  const running = new Set()
  let head = 0
  let next = 0
  let failed = null
  let notify = null
  const wakeAll = () => {
    notify?.()
    for (const s of st) s.wake?.()
  }
  const take = (s) => {
    const ipc = s.q.shift()
    account(-ipc.byteLength)
    for (const u of st) u.wake?.()
    startMore()
    return ipc
  }
  const fail = (e) => {
    if (failed) return
    failed = e
    ctrl.abort(e)
    wakeAll()
  }
  if (control) {
    // A filter goes to the units running and, at once, to every unit that starts later;
    // one the engine refuses is taken back.
    openTighten(control, async (where) => {
      tights.push(where)
      try {
        await Promise.all([...running].map((s) => tightenVia(s.control, where)))
      } catch (e) {
        tights.splice(tights.indexOf(where), 1)
        throw e
      }
    })
  }
  const progress = () => {
    if (!onProgress) return
    const p = { phase: 'scan', bytesPlanned: 0, bytesFetched: 0, requests: 0, roundTrips: 0, batches: 0, rowsReturned: 0 }
    for (const s of st) for (const k of Object.keys(p)) if (k !== 'phase' && s.progress) p[k] += s.progress[k] ?? 0
    p.phase = 'decode'
    try {
      onProgress(p)
    } catch {}
  }
  const run = async (s, mi) => {
    const m = members[mi]
    m.used = true
    running.add(s)
    account(s.u.bytes)
    for (const w of tights) tightenVia(s.control, w).catch(() => {})
    const unit = files ? { files: s.u.files, offset: s.u.offset, limit: s.u.limit, rows: s.u.rows } : [s.u.start, s.u.end]
    const hooks = { signal: ctrl.signal, control: s.control, unit, onProgress: onProgress && ((p) => ((s.progress = p), progress())) }
    try {
      for await (const r of m.eng.scanOne(m.file, unitOpts, hooks)) {
        if (r.type === 'batch') {
          s.q.push(r.ipc)
          account(r.ipc.byteLength)
          notify?.()
          while (s.i !== head && held > cap && s.q.length > 0 && !failed) await new Promise((w) => (s.wake = w))
          if (failed) return
        } else if (r.type === 'done') {
          s.report = r.report
          s.http = r.http
        }
      }
      s.done = true
    } catch (e) {
      fail(e)
    } finally {
      account(-s.u.bytes)
      running.delete(s)
      free.push(mi)
      notify?.()
      startMore()
    }
  }
  // The next unit starts on a free Worker when it is the head, or within the window and the cap.
  const fits = () => next === head || (next < head + 2 * members.length && held + st[next].u.bytes <= cap)
  const startMore = () => {
    while (!failed && free.length > 0 && next < st.length && fits()) run(st[next++], free.shift())
  }
  // The pool's other Workers, started and given the file as they come (the engine's Worker
  // runs units meanwhile): a Worker that fails to start leaves the scan to the others.
  eng.poolHelpers(Math.min(workers, units.length) - 1).forEach((h) =>
    h.adopt(plan.file, plan.share).then(
      (file) => {
        if (failed || head >= st.length) return
        members.push({ eng: h, file, used: false })
        free.push(members.length - 1)
        startMore()
      },
      () => {},
    ),
  )
  startMore()
  let finished = false
  try {
    while (head < st.length) {
      if (failed) throw failed
      const s = st[head]
      if (s.q.length > 0) {
        yield { type: 'batch', ipc: take(s) }
      } else if (s.done) {
        head++
        st[head]?.wake?.()
        startMore()
      } else {
        await new Promise((r) => (notify = r))
        notify = null
      }
    }
    if (failed) throw failed
    finished = true
    const used = members.filter((m) => m.used).length
    const reports = st.map((s) => s.report)
    const report = files ? mergeTableReports(reports, units) : mergeReports(plan.report, reports)
    Object.assign(report, { units: st.length, threads: used, peakBytes: peak })
    yield { type: 'done', report, http: sumHttp([plan.http, ...st.map((s) => s.http)]) }
  } finally {
    signal?.removeEventListener('abort', onAbort)
    if (!finished) fail(new DOMException('The scan was aborted.', 'AbortError')) // stops every unit
    if (control) closeTighten(control)
  }
}

// The scan's report: the plan's (footer and index levels) with the units' data phases added,
// as the native engine merges its units' (internal/scan/units_report.go); runUnits adds the
// units and Workers it ran on (units, threads: the native report's names).
export function mergeReports(plan, reports) {
  const r = { ...plan, rowGroups: plan.rowGroups?.map((g) => ({ ...g })) }
  const sums = ['pagesAfterLateMaterialization', 'rowsScanned', 'rowsMatched', 'rowsReturned', 'bytesRequested', 'bytesPushed', 'requests', 'roundTrips', 'dictionariesLazy', 'rowsAllMatch', 'rowGroupsSkippedRuntime', 'rowsSkippedRuntime', 'valuesSkipped', 'pagesCrcUnverified']
  for (const u of reports) {
    if (!u) continue
    for (const k of sums) if (typeof u[k] === 'number') r[k] = (r[k] ?? 0) + u[k]
    if (typeof u.runtimeFilters === 'number') r.runtimeFilters = Math.max(r.runtimeFilters ?? 0, u.runtimeFilters)
    if (!r.lateMaterialization && u.lateMaterialization) r.lateMaterialization = u.lateMaterialization
    if (u.phasesMs) {
      r.phasesMs = { ...r.phasesMs }
      for (const [k, v] of Object.entries(u.phasesMs)) r.phasesMs[k] = (r.phasesMs[k] ?? 0) + v
    }
    for (const g of u.rowGroups ?? []) {
      const line = r.rowGroups?.[g.index]
      if (!line || g.skippedBy === 'unit') continue
      line.pagesRead = (line.pagesRead ?? 0) + (g.pagesRead ?? 0)
      line.rowsMatched = (line.rowsMatched ?? 0) + (g.rowsMatched ?? 0)
    }
  }
  return r
}

// A dataset's report from its units' (each a table session over the whole file list that
// read its own run of files, or a run of one file's rows): the counts of files the plan
// levels kept are every unit's, the others add up, but for a file cut into runs of rows,
// whose size and totals are counted once (its first run's) and whose files line adds its
// runs' bytes and rows.
export function mergeTableReports(reports, units) {
  const first = reports.find((r) => r) ?? {}
  const r = { ...first }
  const same = new Set(['filesTotal', 'filesAfterPartitions', 'filesAfterStats', 'runtimeFilters'])
  const whole = new Set(['fileSize', 'rowGroupsTotal', 'pagesTotal', 'rowsTotal', 'filesRead', 'filesNoResidual'])
  const firstRun = (j) => !units[j].rows || units.findIndex((u) => u.files[0] === units[j].files[0]) === j
  reports.forEach((u, j) => {
    for (const [k, v] of Object.entries(u ?? {})) {
      if (typeof v !== 'number' || same.has(k) || (whole.has(k) && !firstRun(j))) continue
      r[k] = (u === first ? 0 : r[k] ?? 0) + v
    }
  })
  const phases = {}
  for (const u of reports) for (const [k, v] of Object.entries(u?.phasesMs ?? {})) phases[k] = (phases[k] ?? 0) + v
  if (first.phasesMs) r.phasesMs = phases
  if (first.files) {
    r.files = first.files.map((line, i) => {
      const runs = units.flatMap((u, j) => (u.files[0] <= i && i < u.files[1] && reports[j]?.files?.[i] ? [reports[j].files[i]] : []))
      if (runs.length < 2) return runs[0] ?? line
      const read = runs.find((x) => !x.skippedBy) ?? runs[0]
      const sum = (k) => runs.reduce((n, x) => n + (x[k] ?? 0), 0)
      const rowGroups = read.rowGroups?.map((g, k) => runs.map((x) => x.rowGroups?.[k]).find((y) => y && y.skippedBy !== 'unit') ?? g)
      return { ...read, bytesRequested: sum('bytesRequested'), rowsReturned: sum('rowsReturned'), ...(rowGroups ? { rowGroups } : {}) }
    })
  }
  return r
}

/** The HTTP counters of a scan plus those of the plan it followed (worker-client.js). */
export const addHttp = (a, b) => (!a || !b ? a : sumHttp([a, b]))

function sumHttp(list) {
  const t = { requests: 0, bytes: 0, retries: 0, roundTrips: 0 }
  for (const h of list) if (h) for (const k of Object.keys(t)) t[k] += h[k] ?? 0
  return t
}
