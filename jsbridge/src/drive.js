// drive is the one NeedRanges → fetch → Push loop of the bridge (wasm/ABI.md, "A scan, host
// side"). Core.openFile and Core.scan both run it, and every host goes through Core: the page
// ({worker: false}), the Worker (worker.js owns a Core) and Node (either).
//
// Table sessions (pq_open_table) go through the same loop: their requests are NeedData steps
// (kind 6) of (file, off, len) triples, fetched through one source per file (src is then an
// array of sources, index = the session's file index), every file's ranges in parallel.
//
// The ranges of a NeedRanges step of kind 8 (NEED_RANGES_AS_ARRIVED: the data rounds of a
// single-file scan, whose filter runs per row group as its bytes arrive,
// internal/scan/pipeline.go) are pushed as they arrive, and the engine is asked again after
// each arrival, before the rest of the round is in: each such step is fetched minus the
// ranges already in flight, and one with nothing new waits for the next arrival. A scan
// without a filter takes its data round this way too, decoding the row groups whose bytes
// are in while the rest arrive: a Batch keeps the requests in flight (they go on being
// pushed while the caller holds the batch). Any other step drops them (the engine asks again
// for what it still needs); kind 1 rounds are pushed whole before the next call.
//
// The loop also holds the stall guard, as the Go host does (wazerohost ErrStalled): an engine
// that asks again for exactly the ranges it was just given, with no batch or metadata step in
// between, would loop forever; it fails with code "stalled" instead. The same holds for
// NeedData: the same triples again without a batch or metadata step in between.

import { NEED_RANGES, NEED_RANGES_AS_ARRIVED, NEED_DATA, BATCH, DONE, ERROR, METADATA } from './module.js'
import { PqscanError, abortReason } from './errors.js'

/**
 * Drives the open handle h of inst, fetching from src (HttpSource or BlobSource), and yields
 * every step to the caller, who decides when to stop (breaking out is fine: the caller owns
 * the handle and closes it):
 *
 *   {type: 'ranges', ranges}  NeedRanges, before fetching them ([{off, len}]); for a table
 *                             session NeedData, [{file, off, len}]
 *   {type: 'pushed', ranges}  after every range of a 'ranges' step was fetched and pushed
 *   {type: 'metadata'}        the footer is decoded (kind 5): pq_metadata and pq_schema answer
 *   {type: 'batch', ipc}      one batch's Arrow IPC stream (copied out of the module)
 *   {type: 'done'}            the scan ended; the generator returns after it
 *
 * Throws the signal's reason when aborted, the source's errors, and PqscanError codes "scan"
 * (the engine's error step), "stalled" and "abi" (a step kind this bridge does not know).
 * @param {import('./module.js').Instance} inst
 * @param {number} h
 * @param {{size: number, fetchRanges(ranges, signal, deliver): Promise<void>}|Array<{size: number, url?: string, label?: string, fetchRanges(ranges, signal, deliver): Promise<void>}>} src
 *   one source, or for a table session one per file (in the session's file order)
 * @param {{signal?: AbortSignal, label?: string, sizeKnown?: boolean, onBytes?: (off: number, bytes: Uint8Array) => void}} [o]
 *   label: the file, for messages; sizeKnown: false when pq_open had no fileSize (the loop
 *   calls pq_set_size before the first push); onBytes: sees every piece before it is pushed.
 */
