// The persistent metadata cache of the JS host (the twin of internal/metacache in Go): a
// file's tail bytes (footer and page indexes as fetched), its size and its validators, kept
// by URL across page loads and processes, so that a returning reader's first request is a
// data request. Entries have the Go host's byte layout (a Node process and the Go CLI may
// share a folder): magic "PQMC", format version, key, payload, CRC-32C; whatever a store
// gives back that is not an intact entry of this version for its key is a miss (and deleted).
// A store's errors (a quota, a full disk) never fail a scan: they are kept for the report.
//
// Stores (metacache-stores.js): a folder in Node, IndexedDB in browsers (page and Worker; on
// by default there), or any {get, put, delete} object (async or not; get gives a Uint8Array
// or null).

export const ENTRY_VERSION = 1
const MAGIC = [0x50, 0x51, 0x4d, 0x43] // "PQMC"

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let i = 0; i < 256; i++) {
    let c = i
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1
    t[i] = c >>> 0
  }
  return t
})()

export function crc32c(b) {
  let c = ~0
  for (let i = 0; i < b.length; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8)
  return ~c >>> 0
}

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()

/** Wraps payload in an entry for key. */
export function encodeEntry(key, payload) {
  const k = utf8.encode(key)
  const b = new Uint8Array(4 + 2 + 4 + k.length + 4 + payload.length + 4)
  const dv = new DataView(b.buffer)
  b.set(MAGIC, 0)
  dv.setUint16(4, ENTRY_VERSION, true)
  dv.setUint32(6, k.length, true)
  b.set(k, 10)
  dv.setUint32(10 + k.length, payload.length, true)
  b.set(payload, 14 + k.length)
  dv.setUint32(b.length - 4, crc32c(b.subarray(0, b.length - 4)), true)
  return b
}

/** The payload of an entry stored under key, or null when b is not one. */
export function decodeEntry(key, b) {
  if (!(b instanceof Uint8Array) || b.length < 18) return null
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength)
  if (MAGIC.some((m, i) => b[i] !== m) || dv.getUint16(4, true) !== ENTRY_VERSION) return null
  if (crc32c(b.subarray(0, b.length - 4)) !== dv.getUint32(b.length - 4, true)) return null
  const k = utf8.encode(key)
  const kl = dv.getUint32(6, true)
  if (kl !== k.length || 14 + kl > b.length - 4) return null
  for (let i = 0; i < kl; i++) if (b[10 + i] !== k[i]) return null
  const pl = dv.getUint32(10 + kl, true)
  if (pl !== b.length - 4 - 14 - kl) return null
  return b.subarray(14 + kl, 14 + kl + pl)
}

// Varints as Go's encoding/binary writes them (zigzag for signed), for numbers below 2^53.
function putUvarint(out, x) {
  while (x >= 0x80) {
    out.push((x % 0x80) | 0x80)
    x = Math.floor(x / 0x80)
  }
  out.push(x)
}
const putVarint = (out, x) => putUvarint(out, x >= 0 ? 2 * x : -2 * x - 1)

class Reader {
  constructor(b) {
    this.b = b
    this.i = 0
    this.bad = false
  }
  uvarint() {
    let x = 0
    let mul = 1
    for (let n = 0; n < 8; n++) {
      if (this.i >= this.b.length) break
      const c = this.b[this.i++]
      x += (c & 0x7f) * mul
      if (c < 0x80) return x
      mul *= 0x80
    }
    this.bad = true
    return 0
  }
  varint() {
    const u = this.uvarint()
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2
  }
  bytes() {
    const n = this.uvarint()
    if (this.bad || n > this.b.length - this.i) {
      this.bad = true
      return new Uint8Array(0)
    }
    const v = this.b.subarray(this.i, this.i + n)
    this.i += n
    return v
  }
}

// Numbers and length-prefixed byte strings, in the order written (the Go host's layout).
class Writer {
  constructor() {
    this.chunks = []
    this.nums = []
  }
  uvarint(x) {
    putUvarint(this.nums, x)
  }
  varint(x) {
    putVarint(this.nums, x)
  }
  bytes(b) {
    putUvarint(this.nums, b.length)
    this.chunks.push(Uint8Array.from(this.nums.splice(0)), b)
  }
  finish() {
    this.chunks.push(Uint8Array.from(this.nums.splice(0)))
    const out = new Uint8Array(this.chunks.reduce((n, c) => n + c.length, 0))
    let o = 0
    for (const c of this.chunks) {
      out.set(c, o)
      o += c.length
    }
    return out
  }
}

/** Encodes a tail {size, etag, lastModified, requests, roundTrips, pieces: [{off, bytes}]}. */
export function encodeTail(t) {
  const w = new Writer()
  w.varint(t.size)
  w.bytes(utf8.encode(t.etag ?? ''))
  w.bytes(utf8.encode(t.lastModified ?? ''))
  w.varint(t.requests ?? 0)
  w.varint(t.roundTrips ?? 0)
  w.uvarint(t.pieces.length)
  for (const p of t.pieces) {
    w.varint(p.off)
    w.bytes(p.bytes)
  }
  return w.finish()
}

/** Decodes encodeTail's bytes, or null when malformed (pieces out of order or outside the file). */
export function decodeTail(b) {
  const r = new Reader(b)
  const t = { size: r.varint() }
  t.etag = fromUtf8.decode(r.bytes())
  t.lastModified = fromUtf8.decode(r.bytes())
  t.requests = r.varint()
  t.roundTrips = r.varint()
  const n = r.uvarint()
  if (r.bad || !(t.size > 0) || n > b.length) return null
  t.pieces = []
  let end = -1
  for (let i = 0; i < n; i++) {
    const p = { off: r.varint(), bytes: r.bytes() }
    if (r.bad || p.off < end || p.off < 0 || p.off + p.bytes.length > t.size) return null
    end = p.off + p.bytes.length
    t.pieces.push(p)
  }
  return r.i === b.length ? t : null
}

