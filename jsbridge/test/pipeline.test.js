// Rounds whose bytes the engine takes as they arrive (pq_next kind 8, AsArrived): drive.js
// pushes each range as it arrives and asks the engine again at once, so the output pages of
// the row groups already filtered are requested while the predicate round's last range is
// still on its way; the rows are those of whole rounds, and subtract() is exact.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { tableFromIPC } from 'apache-arrow'
import { drive, subtract } from '../src/drive.js'
import { Instance, compileModule, NEED_RANGES, NEED_RANGES_AS_ARRIVED } from '../src/module.js'
import { corpusFile, wasmPath } from './helpers.js'

// Two row groups of 1500 rows (id, word) with a page index.
const file = corpusFile('hyparquet/page_index.parquet')
const opts = { fileSize: file.length, tailSize: 1024, maxGap: 1, roundTripBytes: 1, columns: ['id', 'word'], where: '(id >= 100 AND id < 110) OR (id >= 2000 AND id < 2010)' }
let module
before(async () => {
  module = await compileModule(readFileSync(wasmPath))
})

// A source that logs every call, delivers every range at once except `hold`, which it
// delivers only after a few turns of the event loop (setImmediate: every promise callback of
// the driver runs first), so a driver that waits for the whole call never sees a later call
// start before it.
function holdingSource() {
  return {
    size: file.length,
    hold: null,
    log: [],
    async fetchRanges(ranges, signal, deliver) {
      this.log.push(`fetch ${JSON.stringify(ranges)}`)
      const held = ranges.find((r) => this.hold && r.off === this.hold.off && r.len === this.hold.len)
      for (const r of ranges) if (r !== held) deliver(r.off, file.subarray(r.off, r.off + r.len))
      if (!held) return
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
      this.log.push(`deliver ${JSON.stringify(held)}`)
      deliver(held.off, file.subarray(held.off, held.off + held.len))
    },
  }
}

// Runs a scan through drive(); whole: kind 8 is turned into kind 1 (every round pushed whole).
async function scan(src, { whole = false, o = opts } = {}) {
  const inst = await Instance.create(module)
  const next = inst.next.bind(inst)
  let round = null
  inst.next = (h) => {
    const k = next(h)
    if (k === NEED_RANGES_AS_ARRIVED && !round) {
      round = inst.ranges(h)
      src.hold = round.at(-1)
    }
    return whole && k === NEED_RANGES_AS_ARRIVED ? NEED_RANGES : k
  }
  const h = inst.open(o)
  const ids = []
  try {
    for await (const st of drive(inst, h, src)) {
      if (st.type !== 'batch') continue
      src.log.push('batch')
      for (const v of tableFromIPC(st.ipc).getChild('id')) ids.push(Number(v))
    }
    return { ids, round, report: inst.report(h) }
  } finally {
    inst.close(h)
  }
}

test('drive asks for output pages before the last predicate range is pushed, with the rows of whole rounds', async () => {
  const whole = await scan(holdingSource(), { whole: true })
  const want = []
  for (let i = 0; i < 3000; i++) if ((i >= 100 && i < 110) || (i >= 2000 && i < 2010)) want.push(i)
  assert.deepEqual(whole.ids, want)
  const src = holdingSource()
  const got = await scan(src)
  assert.deepEqual(got.ids, want)
  assert.ok(got.round.length >= 2, `the predicate round: ${JSON.stringify(got.round)}`)
  const at = src.log.indexOf(`fetch ${JSON.stringify(got.round)}`)
  const held = src.log.indexOf(`deliver ${JSON.stringify(got.round.at(-1))}`)
  assert.ok(at >= 0 && held > at, src.log.join('\n'))
  assert.ok(src.log.slice(at + 1, held).some((e) => e.startsWith('fetch ')), `no output request before the held predicate range:\n${src.log.join('\n')}`)
  assert.ok(got.report.roundTrips <= whole.report.roundTrips, `${got.report.roundTrips} round trips, whole rounds ${whole.report.roundTrips}`)
  assert.equal(got.report.bytesRequested, whole.report.bytesRequested)
})

test('without a filter, a row group whose bytes are in is decoded while the next is on its way; nothing is fetched twice', async () => {
  const o = { fileSize: file.length, tailSize: 1024, maxGap: 1, columns: ['id', 'word'] }
  const whole = await scan(holdingSource(), { whole: true, o })
  assert.deepEqual(whole.ids, Array.from({ length: 3000 }, (_, i) => i))
  const src = holdingSource()
  const got = await scan(src, { o })
  assert.deepEqual(got.ids, whole.ids)
  assert.ok(got.round.length >= 2, `the data round: ${JSON.stringify(got.round)}`)
  const held = src.log.indexOf(`deliver ${JSON.stringify(got.round.at(-1))}`)
  assert.ok(held > 0 && src.log.slice(0, held).includes('batch'), `no batch before the held range:\n${src.log.join('\n')}`)
  // The held request stays in flight across the batches: it is not asked for again.
  const fetched = src.log.filter((e) => e.startsWith('fetch ')).flatMap((e) => JSON.parse(e.slice(6)))
  assert.equal(fetched.filter((r) => r.off === got.round.at(-1).off).length, 1, src.log.join('\n'))
  assert.equal(got.report.bytesRequested, whole.report.bytesRequested)
  assert.equal(got.report.requests, whole.report.requests)
})

test('subtract: the parts not covered, byte by byte on random ranges', () => {
  assert.deepEqual(subtract([{ off: 0, len: 10 }], [{ off: 3, len: 4 }]), [{ off: 0, len: 3 }, { off: 7, len: 3 }])
  assert.deepEqual(subtract([{ off: -8, len: 8 }], [{ off: 0, len: 100 }]), [{ off: -8, len: 8 }])
  let seed = 7
  const rnd = (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n
  for (let k = 0; k < 2000; k++) {
    const mk = (n) => Array.from({ length: n }, () => ({ off: rnd(200), len: rnd(40) }))
    const rs = mk(1 + rnd(4))
    const minus = mk(rnd(6))
    const cov = new Uint8Array(256)
    for (const r of minus) cov.fill(1, r.off, r.off + r.len)
    const want = new Uint8Array(256)
    for (const r of rs) for (let b = r.off; b < r.off + r.len; b++) if (!cov[b]) want[b]++
    const have = new Uint8Array(256)
    for (const r of subtract(rs, minus)) {
      assert.ok(r.len > 0)
      for (let b = r.off; b < r.off + r.len; b++) have[b]++
    }
    assert.deepEqual(have, want, JSON.stringify({ rs, minus }))
  }
})
