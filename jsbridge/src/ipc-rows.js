// The number of rows in an Arrow IPC stream, read from its message headers alone. The scan
// loop (core.js run) counts a batch's rows for its progress event with it, instead of asking
// the module for its whole report (pq_report: a JSON of every row group's page letters,
// 0.1–3.5 ms per batch on the events files, so a cost per batch that grows with the file).
//
// The stream is a sequence of encapsulated messages: 0xFFFFFFFF, an int32 metadata length, a
// flatbuffer Message (header_type, header, bodyLength), the body; a zero length ends it. A
// RecordBatch header's first field is its row count. Nothing here trusts the bytes: every
// offset is checked against the message, and anything unexpected answers -1 (the caller
// then asks the module), never a throw.

const RECORD_BATCH = 3 // MessageHeader.RecordBatch

/**
 * The sum of the record batches' lengths in the IPC stream b, or -1 when b is not a
 * well-formed stream of encapsulated messages.
 * @param {Uint8Array} b
 * @returns {number}
 */
export function ipcRows(b) {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength)
  let p = 0
  let rows = 0
  while (p < b.length) {
    if (p + 8 > b.length || dv.getInt32(p, true) !== -1) return -1
    const len = dv.getInt32(p + 4, true)
    p += 8
    if (len === 0) return p === b.length ? rows : -1 // end of stream
    if (len < 0 || len > b.length - p) return -1
    const msg = new Table(dv, p, p + len)
    const m = msg.root()
    if (!m) return -1
    const body = m.i64(3)
    if (body < 0 || body > b.length - p - len) return -1
    if (m.u8(1) === RECORD_BATCH) {
      const rb = m.table(2)
      const n = rb ? rb.i64(0) : -1
      if (n < 0) return -1
      rows += n
    }
    p += len + body
  }
  return rows
}

// A flatbuffer table at t inside [lo, hi): fields by index, absent fields 0, -1 when a read
// would leave the message.
class Table {
  constructor(dv, lo, hi, t = -1) {
    this.dv = dv
    this.lo = lo
    this.hi = hi
    this.t = t
  }

  fits(at, n) {
    return at >= this.lo && at + n <= this.hi
  }

  root() {
    if (!this.fits(this.lo, 4)) return null
    return this.at(this.lo + this.dv.getUint32(this.lo, true))
  }

  at(t) {
    if (!this.fits(t, 4)) return null
    const v = t - this.dv.getInt32(t, true)
    if (!this.fits(v, 4)) return null
    const vsize = this.dv.getUint16(v, true)
    if (vsize < 4 || !this.fits(v, vsize)) return null
    const out = new Table(this.dv, this.lo, this.hi, t)
    out.v = v
    out.vsize = vsize
    return out
  }

  // The position of field i, 0 when absent, -1 when out of bounds for n bytes.
  field(i, n) {
    const e = 4 + 2 * i
    if (e + 2 > this.vsize) return 0
    const off = this.dv.getUint16(this.v + e, true)
    if (off === 0) return 0
    return this.fits(this.t + off, n) ? this.t + off : -1
  }

  u8(i) {
    const f = this.field(i, 1)
    return f > 0 ? this.dv.getUint8(f) : f
  }

  // An int64 field as a Number (-1 when it is not a safe non-negative integer).
  i64(i) {
    const f = this.field(i, 8)
    if (f <= 0) return f
    const x = this.dv.getBigInt64(f, true)
    return x >= 0n && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : -1
  }

  table(i) {
    const f = this.field(i, 4)
    return f > 0 ? this.at(f + this.dv.getUint32(f, true)) : null
  }
}