/** Adds bytes at off to a tail's pieces, merging overlaps so that they stay sorted and disjoint. */
export function addPiece(t, off, bytes) {
  let lo = off
  let hi = off + bytes.length
  const keep = []
  const merged = []
  for (const p of t.pieces) (p.off + p.bytes.length < lo || p.off > hi ? keep : merged).push(p)
  for (const p of merged) {
    lo = Math.min(lo, p.off)
    hi = Math.max(hi, p.off + p.bytes.length)
  }
  const buf = new Uint8Array(hi - lo)
  for (const p of merged) buf.set(p.bytes, p.off - lo)
  buf.set(bytes, off - lo)
  keep.push({ off: lo, bytes: buf })
  keep.sort((a, b) => a.off - b.off)
  t.pieces = keep
}

/** Whether the tail's pieces hold every byte of [off, end). */
export function covers(t, off, end) {
  return off >= end || t.pieces.some((p) => p.off <= off && end <= p.off + p.bytes.length)
}

/**
 * Encodes a query's plan {size, etag, lastModified, ranges: [{off, len}]}: the data ranges a
 * scan of that version of the file requested (tailcache.js), fetched ahead by a returning
 * query with the same options.
 */
export function encodePlan(p) {
  const w = new Writer()
  w.varint(p.size)
  w.bytes(utf8.encode(p.etag ?? ''))
  w.bytes(utf8.encode(p.lastModified ?? ''))
  w.uvarint(p.ranges.length)
  for (const r of p.ranges) {
    w.varint(r.off)
    w.uvarint(r.len)
  }
  return w.finish()
}

/** Decodes encodePlan's bytes, or null when malformed (a range empty or outside the file). */
export function decodePlan(b) {
  const r = new Reader(b)
  const p = { size: r.varint() }
  p.etag = fromUtf8.decode(r.bytes())
  p.lastModified = fromUtf8.decode(r.bytes())
  const n = r.uvarint()
  if (r.bad || !(p.size > 0) || n > b.length) return null
  p.ranges = []
  for (let i = 0; i < n; i++) {
    const x = { off: r.varint(), len: r.uvarint() }
    if (r.bad || x.off < 0 || !(x.len > 0) || x.off + x.len > p.size) return null
    p.ranges.push(x)
  }
  return r.i === b.length ? p : null
}

const tailKey = (url) => `tail\u0000${url}`
const planKey = (url, fp) => `plan\u0000${url}\u0000${fp}`
const objectKey = (url) => `object\u0000${url}`
const deltaStateKey = (root) => `delta-state\u0000${root}`

/** Reads and writes entries in a store for the host; errors are swallowed and kept (err). */
export class MetaCache {
  constructor(store) {
    this.store = store
    this.err = null
    // Writes run one after another and a read waits for them, so that a file reopened at
    // once finds what its last scan stored.
    this.pending = Promise.resolve()
  }

  async tail(url) {
    const key = tailKey(url)
    await this.pending
    try {
      let b = await this.store.get(key)
      if (b == null) return null
      if (!(b instanceof Uint8Array)) b = ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : b instanceof ArrayBuffer ? new Uint8Array(b) : null
      const p = b && decodeEntry(key, b)
      const t = p && decodeTail(p)
      if (t && (t.etag || t.lastModified)) return t
      await this.store.delete(key)
    } catch (e) {
      this.fail(e)
    }
    return null
  }

  /** Stores a tail; one without a validator is not kept (a replaced file would go unnoticed). */
  putTail(url, t) {
    if (!(t.etag || t.lastModified) || t.pieces.length === 0) return this.pending
    const key = tailKey(url)
    const b = encodeEntry(key, encodeTail(t))
    return this.queue(() => this.store.put(key, b))
  }

  /** The stored plan of a query with options fingerprint fp on url, or null. */
  async plan(url, fp) {
    const b = await this.get(planKey(url, fp))
    return b && decodePlan(b)
  }

  putPlan(url, fp, p) {
    return this.put(planKey(url, fp), encodePlan(p))
  }

  /** The stored bytes of an immutable object (an Iceberg metadata file, manifest…), or null. */
  object(url) {
    return this.get(objectKey(url))
  }

  putObject(url, b) {
    return this.put(objectKey(url), b)
  }

  /** The stored replayed state of the Delta table at root (the module's Delta `resume`), or null. */
  deltaState(root) {
    return this.get(deltaStateKey(root))
  }

  putDeltaState(root, b) {
    return this.put(deltaStateKey(root), b)
  }

  async get(key) {
    await this.pending
    try {
      const b = await this.store.get(key)
      if (b == null) return null
      const p = b instanceof Uint8Array ? decodeEntry(key, b) : null
      if (p) return p
      await this.store.delete(key)
    } catch (e) {
      this.fail(e)
    }
    return null
  }

  put(key, b) {
    const e = encodeEntry(key, b)
    return this.queue(() => this.store.put(key, e))
  }

  dropTail(url) {
    return this.queue(() => this.store.delete(tailKey(url)))
  }

  queue(fn) {
    this.pending = this.pending.then(fn).catch((e) => this.fail(e))
    return this.pending
  }

  fail(e) {
    this.err = String(e?.message ?? e)
  }
}
