// The Worker side of the bridge: it owns a Core (the module instance and the HTTP sources) and
// answers the messages of worker-client.js. Works as a browser module Worker and as a Node
// worker_threads Worker. Protocol (every message has a type `t`):
//
//   main → worker: init {wasm | wasmLater, wasmFull, retireBytes, warmup} · module {wasm | error} · warm {id} · open {id, url, opts} · openDataset {id, sources, opts}
//                  scan {id, file, opts} (file: an opened file or dataset, or {open: id} of an open
//                  sent with scanFollows: the scan of a query, started when that open is done)
//                  dropOpen {open} (a query's open whose scan was never sent)
//                  scan's plan {minBytes} (worker-pool.js: answered by units {id, file, units, report, http, share}
//                  or planned {id} before the scan's own messages) and unit [rowsFrom, rowsTo] or
//                  {files: [from, to], offset, limit} (a dataset's run of files)
//                  scan's tighten [{rid, where}]: runtime filters given before it started
//                  tighten {id, rid, where} (answered by tightened {id, rid, error?})
//                  adopt {id, share, file?} (answered by opened {id, file})
//                  ack {id} · cancel {id} · closeFile {file} · trap {id} · stats {id}
//                  fetchResult {rid, status, statusText, type, headers, body} · fetchError {rid, error}
//                  readResult {rid, bytes} · readError {rid, error}
//   worker → main: ready · warmed {id} · opened {id, file, schemaIPC, metadata} · batch {id, ipc}
//                  progress {id, progress} · done {id, report, http} · error {id, error} · trapped {id, code, instances} · stats {id, stats}
//                  fetch {rid, file, url, init} · fetchAbort {rid} · read {rid, sid, off, len}
//
// open's url and openDataset's sources are a URL string or a local source descriptor of
// Core.localSource ({blob}, {file}, {proxy: {sid, size, label}}).
//
// IPC buffers are transferred, not copied. A scan runs at most WINDOW batches ahead of the
// consumer (acks), so a slow consumer does not make the worker buffer the whole result.

import { Core } from './core.js'
import { tightenVia } from './tighten.js'
import { serializeError, deserializeError, abortReason, PqscanError } from './errors.js'
import { mark } from './marks.js'
import { planUnits, adopt, keepShared, worthSplitting } from './core-units.js'

const WINDOW = 2

let post
let core = null
const scans = new Map() // id → {ctrl, unacked, wake}
const fetches = new Map() // rid → {resolve, reject}
const opens = new Map() // open id → promise of the file id, for the scan that follows it (query)
let nextRid = 1
let moduleArrives = null // init {wasmLater}: settles the module promise when module {wasm} comes

// Sends a request to the calling thread (msg gets a fresh rid) and resolves with its answer;
// an abort rejects at once and tells the other side (abortType) to drop the request.
function ask(msg, signal, abortType) {
  return new Promise((resolve, reject) => {
    const rid = nextRid++
    if (signal?.aborted) return reject(abortReason(signal))
    const onAbort = () => {
      if (!fetches.has(rid)) return
      fetches.delete(rid)
      if (abortType) post({ t: abortType, rid })
      reject(abortReason(signal))
    }
    fetches.set(rid, {
      resolve: (v) => (signal?.removeEventListener('abort', onAbort), resolve(v)),
      reject: (e) => (signal?.removeEventListener('abort', onAbort), reject(e)),
    })
    signal?.addEventListener('abort', onAbort, { once: true })
    post({ ...msg, rid })
  })
}

function proxyFetch(file) {
  return (url, init = {}) => ask({ t: 'fetch', file, url: String(url), init: { method: init.method ?? 'GET', headers: [...new Headers(init.headers)] } }, init.signal, 'fetchAbort').then(responseFrom)
}

// The reader of a source that only the calling thread can read (an AsyncBuffer, a file-backed
// Blob of Node's fs.openAsBlob, which cannot be cloned): each range is a read message there.
function proxyReader(p) {
  return {
    size: p.size,
    label: p.label,
    key: `proxy:${p.sid}`,
    read: (off, len, signal) => ask({ t: 'read', sid: p.sid, off, len }, signal),
  }
}

