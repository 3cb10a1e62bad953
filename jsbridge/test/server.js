// A small Range-capable HTTP server for the unit tests, with switchable misbehaviour. Files are
// served from an in-memory map; every request is recorded.
import http from 'node:http'

/**
 * @param {Map<string, Uint8Array>} files path → bytes
 * @returns {Promise<{url: string, log: object[], mode: object, close(): Promise<void>, set(path, bytes): void, replace(path, bytes): void}>}
 */
export async function startServer(files = new Map()) {
  const log = []
  // mode: per-path behaviour, e.g. {'/a': 'ignore-range'}; see handle() for the names.
  const mode = {}
  const attempts = new Map()
  const versions = new Map()
  const etagOf = (p) => `"v${versions.get(p) ?? 1}-${files.get(p)?.length}"`
  const stats = { inflight: 0, maxInflight: 0 }
  // hold(): requests wait, unanswered, until release(); whenHeld(n) / whenClosed(n) resolve
  // once n requests are waiting / n waiting requests were dropped by the client.
  const held = { on: false, waiting: [], closed: 0, watchers: [] }
  const notify = () => {
    held.watchers = held.watchers.filter((w) => !(w.test() && (w.resolve(), true)))
  }
  const watch = (test) => new Promise((resolve) => {
    held.watchers.push({ test, resolve })
    notify()
  })
  const server = http.createServer(async (req, res) => {
    stats.inflight++
    stats.maxInflight = Math.max(stats.maxInflight, stats.inflight)
    res.on('close', () => stats.inflight--)
    if (held.on) {
      const w = { released: false, dropped: false }
      const released = new Promise((resolve) => (w.release = resolve))
      res.on('close', () => {
        if (w.released) return
        w.dropped = true
        held.closed++
        notify()
      })
      held.waiting.push(w)
      notify()
      await released
      if (w.dropped) return
    }
    const reqURL = new URL(req.url, 'http://x')
    // Paths are percent-decoded as object stores and file servers do (a Delta file under
    // `letter=%2F%20%25f/` is requested as `letter%3D%252F%2520%2525f/`).
    let p = reqURL.pathname
    try {
      p = decodeURIComponent(p)
    } catch {}
    if (reqURL.searchParams.get('list-type') === '2') {
      log.push({ path: p, list: reqURL.search })
      const n = (attempts.get(reqURL.search) ?? 0) + 1 // per page: its query
      attempts.set(reqURL.search, n)
      listing(res, files, reqURL.searchParams, mode, p.slice(1), n)
      return
    }
    const n = (attempts.get(p) ?? 0) + 1
    attempts.set(p, n)
    log.push({ path: p, range: req.headers.range, ifMatch: req.headers['if-match'], attempt: n })
    const body = files.get(p)
    if (!body) {
      res.writeHead(404).end('not found')
      return
    }
    const m = mode[p] ?? ''
    if (m === 'slow') await new Promise((r) => setTimeout(r, 25)) // requests in flight together show in maxInflight
    const etag = etagOf(p)
    const h = { 'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes', ETag: etag }
    if (m === 'no-etag') delete h.ETag
    if (m === 'last-modified') {
      // No ETag; the version is the Last-Modified time, checked against If-Unmodified-Since.
      delete h.ETag
      h['Last-Modified'] = new Date(Date.UTC(2026, 0, 1) + (versions.get(p) ?? 1) * 3600e3).toUTCString()
      const ius = req.headers['if-unmodified-since']
      if (ius && Date.parse(ius) < Date.parse(h['Last-Modified'])) {
        res.writeHead(412).end()
        return
      }
    }
    if (m === 'wasm-type') h['Content-Type'] = 'application/wasm' // a module served as CDNs do
    if (m === '503-once' && n === 1) {
      res.writeHead(503, { 'Retry-After': mode.retryAfter ?? '0' }).end('busy')
      return
    }
    if (m === '429-once' && n === 1) {
      res.writeHead(429, { 'Retry-After': mode.retryAfter ?? '0' }).end('slow down')
      return
    }
    if (m === '500') {
      res.writeHead(500).end('internal error')
      return
    }
    if (m === '404') {
      res.writeHead(404).end()
      return
    }
    if (m === 'change-after-first' && n > 1) {
      versions.set(p, 2)
      h.ETag = etagOf(p)
    }
    if (req.headers['if-match'] && req.headers['if-match'] !== h.ETag) {
      res.writeHead(412).end()
      return
    }
    const range = req.headers.range
    if (m === 'ignore-range' || !range) {
      res.writeHead(200, { ...h, 'Content-Length': String(body.length) }).end(body)
      return
    }
    let first, last
    let mm = /^bytes=(\d+)-(\d+)$/.exec(range)
    if (mm) {
      first = Number(mm[1])
      last = Math.min(Number(mm[2]), body.length - 1)
    } else if ((mm = /^bytes=-(\d+)$/.exec(range))) {
      first = Math.max(0, body.length - Number(mm[1]))
      last = body.length - 1
    } else {
      res.writeHead(400).end()
      return
    }
    if (first >= body.length) {
      res.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end()
      return
    }
    let cr = `bytes ${first}-${last}/${body.length}`
    let slice = body.subarray(first, last + 1)
    if (m === 'wrong-range') cr = `bytes ${first + 1}-${last + 1}/${body.length}`
    if (m === 'no-content-range') cr = null
    if (m === 'gzip') h['Content-Encoding'] = 'gzip'
    if (m === 'short-body' || (m === 'reset-once' && n === 1)) {
      // Announce the full length, send half, end the connection.
      res.writeHead(206, { ...h, 'Content-Range': cr, 'Content-Length': String(slice.length) })
      res.write(slice.subarray(0, slice.length >> 1))
      setTimeout(() => req.socket.destroy(), 10)
      return
    }
    const headers = { ...h, 'Content-Length': String(slice.length) }
    if (cr) headers['Content-Range'] = cr
    res.writeHead(206, headers).end(slice)
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${server.address().port}`
  return {
    url,
    log,
    mode,
    stats,
    hold() {
      held.on = true
    },
    whenHeld: (n) => watch(() => held.waiting.length >= n),
    whenClosed: (n) => watch(() => held.closed >= n),
    release() {
      held.on = false
      for (const w of held.waiting.splice(0)) {
        w.released = true
        w.release()
      }
      held.closed = 0
    },
    reset() {
      log.length = 0
      attempts.clear()
      stats.maxInflight = 0
    },
    set(p, bytes) {
      files.set(p, bytes)
    },
    // replace(p, bytes): a new version of the file (a new ETag or Last-Modified).
    replace(p, bytes) {
      files.set(p, bytes)
      versions.set(p, (versions.get(p) ?? 1) + 1)
    },
    delete(p) {
      files.delete(p)
    },
    entries: () => files.entries(),
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()) }),
  }
}

// ListObjectsV2 over the served paths (virtual-hosted at '/': keys are the paths without their
// leading '/'; path style at '/<bucket>': the paths below it), in pages of mode.listPage keys (1000), with "after:<key>" continuation tokens;
// mode.list = 'error' (503 every time) | 'error-once' / '429-once' (each page's first request)
// | 'truncated' (no token) | 'loop' (the same token every page). The 503s and 429s send
// Retry-After mode.retryAfter ('0' by default): clients retry them without waiting.
function listing(res, files, q, mode, bucket, attempt) {
  const root = bucket ? `/${bucket}/` : '/'
  const prefix = q.get('prefix') ?? ''
  const after = (q.get('continuation-token') ?? '').replace(/^after:/, '')
  const keys = [...files.keys()].filter((k) => k.startsWith(root)).map((k) => k.slice(root.length)).filter((k) => k.startsWith(prefix) && k > after).sort()
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  if (mode.list === 'error' || (mode.list === 'error-once' && attempt === 1)) {
    res.writeHead(503, { 'Content-Type': 'application/xml', 'Retry-After': mode.retryAfter ?? '0' }).end('<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>')
    return
  }
  if (mode.list === '429-once' && attempt === 1) {
    res.writeHead(429, { 'Retry-After': mode.retryAfter ?? '0' }).end('slow down')
    return
  }
  const page = keys.slice(0, mode.listPage ?? 1000)
  const more = page.length < keys.length || mode.list === 'loop' || mode.list === 'truncated'
  const token = mode.list === 'truncated' ? '' : mode.list === 'loop' ? 'after:' : `after:${page.at(-1)}`
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>test</Name><Prefix>${esc(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><IsTruncated>${more}</IsTruncated>`
    + (more && token ? `<NextContinuationToken>${esc(token)}</NextContinuationToken>` : '')
    + page.map((k) => `<Contents><Key>${esc(k)}</Key><ETag>&quot;v1-${files.get(root + k).length}&quot;</ETag><Size>${files.get(root + k).length}</Size></Contents>`).join('')
    + '</ListBucketResult>'
  res.writeHead(200, { 'Content-Type': 'application/xml' }).end(body)
}