export async function* drive(inst, h, src, { signal, label = '', sizeKnown = true, onBytes } = {}) {
  let sized = sizeKnown
  const push = (off, b) => {
    if (!sized) {
      inst.setSize(h, src.size)
      sized = true
    }
    onBytes?.(off, b)
    inst.push(h, off, b)
  }
  let last = null // the ranges just pushed, until a batch or the metadata step shows progress
  // Requests in flight (single-file sessions): each range is pushed as it arrives and the
  // engine asked again before the round is complete, so that it filters the row groups whose
  // bytes are in while the rest arrive and asks for their output pages at once
  // (internal/scan/pipeline.go). A new NeedRanges is fetched minus what is in flight; one
  // whose every byte is in flight waits for the next arrival.
  const flights = new Set()
  const ended = [] // flights whose every range was pushed, not yet reported ('pushed')
  let failure = null
  let poked = false
  let wake = null
  const poke = () => {
    poked = true
    if (wake) wake()
  }
  const arrival = () => {
    if (poked) return
    return new Promise((resolve) => {
      wake = resolve
    })
  }
  const start = (ranges) => {
    const ctrl = new AbortController()
    const onAbort = () => ctrl.abort(abortReason(signal))
    signal?.addEventListener('abort', onAbort, { once: true })
    // left: bytes still to come (a suffix's length is a bound), so that a flight is reported
    // pushed before the engine is asked again after its last byte, as a whole round was.
    const f = { ranges, ctrl, dead: false, ended: false, left: ranges.reduce((n, r) => n + (r.off < 0 ? Infinity : r.len), 0) }
    flights.add(f)
    const end = () => {
      if (!f.dead && !f.ended) {
        f.ended = true
        flights.delete(f) // every byte is pushed: nothing of it is in flight any more
        ended.push(f)
      }
    }
    const deliver = (off, b) => {
      if (f.dead) return
      push(off, b)
      f.left -= b.length
      if (f.left <= 0) end()
      poke()
    }
    src.fetchRanges(ranges, ctrl.signal, deliver).then(
      end,
      (e) => {
        if (!f.dead && !failure) failure = { e }
      },
    ).finally(() => {
      signal?.removeEventListener('abort', onAbort)
      flights.delete(f)
      poke()
    })
  }
  // A step other than NeedRanges or a batch ends the round: what is still in flight is
  // dropped (the engine asks again for what it still needs).
  const drop = () => {
    for (const f of flights) {
      f.dead = true
      f.ctrl.abort() // an AbortError, never seen: a dead flight's outcome is ignored
    }
    flights.clear()
  }
  try {
    for (;;) {
      if (signal?.aborted) throw abortReason(signal)
      if (failure) throw failure.e
      while (ended.length) yield { type: 'pushed', ranges: ended.shift().ranges }
      poked = false
      wake = null
      const k = inst.next(h)
      if (k === NEED_RANGES_AS_ARRIVED) {
        const inFlight = []
        for (const f of flights) inFlight.push(...f.ranges)
        const fresh = subtract(inst.ranges(h), inFlight)
        if (fresh.length) {
          const key = rangesKey(fresh)
          if (key === last) {
            throw new PqscanError('stalled', `pqscan: the engine asked again for the ranges it was just given (${key}) without progress (${label})`)
          }
          last = key
          yield { type: 'ranges', ranges: fresh }
          start(fresh)
        } else if (!flights.size) {
          throw new PqscanError('stalled', `pqscan: the engine asked for no range (${label})`)
        }
        await arrival()
        continue
      }
      if (k !== BATCH) drop()
      if (k === NEED_RANGES || k === NEED_DATA) {
        const table = k === NEED_DATA
        if (table && !Array.isArray(src)) throw new PqscanError('abi', `pqscan: pq_next returned NeedData (6) for a single-file session (${label})`)
        const ranges = table ? inst.dataRanges(h) : inst.ranges(h)
        const key = table ? triplesKey(ranges) : rangesKey(ranges)
        if (key === last) {
          throw new PqscanError('stalled', `pqscan: the engine asked again for the ranges it was just given (${key}) without progress (${label})`)
        }
        last = key
        yield { type: 'ranges', ranges }
        if (table) await fetchFiles(inst, h, src, ranges, signal, onBytes)
        else await src.fetchRanges(ranges, signal, push)
        yield { type: 'pushed', ranges }
      } else if (k === BATCH) {
        last = null
        yield { type: 'batch', ipc: inst.ipc(h) }
      } else if (k === METADATA) {
        last = null
        yield { type: 'metadata' }
      } else if (k === DONE) {
        yield { type: 'done' }
        return
      } else if (k === ERROR) {
        const msg = inst.error(h) || 'scan failed'
        const e = new PqscanError(inst.errorCode(h, 'scan'), `pqscan: ${msg} (${label})`)
        if (Array.isArray(src)) {
          const s = fileOfError(msg, src)
          if (s) e.file = s.url ?? s.path
        }
        throw e
      } else {
        throw new PqscanError('abi', `pqscan: pq_next returned ${k}: ${inst.error(h)}`)
      }
    }
  } finally {
    drop()
  }
}