// A custom metadata store of the calling thread (worker-client.js runStore), one object per
// store so that its writes are chained (tailcache.js).
const proxyStores = new Map()
function proxyStore(sid) {
  if (!proxyStores.has(sid)) {
    const call = (op, key, value) => ask({ t: 'store', sid, op, key, value })
    proxyStores.set(sid, { get: (k) => call('get', k), put: (k, v) => call('put', k, v), delete: (k) => call('delete', k) })
  }
  return proxyStores.get(sid)
}

// A Response-like object from a proxied fetch (a real Response would lose `type`).
function responseFrom(m) {
  const body = m.body ?? new ArrayBuffer(0)
  return {
    status: m.status,
    statusText: m.statusText,
    type: m.type,
    ok: m.status >= 200 && m.status < 300,
    headers: new Headers(m.headers),
    body: null,
    arrayBuffer: async () => body,
  }
}

// Applies a runtime filter to scan id (st: its state, none when it ended first: nothing to
// tighten) and answers with a tightened message.
function tightenReply(st, id, rid, where) {
  const done = (error) => post({ t: 'tightened', id, rid, error: error && serializeError(error) })
  if (!st) done()
  else tightenVia(st.control, where).then(() => done(), done)
}

async function runScan(m) {
  const ctrl = new AbortController()
  const st = { ctrl, unacked: 0, wake: null, control: {} }
  scans.set(m.id, st)
  let file = m.file
  if (file?.open != null) {
    // A query's scan (worker-client.js query): its file is the open sent just before it.
    const p = opens.get(file.open)
    opens.delete(file.open)
    try {
      if (!p) throw new PqscanError('closed', 'pqscan: the scan names an open that was not sent')
      file = await p
    } catch (e) {
      scans.delete(m.id)
      if (!ctrl.signal.aborted) post({ t: 'error', id: m.id, error: serializeError(e) })
      return
    }
  }
  const waitAck = () =>
    new Promise((resolve, reject) => {
      if (ctrl.signal.aborted) return reject(abortReason(ctrl.signal))
      const onAbort = () => reject(abortReason(ctrl.signal))
      ctrl.signal.addEventListener('abort', onAbort, { once: true })
      st.wake = () => {
        ctrl.signal.removeEventListener('abort', onAbort)
        resolve()
      }
    })
  try {
    if (m.plan) {
      // A scan the calling thread may spread over its Worker pool (worker-pool.js): the plan
      // first; units worth splitting go back to it, else this scan goes on as one session.
      const p = await planUnits(core, file, m.opts, m.plan.minBytes, ctrl.signal)
      if (p && worthSplitting(p.units, m.plan.minBytes)) {
        post({ t: 'units', id: m.id, file, units: p.units, report: p.report, http: p.http, share: p.share })
        return
      }
      post({ t: 'planned', id: m.id, http: p?.http })
    }
    for (const t of m.tighten ?? []) tightenReply(st, m.id, t.rid, t.where) // taken before the first round
    const it = core.scan(file, m.opts, {
      unit: m.unit,
      signal: ctrl.signal,
      control: st.control,
      onProgress: m.progress ? (p) => post({ t: 'progress', id: m.id, progress: p }) : undefined,
    })
    for await (const r of it) {
      if (r.type === 'batch') {
        post({ t: 'batch', id: m.id, ipc: r.ipc }, [r.ipc.buffer])
        st.unacked++
        while (st.unacked >= WINDOW) await waitAck()
      } else {
        post({ t: 'done', id: m.id, report: r.report, http: r.http })
      }
    }
  } catch (e) {
    if (!ctrl.signal.aborted) post({ t: 'error', id: m.id, error: serializeError(e) })
  } finally {
    scans.delete(m.id)
  }
}

