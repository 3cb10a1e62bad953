// BlobSource reads a local Blob or File (a file the user picked or dropped, bytes already in
// memory) with the interface Core uses for HttpSource: size, stats, validators, pieces/keep,
// fetchRanges. A Blob has a known size and no server, so there is no probe, no retry and no
// validator; each range is one blob.slice(), read without copying the rest of the file.

import { PqscanError, abortReason } from './errors.js'

export class BlobSource {
  /** @param {Blob} blob */
  constructor(blob) {
    this.blob = blob
    this.size = blob.size
    this.label = typeof blob.name === 'string' && blob.name !== '' ? blob.name : 'Blob'
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
        const b = new Uint8Array(await this.blob.slice(off, off + len).arrayBuffer())
        if (b.length !== len) {
          throw new PqscanError('short-body', `pqscan: read ${b.length} of ${len} bytes at ${off} of ${this.label}`)
        }
        read = true
        this.stats.requests++
        this.stats.bytes += b.length
        if (signal?.aborted) throw abortReason(signal)
        deliver(off, b)
      }
    } finally {
      if (read) this.stats.roundTrips++
    }
  }
}
