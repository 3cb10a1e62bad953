// BlobSource reads a local source — a Blob or File (a file the user picked or dropped), a
// hyparquet-style AsyncBuffer, a Node file (node-file.js) or a reader that lives on the other
// side of the Worker boundary (worker.js) — with the interface Core uses for HttpSource: size,
// stats, validators, pieces/keep, fetchRanges. A local source has a known size and no server,
// so there is no probe, no retry and no validator; each range is one read of that range only
// (blob.slice, AsyncBuffer.slice, FileHandle.read at an offset), never the rest of the file.
//
// Every kind is a reader {size, label, key, read(off, len, signal) → Promise<Uint8Array>}:
// key is what the engine's footer cache may rely on (an object id for immutable Blobs and
// AsyncBuffers; a Node file's identity and mtime).

import { PqscanError, abortReason } from './errors.js'

export class BlobSource {
  /** @param {Blob | {size: number, label: string, key: string, read: Function}} src a Blob, or a reader */
  constructor(src) {
    const r = typeof Blob !== 'undefined' && src instanceof Blob ? blobReader(src) : src
    this.reader = r
    this.size = r.size
    this.label = r.label
    this.validators = null
    this.stats = { requests: 0, bytes: 0, retries: 0, roundTrips: 0 }
    this.pieces = [] // bytes kept from the footer read, as HttpSource keeps them
  }

  keep(off, bytes) {
    this.pieces.push({ off, bytes })
  }

  /** Reads every range (off < 0: a suffix of -off bytes) and hands each to deliver(off, bytes). */
  async fetchRanges(ranges, signal, deliver) {
    let read = false
    const overlaps = this.calls > 0 // a call while another is in flight shares its round trip
    this.calls = (this.calls ?? 0) + 1
    try {
      for (let { off, len } of ranges) {
        if (signal?.aborted) throw abortReason(signal)
        if (off < 0) {
          off = Math.max(0, this.size + off)
          len = this.size - off
        }
        if (!(off >= 0) || !(len >= 0) || off + len > this.size) {
          throw new PqscanError('out-of-range', `pqscan: range [${off}, ${off + len}) outside the ${this.size}-byte ${this.label}`)
        }
        const kept = this.pieces.find((p) => off >= p.off && off + len <= p.off + p.bytes.length)
        if (kept) {
          deliver(off, kept.bytes.subarray(off - kept.off, off + len - kept.off))
          continue
        }
        const b = await this.reader.read(off, len, signal)
        if (!(b instanceof Uint8Array) || b.length !== len) {
          throw new PqscanError('short-body', `pqscan: read ${b?.length ?? 'nothing'} of ${len} bytes at ${off} of ${this.label}`)
        }
        read = true
        this.stats.requests++
        this.stats.bytes += b.length
        if (signal?.aborted) throw abortReason(signal)
        deliver(off, b)
      }
    } finally {
      this.calls--
      if (read && !overlaps) this.stats.roundTrips++
    }
  }
}

const ids = new WeakMap()
let lastId = 0
/** A number naming an object for its life (the footer-cache key of immutable sources). */
export function objectId(o) {
  let id = ids.get(o)
  if (id === undefined) ids.set(o, (id = ++lastId))
  return id
}

/** A reader over a Blob: one blob.slice() per range. */
export function blobReader(blob) {
  return {
    size: blob.size,
    label: typeof blob.name === 'string' && blob.name !== '' ? blob.name : 'Blob',
    key: `blob:${objectId(blob)}`,
    read: async (off, len) => new Uint8Array(await wrapRead(() => blob.slice(off, off + len).arrayBuffer(), 'Blob')),
  }
}

/** Whether x is an AsyncBuffer as hyparquet defines it: {byteLength, slice(start, end)}. */
export function isAsyncBuffer(x) {
  return x != null && typeof x === 'object' && !(x instanceof ArrayBuffer) && !ArrayBuffer.isView(x) && !(typeof Blob !== 'undefined' && x instanceof Blob) && typeof x.slice === 'function' && Number.isSafeInteger(x.byteLength) && x.byteLength >= 0
}

/**
 * A reader over an AsyncBuffer: slice(start, end) returns an ArrayBuffer (or a promise of one;
 * a typed array is taken too). The AsyncBuffer must not change: its size is read once.
 */
export function asyncBufferReader(ab, label = 'AsyncBuffer') {
  return {
    size: ab.byteLength,
    label,
    key: `async:${objectId(ab)}`,
    read: async (off, len) => {
      const b = await wrapRead(() => ab.slice(off, off + len), label)
      if (b instanceof ArrayBuffer) return new Uint8Array(b)
      if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
      throw new PqscanError('source', `pqscan: ${label}.slice(${off}, ${off + len}) gave ${b === null ? 'null' : typeof b}, not an ArrayBuffer`)
    },
  }
}

// Runs a read of a user's source: its own failure becomes a "source" PqscanError (an abort
// and a PqscanError pass as they are).
async function wrapRead(fn, label) {
  try {
    return await fn()
  } catch (e) {
    if (e instanceof PqscanError || e?.name === 'AbortError') throw e
    throw new PqscanError('source', `pqscan: reading ${label} failed: ${e?.message ?? e}`, { cause: e })
  }
}