async function handle(m) {
  switch (m.t) {
    case 'init': {
      mark('worker.init')
      // wasmLater: the calling thread compiles the module meanwhile and sends it in a module
      // message (worker-client.js); until then the Core's start waits on this promise.
      const wasm = m.wasmLater ? new Promise((resolve, reject) => (moduleArrives = { resolve, reject })) : m.wasm
      wasm.catch?.(() => {}) // a failed compile is the Core's start's error, not an unhandled one
      core = new Core({ wasm, wasmFull: m.wasmFull, retireBytes: m.retireBytes, warmup: m.warmup, proxyReader })
      return
    }
    case 'module':
      mark('worker.module')
      if (m.error) moduleArrives?.reject(deserializeError(m.error))
      else moduleArrives?.resolve(m.wasm)
      moduleArrives = null
      return
    case 'warm':
      try {
        await core.warm()
        post({ t: 'warmed', id: m.id })
      } catch (e) {
        post({ t: 'error', id: m.id, error: serializeError(e) })
      }
      return
    case 'open':
    case 'openDataset':
      try {
        const opts = { ...m.opts }
        if (opts.proxyFetch) opts.fetch = proxyFetch(m.id)
        if (opts.metadataCache?.proxyStore) opts.metadataCache = proxyStore(opts.metadataCache.proxyStore)
        const p = m.t === 'open' ? core.openFile(m.url, opts) : core.openDataset(m.sources, opts)
        if (m.scanFollows) {
          const file = p.then((r) => r.id)
          file.catch(() => {}) // the scan's error (runScan), not an unhandled one
          opens.set(m.id, file)
        }
        const r = await p
        post({ t: 'opened', id: m.id, file: r.id, schemaIPC: r.schemaIPC, metadata: r.metadata }, [r.schemaIPC.buffer])
      } catch (e) {
        post({ t: 'error', id: m.id, error: serializeError(e) })
      }
      return
    case 'scan':
      runScan(m)
      return
    case 'adopt': // a file another Worker of the pool planned (core-units.js)
      try {
        const file = m.file ?? (await adopt(core, m.share))
        if (m.file != null) keepShared(core, m.file, m.share)
        post({ t: 'opened', id: m.id, file })
      } catch (e) {
        post({ t: 'error', id: m.id, error: serializeError(e) })
      }
      return
    case 'dropOpen': // a query whose scan was never sent (aborted first): its open is not kept
      opens.delete(m.open)
      return
    case 'ack': {
      const st = scans.get(m.id)
      if (st) {
        st.unacked--
        st.wake?.()
        st.wake = null
      }
      return
    }
    case 'tighten':
      tightenReply(scans.get(m.id), m.id, m.rid, m.where)
      return
    case 'cancel':
      scans.get(m.id)?.ctrl.abort(new DOMException('The scan was aborted.', 'AbortError'))
      return
    case 'closeFile':
      core.closeFile(m.file)
      return
    case 'trap':
      post({ t: 'trapped', id: m.id, code: await core.debugTrap(), instances: core.instances })
      return
    case 'stats':
      post({ t: 'stats', id: m.id, stats: { ...(await core.debugStats()), pendingOpens: opens.size, scans: scans.size } })
      return
    case 'storeResult':
      fetches.get(m.rid)?.resolve(m.value)
      fetches.delete(m.rid)
      return
    case 'fetchResult':
    case 'readResult': {
      const f = fetches.get(m.rid)
      fetches.delete(m.rid)
      f?.resolve(m.t === 'readResult' ? new Uint8Array(m.bytes) : m)
      return
    }
    case 'fetchError':
    case 'readError': {
      const f = fetches.get(m.rid)
      fetches.delete(m.rid)
      f?.reject(deserializeError(m.error))
      return
    }
  }
}

if (typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope) {
  post = (msg, transfer) => globalThis.postMessage(msg, transfer ?? [])
  globalThis.onmessage = (e) => handle(e.data)
  mark('worker.evaluated')
  post({ t: 'ready' })
} else {
  const { parentPort } = await import('node:worker_threads')
  if (parentPort) {
    post = (msg, transfer) => parentPort.postMessage(msg, transfer ?? [])
    parentPort.on('message', handle)
    post({ t: 'ready' })
  }
}
