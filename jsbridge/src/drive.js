// drive is the one NeedRanges → fetch → Push loop of the bridge (wasm/ABI.md, "A scan, host
// side"). Core.openFile and Core.scan both run it, and every host goes through Core: the page
// ({worker: false}), the Worker (worker.js owns a Core) and Node (either).
//
// The loop also holds the stall guard, as the Go host does (wazerohost ErrStalled): an engine
// that asks again for exactly the ranges it was just given, with no batch or metadata step in
// between, would loop forever; it fails with code "stalled" instead.

import { NEED_RANGES, BATCH, DONE, ERROR, METADATA } from './module.js'
import { PqscanError, abortReason } from './errors.js'

/**
 * Drives the open handle h of inst, fetching from src (HttpSource or BlobSource), and yields
 * every step to the caller, who decides when to stop (breaking out is fine: the caller owns
 * the handle and closes it):
 *
 *   {type: 'ranges', ranges}  NeedRanges, before fetching them ([{off, len}])
 *   {type: 'pushed', ranges}  after every range was fetched and pushed
 *   {type: 'metadata'}        the footer is decoded (kind 5): pq_metadata and pq_schema answer
 *   {type: 'batch', ipc}      one batch's Arrow IPC stream (copied out of the module)
 *   {type: 'done'}            the scan ended; the generator returns after it
 *
 * Throws the signal's reason when aborted, the source's errors, and PqscanError codes "scan"
 * (the engine's error step), "stalled" and "abi" (a step kind this bridge does not know).
 * @param {import('./module.js').Instance} inst
 * @param {number} h
 * @param {{size: number, fetchRanges(ranges, signal, deliver): Promise<void>}} src
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
  for (;;) {
    if (signal?.aborted) throw abortReason(signal)
    const k = inst.next(h)
    if (k === NEED_RANGES) {
      const ranges = inst.ranges(h)
      const key = rangesKey(ranges)
      if (key === last) {
        throw new PqscanError('stalled', `pqscan: the engine asked again for the ranges it was just given (${key}) without progress (${label})`)
      }
      last = key
      yield { type: 'ranges', ranges }
      await src.fetchRanges(ranges, signal, push)
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
      throw new PqscanError('scan', `pqscan: ${inst.error(h) || 'scan failed'} (${label})`)
    } else {
      throw new PqscanError('abi', `pqscan: pq_next returned ${k}: ${inst.error(h)}`)
    }
  }
}

// The ranges as one comparable string, in the engine's order ("off+len off+len …").
function rangesKey(ranges) {
  return ranges.map((r) => `${r.off}+${r.len}`).join(' ')
}
