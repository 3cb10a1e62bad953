// Ranges of an HttpSource fetched before the engine asks for them (a returning scan's plan,
// tailcache.js): the prefetch, and the joining of kept pieces that fromMemory serves them by.

/**
 * Fetches ranges of src before the engine asks for them and keeps them in src.pieces (marked
 * ahead), where the engine's own requests find them (src.fromMemory waits for the ones still
 * in flight, listed in src.ahead). The requests are the ones the engine would send, under the
 * same rules and validators; a failure stops the rest and is dropped: the engine's own request
 * then asks again and meets it (a replaced file is "file-changed" there). One round trip.
 */
export function prefetch(src, ranges, signal) {
  const rs = ranges.filter((r) => r.off >= 0 && r.len > 0 && (src.size < 0 || r.off + r.len <= src.size))
  const items = rs.map((r) => {
    const a = { off: r.off, end: r.off + r.len, done: null, settled: null }
    a.settled = new Promise((resolve) => (a.done = resolve))
    return a
  })
  src.ahead.push(...items)
  const settle = (a) => {
    const i = src.ahead.indexOf(a)
    if (i >= 0) src.ahead.splice(i, 1)
    a.done()
  }
  const call = { issued: false, overlaps: src.calls > 0 }
  src.calls = (src.calls ?? 0) + 1
  src.aheadOver = false
  let next = 0
  let failed = false
  const worker = async () => {
    while (next < items.length) {
      const a = items[next++]
      try {
        if (failed || src.aheadOver || signal?.aborted) continue
        const b = await src.fetchRange(call, { off: a.off, len: a.end - a.off }, signal, true)
        if (src.aheadOver) continue // the scan ended meanwhile: nobody will ask for it
        src.pieces.push({ off: a.off, bytes: b, ahead: true })
      } catch {
        failed = true
      } finally {
        settle(a)
      }
    }
  }
  return Promise.all(Array.from({ length: Math.min(src.opt.concurrency, items.length) }, worker)).then(() => {
    src.calls--
    if (call.issued && !call.overlaps) src.stats.roundTrips++
  })
}

// Whether [off, end) is covered by the union of spans ({off, end}).
export function spanned(off, end, spans) {
  let pos = off
  for (const x of spans.filter((x) => x.off < end && x.end > off).sort((a, b) => a.off - b.off)) {
    if (x.off > pos) return false
    pos = Math.max(pos, x.end)
    if (pos >= end) return true
  }
  return pos >= end
}

// The bytes [off, end) copied from adjacent or overlapping pieces, or null when a byte is missing.
export function joined(pieces, off, end) {
  const ps = pieces.filter((p) => p.off < end && p.off + p.bytes.length > off)
  if (ps.length < 2) return null
  ps.sort((a, b) => a.off - b.off)
  const out = new Uint8Array(end - off)
  let pos = off
  for (const p of ps) {
    if (p.off > pos) return null
    const pe = p.off + p.bytes.length
    if (pe <= pos) continue
    const to = Math.min(pe, end)
    out.set(p.bytes.subarray(pos - p.off, to - p.off), pos - off)
    pos = to
    if (pos >= end) return out
  }
  return null
}