// subtract returns the parts of ranges ({off, len}) not covered by any of minus, in the order
// of ranges (Go: httprange.Subtract). Suffixes (off < 0) are kept; empty ranges dropped.
export function subtract(ranges, minus) {
  const m = minus.filter((r) => r.off >= 0 && r.len > 0).sort((a, b) => a.off - b.off)
  const merged = []
  for (const r of m) {
    const l = merged.at(-1)
    if (l && r.off <= l.end) l.end = Math.max(l.end, r.off + r.len)
    else merged.push({ off: r.off, end: r.off + r.len })
  }
  const out = []
  for (const r of ranges) {
    if (r.off < 0) {
      out.push(r)
      continue
    }
    let pos = r.off
    const end = r.off + r.len
    for (const c of merged) {
      if (pos >= end || c.off >= end) break
      if (c.end <= pos) continue
      if (c.off > pos) out.push({ off: pos, len: c.off - pos })
      pos = Math.max(pos, c.end)
    }
    if (pos < end) out.push({ off: pos, len: end - pos })
  }
  return out
}

// Fetches the triples of one NeedData step: grouped by file, every file's ranges through its
// own source, all files in parallel (each source keeps its concurrency limit; the sources of a
// dataset share one limiter). A suffix (off < 0) of a file listed without a size: once the
// source knows the size (its first response), pq_set_file_size before the file's first push.
// The first failure aborts the other files' requests and is thrown, naming its file.
export async function fetchFiles(inst, h, srcs, ranges, signal, onBytes) {
  const groups = new Map()
  for (const r of ranges) {
    if (!(r.file >= 0 && r.file < srcs.length)) throw new PqscanError('abi', `pqscan: NeedData names file ${r.file} of ${srcs.length}`)
    let g = groups.get(r.file)
    if (!g) groups.set(r.file, (g = { ranges: [], suffix: false }))
    g.ranges.push({ off: r.off, len: r.len })
    if (r.off < 0) g.suffix = true
  }
  // One controller per file: each source adds an abort listener to the signal it is given,
  // so one signal shared by every file of a step would pass EventTarget's limit of 10
  // listeners (Node's MaxListenersExceededWarning) on a dataset of more than 10 files.
  const ctrls = new Map([...groups.keys()].map((file) => [file, new AbortController()]))
  const abortAll = (reason) => ctrls.forEach((c) => c.abort(reason))
  const onAbort = () => abortAll(abortReason(signal))
  if (signal) {
    if (signal.aborted) throw abortReason(signal)
    signal.addEventListener('abort', onAbort, { once: true })
  }
  let failure = null
  try {
    await Promise.all(
      [...groups].map(async ([file, g]) => {
        const s = srcs[file]
        let sized = !g.suffix
        const deliver = (off, b) => {
          if (failure) return
          if (!sized) {
            inst.setFileSize(h, file, s.size)
            sized = true
          }
          onBytes?.(file, off, b)
          inst.pushFile(h, file, off, b)
        }
        try {
          await s.fetchRanges(g.ranges, ctrls.get(file).signal, deliver)
        } catch (e) {
          if (!failure) {
            failure = { e: nameFile(e, s) }
            abortAll(e)
          }
        }
      }),
    )
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  if (signal?.aborted) throw abortReason(signal)
  if (failure) throw failure.e
}

// Makes an error of a file's source name the file: `file` is set on a PqscanError, and its
// message gets the URL when it does not have it already, and for a deletion vector file the
// data file it serves (s.owner).
export function nameFile(e, s) {
  const name = s.url ?? s.label
  if (e instanceof PqscanError && name) {
    if (!e.message.includes(name)) e.message += ` (${name})`
    if (s.owner && !e.message.includes(s.owner)) e.message += ` (the deletion vector of ${s.owner})`
    if (e.file === undefined) e.file = name
  }
  return e
}

// The source of a table session's file that the engine's error message is about: the engine
// writes "<file path>: <error>" for an error of one file (tablescan, the path the host gave it:
// src.path), so the source whose path starts such a clause, the longest when several do (a
// path inside another's). Undefined for an error of the table itself.
export function fileOfError(msg, srcs) {
  let best
  for (const s of srcs) {
    const p = s.path ?? s.url
    if (!p) continue
    const at = msg.indexOf(`${p}: `)
    if (at >= 0 && (at === 0 || msg[at - 1] === ' ') && (!best || p.length > (best.path ?? best.url).length)) best = s
  }
  return best
}

// The triples of a NeedData step as one comparable string ("file:off+len …").
function triplesKey(ranges) {
  return ranges.map((r) => `${r.file}:${r.off}+${r.len}`).join(' ')
}

// The ranges as one comparable string, in the engine's order ("off+len off+len …").
function rangesKey(ranges) {
  return ranges.map((r) => `${r.off}+${r.len}`).join(' ')
}
