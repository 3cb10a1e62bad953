// The host ZSTD decoder (src/zstd.js, the module's import pqscan_host.zstd_decompress), the
// module's only ZSTD decoder: every ZSTD file of the corpus reads as the native engine reads it
// (the CLI, `pqscan cat --engine native`), in the calling thread and in a Worker; hostile
// frames — corrupt, larger than the page header says, truncated — fail with the native
// engine's words, never rows; a host without the decoder gets the module's clear error; the
// memory cap still holds; the decoder writes only inside the buffer it is given, also on
// randomly mutated frames; and it replaces its instance once a page has grown its memory.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { Core } from '../src/core.js'
import { Instance, compileModule } from '../src/module.js'
import { loadZstd, ZstdDecoder, ZSTD_CORRUPT, ZSTD_TOO_LARGE, ZSTD_HOST_FAILED } from '../src/zstd.js'
import { createEngine } from '../src/index.js'
import { corpusDir, corpusFile, repoRoot, wasmPath } from './helpers.js'

let tmp, cli
before(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-zstd-'))
  cli = path.join(tmp, 'pqscan')
  execFileSync('go', ['build', '-o', cli, './cmd/pqscan'], { cwd: repoRoot, stdio: 'inherit' })
})
after(() => rmSync(tmp, { recursive: true, force: true }))

