// Building blocks of generated Delta tables, shared by the bridge's tests and the e2e tests:
// deletion vectors (stored and inline) and copies of corpus tables made writable.
import { chmodSync, readdirSync, readFileSync } from 'node:fs'
import zlib from 'node:zlib'
import path from 'node:path'

/**
 * A Roaring bitmap array (PROTOCOL.md "Deletion Vector Format") of rows below 2^16.
 * bitmap: the magic and the bitmap, what an inline ("i") vector encodes (sizeInBytes is its
 * length; a multiple of 4 when rows has an even length, as z85 needs); bytes: a deletion
 * vector file holding it at offset 1 (version byte, big-endian size, the bitmap, its
 * big-endian CRC-32); size: the descriptor's sizeInBytes.
 */
export function dvFile(rows) {
  const n = rows.length
  const bm = new DataView(new ArrayBuffer(4 + 8 + 4 + 4 + 4 + 4 + 4 + 2 * n))
  let o = 0
  const u32 = (v) => (bm.setUint32(o, v, true), (o += 4))
  u32(1681511377) // magic
  bm.setBigUint64(o, 1n, true) // one 32-bit bitmap
  o += 8
  u32(0) // its high 32 bits
  u32(12346) // portable format without run containers
  u32(1) // one container
  bm.setUint16(o, 0, true) // key 0
  bm.setUint16(o + 2, n - 1, true) // cardinality - 1
  o += 4
  u32(o + 4 - 16) // the container's offset, from the portable bitmap's start
  for (const r of rows) bm.setUint16(o, r, true), (o += 2)
  const bitmap = new Uint8Array(bm.buffer)
  const out = new Uint8Array(1 + 4 + bitmap.length + 4)
  const v = new DataView(out.buffer)
  out[0] = 1
  v.setUint32(1, bitmap.length)
  out.set(bitmap, 5)
  v.setUint32(5 + bitmap.length, zlib.crc32(bitmap))
  return { bytes: out, bitmap, size: bitmap.length }
}

/** Z85 (ZeroMQ) of 4-byte groups, as "u" vectors name their file's UUID and "i" ones hold their bytes. */
export function z85(b) {
  const abc = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#'
  let out = ''
  for (let i = 0; i < b.length; i += 4) {
    let v = ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0
    const g = []
    for (let k = 0; k < 5; k++, v = Math.floor(v / 85)) g.unshift(abc[v % 85])
    out += g.join('')
  }
  return out
}

/** The file name a "u" vector with this 16-byte UUID names (under its prefix). */
export function dvFileName(uuid) {
  const hex = Buffer.from(uuid).toString('hex')
  return `deletion_vector_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}.bin`
}

/** The actions of a commit file: one JSON object a line. */
export const readLog = (file) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
export const commitText = (actions) => actions.map((a) => JSON.stringify(a) + '\n').join('')

// The corpus is read-only and cpSync keeps modes: a copy to change is made writable.
export function chmodTree(dir) {
  chmodSync(dir, 0o755)
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) chmodTree(path.join(dir, e.name))
    else chmodSync(path.join(dir, e.name), 0o644)
  }
}

export { walk } from './helpers.js'