// The native engine's answer for bytes: {rows} (the Arrow stream's rows as JSON lines) or
// {error} (its message, after the CLI's "pqscan: FILE: " prefix).
let oracleN = 0
function oracle(bytes) {
  const f = path.join(tmp, `f${oracleN++}.parquet`)
  writeFileSync(f, bytes)
  try {
    const out = execFileSync(cli, ['cat', f, '--engine', 'native', '--format', 'arrow', '--quiet'], { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
    return { rows: rowsOf([out]) }
  } catch (e) {
    const msg = String(e.stderr).trim()
    return { error: msg.slice(msg.indexOf(f) + f.length + 2) }
  } finally {
    rmSync(f)
  }
}

// Rows of IPC streams as JSON text, for comparing engines whose batches are cut differently.
function rowsOf(streams) {
  const rows = []
  for (const s of streams) {
    for (const r of tableFromIPC(s).toArray()) rows.push(JSON.stringify(r.toJSON(), (_, x) => (typeof x === 'bigint' ? String(x) : x)))
  }
  return rows
}

const wasm = readFileSync(wasmPath)
const module = await compileModule(wasm)

// Every corpus file with ZSTD column chunks (INVENTORY.tsv's codecs column).
function zstdFiles() {
  const lines = readFileSync(path.join(corpusDir(), 'INVENTORY.tsv'), 'utf8').trim().split('\n')
  const cols = lines[0].split('\t')
  const p = cols.indexOf('path')
  const c = cols.indexOf('codecs')
  return lines.slice(1).map((l) => l.split('\t')).filter((f) => /ZSTD/.test(f[c])).map((f) => f[p])
}

// A Core in this thread whose instances use `zstd` as the host decoder (null: not provided).
function coreWith(zstd) {
  return new Core({ createInstance: () => Instance.create(module, { zstd }) })
}

// A decoder that records what the module asked and what it answered, around the real one.
async function recording() {
  const real = await loadZstd()
  assert.ok(real, 'the C decoder loads')
  const r = {
    asked: [], // {src, cap, got}
    decompress(guest, dst, dstCap, src, srcLen) {
      const bytes = new Uint8Array(guest.buffer, src, srcLen).slice()
      const got = real.decompress(guest, dst, dstCap, src, srcLen)
      r.asked.push({ src: bytes, cap: dstCap, got })
      return got
    },
  }
  return r
}

// Scans bytes with a Core: {ipc: [Uint8Array...]} or {error: "code: message", message}.
async function scanAll(core, bytes, opts = {}) {
  try {
    const { id } = await core.openFile(new Blob([bytes]))
    const ipc = []
    for await (const st of core.scan(id, opts)) if (st.type === 'batch') ipc.push(st.ipc)
    return { ipc }
  } catch (e) {
    return { error: `${e.code ?? e.name}: ${e.message}`, message: e.message }
  }
}

// The module's answer for bytes against the native engine's: the same rows, or errors whose
// engine messages agree (the module's is prefixed by the bridge).
function assertNative(got, bytes, what) {
  const want = oracle(bytes)
  if (want.error) {
    assert.ok(got.error, `${what}: the native engine failed (${want.error}), the module did not`)
    assert.ok(got.message.includes(want.error), `${what}: module "${got.message}", native "${want.error}"`)
    return want
  }
  assert.equal(got.error, undefined, `${what}: the native engine read it`)
  assert.deepEqual(rowsOf(got.ipc), want.rows, `${what}: rows`)
  return want
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i])

test('every ZSTD corpus file: the host decoder gives the native engine\'s rows and errors (in-thread)', async () => {
  const files = zstdFiles()
  assert.ok(files.length >= 10, `only ${files.length} ZSTD files in the corpus`)
  const rec = await recording()
  const on = coreWith(rec)
  let decodedByHost = 0
  for (const rel of files) {
    const bytes = corpusFile(rel)
    const before = rec.asked.length
    assertNative(await scanAll(on, bytes), bytes, rel)
    if (rec.asked.length > before) decodedByHost++
  }
  const accepted = rec.asked.filter((a) => a.got >= 0).length
  assert.ok(decodedByHost >= 8, `the host decoded pages of ${decodedByHost} files`)
  assert.ok(accepted > 100, `the host decoded ${accepted} of ${rec.asked.length} pages`)
})

test('a host without the decoder: the module\'s clear error on ZSTD pages, other codecs read', async () => {
  const off = coreWith(null)
  for (let i = 0; i < 2; i++) {
    const a = await scanAll(off, corpusFile('hyparquet/byte_stream_split.zstd.parquet'))
    assert.match(a.error ?? '', /codec: ZSTD pages need the host's decoder \(import pqscan_host\.zstd_decompress, wasm\/ABI\.md\)/)
  }
  const snappy = corpusFile('parquet-testing/data/alltypes_plain.snappy.parquet')
  assertNative(await scanAll(off, snappy), snappy, 'SNAPPY without the ZSTD decoder')
})

test('Worker and in-thread engines read hyparquet\'s expected rows through the host decoder', async () => {
  const rel = 'hyparquet/byte_stream_split.zstd.parquet'
  const want = JSON.parse(readFileSync(path.join(corpusDir(), 'hyparquet/byte_stream_split.zstd.json'), 'utf8'))
  for (const worker of [true, false]) {
    const eng = createEngine({ worker, wasm: wasmPath })
    try {
      const f = await eng.openParquet(corpusFile(rel))
      const rows = (await f.scan().toTable()).toArray().map((r) => Object.values(r.toJSON()))
      assert.equal(rows.length, want.length)
      for (let i = 0; i < want.length; i++) {
        for (let j = 0; j < want[i].length; j++) assert.ok(Math.abs(rows[i][j] - want[i][j]) < 1e-6, `worker=${worker} row ${i} col ${j}`)
      }
      const st = await eng.impl.debugStats()
      assert.equal(st.hostZstd, true, `worker=${worker}: the instance has the decoder`)
      assert.ok(st.hostZstdCalls > 0, `worker=${worker}: the decoder was asked`)
    } finally {
      eng.terminate()
    }
  }
})

// The frames of a file's ZSTD pages, found in the file (a page's compressed bytes are stored
// as they are): [{at, src}] for the pages the module handed to the host.
async function framesOf(bytes) {
  const rec = await recording()
  await scanAll(coreWith(rec), bytes)
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  return rec.asked.map((a) => ({ at: buf.indexOf(Buffer.from(a.src)), src: a.src, cap: a.cap }))
}

// The layout of a ZSTD frame header (RFC 8878 3.1.1): where the content size field is and its
// width, and where the blocks start.
function frameLayout(f) {
  const fhd = f[4]
  const fcsFlag = fhd >> 6
  const single = (fhd >> 5) & 1
  let p = 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3]
  const fcsSize = fcsFlag === 0 ? single : [0, 2, 4, 8][fcsFlag]
  const fcsAt = p
  p += fcsSize
  const blocks = []
  for (;;) {
    const h = f[p] | (f[p + 1] << 8) | (f[p + 2] << 16)
    blocks.push(p)
    const size = ((h >> 1) & 3) === 1 ? 1 : h >> 3
    p += 3 + size
    if (h & 1 || p >= f.length) break
  }
  return { fcsAt, fcsSize, blocks }
}

const zigzag = (n) => n * 2
// n as a ULEB128 varint of exactly len bytes (padded with continuation bytes, as Thrift reads it).
function varint(n, len) {
  const out = []
  for (let i = 0; i < len; i++) {
    out.push((n & 127) | (i < len - 1 ? 128 : 0))
    n = Math.floor(n / 128)
  }
  return out
}

// The page header's uncompressed_page_size before the frame: Thrift compact field 2 (i32,
// header byte 0x15) holding the size the module bounded the buffer by (cap, or cap - 64 slack).
function headerSize(b, fr) {
  for (const n of [fr.cap, fr.cap - 64]) {
    let len = 1
    while (zigzag(n) >= 128 ** len) len++
    const pat = [0x15, ...varint(zigzag(n), len)]
    for (let at = fr.at - pat.length; at >= Math.max(0, fr.at - 48); at--) {
      if (pat.every((x, i) => b[at + i] === x)) return { at: at + 1, len, n }
    }
  }
  throw new Error('page header not found before the frame')
}

test('hostile frames: the native engine\'s error, never rows', async () => {
  const base = corpusFile('hyparquet/byte_stream_split.zstd.parquet')
  const frames = (await framesOf(base)).filter((f) => f.at >= 0)
  assert.ok(frames.length >= 2, 'found the pages in the file')
  const fr = frames[0]
  const lay = frameLayout(fr.src)
  assert.ok(lay.fcsSize >= 2, `the writer records the content size (${lay.fcsSize} bytes)`)
  const cases = [
    {
      name: 'corrupt (magic number)',
      host: ZSTD_CORRUPT,
      error: /codec: corrupt compressed data: ZSTD: invalid or truncated frame/,
      mutate: (b) => b.set([0, 0, 0, 0], fr.at),
    },
    {
      name: 'content size field larger than the frame holds',
      host: ZSTD_CORRUPT,
      error: /codec: corrupt compressed data: ZSTD: invalid or truncated frame/,
      mutate: (b) => {
        const dv = new DataView(b.buffer, b.byteOffset + fr.at + lay.fcsAt)
        if (lay.fcsSize === 2) dv.setUint16(0, dv.getUint16(0, true) + 16, true)
        else dv.setUint32(0, dv.getUint32(0, true) + 16, true)
      },
    },
    {
      name: 'frame larger than the page header says (uncompressed_page_size - 200)',
      host: ZSTD_TOO_LARGE,
      error: /codec: decompressed size differs from page header: ZSTD page decompresses to more than the \d+ bytes the header says/,
      mutate: (b) => {
        const h = headerSize(b, fr)
        b.set(varint(zigzag(h.n - 200), h.len), h.at)
      },
    },
    {
      name: 'truncated (the last block runs past the page)',
      host: ZSTD_CORRUPT,
      error: /codec: corrupt compressed data: ZSTD: invalid or truncated frame/,
      mutate: (b) => {
        const p = fr.at + lay.blocks[lay.blocks.length - 1]
        const h = (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16)) + (64 << 3)
        b.set([h & 255, (h >> 8) & 255, (h >> 16) & 255], p)
      },
    },
  ]
  for (const c of cases) {
    const bytes = base.slice()
    c.mutate(bytes)
    const rec = await recording()
    const a = await scanAll(coreWith(rec), bytes)
    assert.ok(a.error, `${c.name}: host decoder: an error, not rows`)
    assert.match(a.error, /^scan: /, c.name)
    assert.match(a.error, c.error, c.name)
    assertNative(a, bytes, c.name)
    const asked = rec.asked.find((x) => same(x.src.subarray(0, 4), bytes.subarray(fr.at, fr.at + 4)) && x.src.length === fr.src.length)
    assert.ok(asked, `${c.name}: the page reached the host decoder`)
    assert.equal(asked.got, c.host, `${c.name}: the host's answer`)
  }
})

test('the memory cap holds with the host decoder: no page past the cap reaches it', async () => {
  const memoryCap = 8192
  const cases = [
    // A 23,711-byte page: the module refuses it before any decoder runs.
    { rel: 'hyparquet/delta_length_byte_array.parquet', error: /page of 23711 bytes exceeds the memory cap of 8192/ },
    // Pages of at most 514 bytes: decoded by the host under the same cap.
    { rel: 'parquet-testing/data/geospatial/geography-lines.parquet', error: null },
  ]
  for (const c of cases) {
    const bytes = corpusFile(c.rel)
    const rec = await recording()
    const a = await scanAll(coreWith(rec), bytes, { memoryCap })
    if (c.error) {
      assert.match(a.error ?? '', c.error, c.rel)
      assert.equal(rec.asked.length, 0, `${c.rel}: the decoder was not asked`)
    } else {
      assert.ok(a.ipc && rec.asked.length > 0, `${c.rel}: rows, decoded by the host`)
      assertNative(a, bytes, c.rel)
    }
    for (const x of rec.asked) assert.ok(x.cap <= memoryCap + 64, `${c.rel}: the host was asked for ${x.cap} bytes`)
  }
})

// A single-segment frame of raw blocks holding `plain` (RFC 8878: magic, header with a 4-byte
// content size, then blocks of at most 128 KiB).
function rawFrame(plain) {
  const parts = [new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0xa0, plain.length & 255, (plain.length >> 8) & 255, (plain.length >> 16) & 255, plain.length >>> 24])]
  for (let i = 0; i < plain.length || i === 0; i += 1 << 17) {
    const part = plain.subarray(i, Math.min(plain.length, i + (1 << 17)))
    const h = (part.length << 3) | (i + part.length >= plain.length ? 1 : 0)
    parts.push(new Uint8Array([h & 255, (h >> 8) & 255, (h >> 16) & 255]), part)
    if (plain.length === 0) break
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

// A multi-segment frame (no content size) of raw blocks declaring the window descriptor wd
// (RFC 8878 3.1.1.1.2: window log 10 + wd>>3, mantissa wd&7).
function windowFrame(plain, wd) {
  const f = rawFrame(plain)
  return new Uint8Array([...f.subarray(0, 4), 0x00, wd, ...f.subarray(9)])
}

test('ZstdDecoder writes only inside the buffer: exact, slack, two frames, too small, corrupt, truncated', async () => {
  const dec = new ZstdDecoder((await loadZstd()).x)
  const plain = new TextEncoder().encode('pqscan host zstd '.repeat(1000))
  const real = (await framesOf(corpusFile('hyparquet/byte_stream_split.zstd.parquet')))[0] // a compressed frame
  const realPlain = await (async () => {
    const g = new WebAssembly.Memory({ initial: Math.ceil((8192 + real.cap) / 65536) })
    new Uint8Array(g.buffer).set(real.src)
    const n = dec.decompress(g, 8192, real.cap, 0, real.src.length)
    assert.ok(n > 0, `a real page decodes (${n})`)
    return new Uint8Array(g.buffer, 8192, n).slice()
  })()
  const frame = rawFrame(plain)
  const two = new Uint8Array([...frame, ...frame])
  const cases = [
    { name: 'exact capacity', src: frame, cap: plain.length, want: plain },
    { name: 'slack', src: frame, cap: plain.length + 64, want: plain },
    { name: 'two frames', src: two, cap: 2 * plain.length, want: new Uint8Array([...plain, ...plain]) },
    { name: 'compressed page', src: real.src, cap: realPlain.length, want: realPlain },
    { name: 'one byte short', src: frame, cap: plain.length - 1, want: ZSTD_TOO_LARGE },
    { name: 'compressed page one byte short', src: real.src, cap: realPlain.length - 1, want: ZSTD_TOO_LARGE },
    { name: 'second frame does not fit', src: two, cap: plain.length + 10, want: ZSTD_TOO_LARGE },
    { name: 'garbage', src: new TextEncoder().encode('not a zstd frame at all'), cap: 100, want: ZSTD_CORRUPT },
    { name: 'truncated', src: frame.subarray(0, frame.length >> 1), cap: plain.length, want: ZSTD_CORRUPT },
    { name: 'compressed page truncated', src: real.src.subarray(0, real.src.length - 3), cap: realPlain.length, want: ZSTD_CORRUPT },
    // The window bound the native build and the wazero host share (codec.ZstdMaxWindow).
    { name: 'window of 2^30 + 7·2^27', src: windowFrame(plain, (20 << 3) | 7), cap: plain.length, want: plain },
    { name: 'window log 31', src: windowFrame(plain, 21 << 3), cap: plain.length, want: ZSTD_CORRUPT },
  ]
  for (const c of cases) {
    const src = 100
    const dst = src + c.src.length + 100
    const guest = new WebAssembly.Memory({ initial: Math.ceil((dst + c.cap + 1000) / 65536) })
    const g = new Uint8Array(guest.buffer)
    g.fill(0xee)
    g.set(c.src, src)
    const got = dec.decompress(guest, dst, c.cap, src, c.src.length)
    if (typeof c.want === 'number') assert.equal(got, c.want, c.name)
    else {
      assert.equal(got, c.want.length, c.name)
      assert.ok(same(g.subarray(dst, dst + got), c.want), `${c.name}: decoded bytes`)
    }
    const written = got > 0 ? got : 0
    assert.ok(g.subarray(dst + written).every((x) => x === 0xee), `${c.name}: wrote past the result`)
    assert.ok(g.subarray(0, src).every((x) => x === 0xee) && g.subarray(src + c.src.length, dst).every((x) => x === 0xee), `${c.name}: wrote before the buffer`)
  }
})

// Randomized: flipped bytes, truncations and capacities around the decoded size of real
// frames (a deterministic generator). Whatever the decoder answers, it is a length within the
// capacity or -2/-3, and nothing outside [dst, +result) changes.
test('ZstdDecoder on mutated frames: a bounded length or -2/-3, never a write outside the result', async () => {
  const dec = new ZstdDecoder((await loadZstd()).x)
  const frames = (await framesOf(corpusFile('parquet-testing/data/geospatial/geography-lines.parquet'))).slice(0, 20)
  assert.ok(frames.length >= 10)
  let seed = 12345
  const rnd = (n) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n
  const codes = new Map()
  for (let t = 0; t < 400; t++) {
    const fr = frames[rnd(frames.length)]
    let src = fr.src.slice()
    const kind = rnd(3)
    if (kind === 0) for (let j = 0; j <= rnd(4); j++) src[rnd(src.length)] ^= 1 << rnd(8)
    if (kind === 1) src = src.subarray(0, rnd(src.length) + 1)
    const cap = Math.max(1, fr.cap - 80 + rnd(160))
    const srcAt = 64
    const dst = srcAt + src.length + 64
    const guest = new WebAssembly.Memory({ initial: Math.ceil((dst + cap + 1024) / 65536) })
    const g = new Uint8Array(guest.buffer)
    g.fill(0xa5)
    g.set(src, srcAt)
    const got = dec.decompress(guest, dst, cap, srcAt, src.length)
    codes.set(got < 0 ? got : 'ok', (codes.get(got < 0 ? got : 'ok') ?? 0) + 1)
    assert.ok((got >= 0 && got <= cap) || got === ZSTD_CORRUPT || got === ZSTD_TOO_LARGE, `try ${t}: ${got}`)
    const end = dst + Math.max(got, 0)
    assert.ok(g.subarray(end).every((x) => x === 0xa5), `try ${t}: wrote past the result`)
    assert.ok(g.subarray(0, srcAt).every((x) => x === 0xa5) && g.subarray(srcAt + src.length, dst).every((x) => x === 0xa5), `try ${t}: wrote before the buffer`)
  }
  assert.ok(codes.get('ok') > 0 && (codes.get(ZSTD_CORRUPT) ?? 0) > 0 && (codes.get(ZSTD_TOO_LARGE) ?? 0) > 0, JSON.stringify([...codes]))
})

test('ZstdDecoder replaces its instance once a page grew its memory past the bound, and after a trap', async () => {
  const base = await loadZstd()
  const x = base.x
  const dec = new ZstdDecoder(x, base.renew, x.memory.buffer.byteLength + 1)
  const plain = new Uint8Array(6 << 20).fill(7)
  const frame = rawFrame(plain)
  const decode = () => {
    const guest = new WebAssembly.Memory({ initial: Math.ceil((frame.length + plain.length + 1024) / 65536) })
    new Uint8Array(guest.buffer).set(frame)
    return dec.decompress(guest, frame.length, plain.length, 0, frame.length)
  }
  assert.equal(decode(), plain.length, 'the large page decodes')
  assert.ok(dec.renewing, 'a replacement is on its way')
  await dec.renewing
  assert.equal(dec.renewals, 1)
  assert.notEqual(dec.x, x, 'a new instance')
  assert.ok(dec.x.memory.buffer.byteLength < x.memory.buffer.byteLength, 'its memory is the small one')

  // A decoder that traps answers -4 (its failure, not the page's) until its replacement is ready.
  const trapping = new ZstdDecoder({ ...dec.x, ZSTD_decompress: () => { throw new WebAssembly.RuntimeError('unreachable') } }, base.renew)
  const small = rawFrame(new Uint8Array(100).fill(1))
  const guest = new WebAssembly.Memory({ initial: 1 })
  new Uint8Array(guest.buffer).set(small)
  assert.equal(trapping.decompress(guest, 1024, 100, 0, small.length), ZSTD_HOST_FAILED)
  assert.equal(trapping.decompress(guest, 1024, 100, 0, small.length), ZSTD_HOST_FAILED, 'not asked again')
  await trapping.renewing
  assert.equal(trapping.decompress(guest, 1024, 100, 0, small.length), 100, 'the replacement decodes')
})

