// The calling thread's answers to a Worker's requests for what only this thread can do
// (worker-client.js): a custom fetch, reads of a source that cannot be posted (an AsyncBuffer,
// a file-backed Blob) and a custom metadata store.

import { serializeError, PqscanError } from './errors.js'

export async function runFetch(eng, m) {
  const f = eng.fetchers.get(m.file)
  const ctrl = new AbortController()
  eng.inflight.set(m.rid, ctrl)
  try {
    if (!f) throw new Error('no fetch for this file')
    const r = await f(m.url, { method: m.init.method, headers: new Headers(m.init.headers), signal: ctrl.signal })
    const body = await r.arrayBuffer()
    if (!eng.inflight.has(m.rid)) return
    eng.post({ t: 'fetchResult', rid: m.rid, status: r.status, statusText: r.statusText, type: r.type, headers: [...r.headers], body }, [body])
  } catch (e) {
    if (!eng.inflight.has(m.rid)) return
    eng.post({ t: 'fetchError', rid: m.rid, error: serializeError(e) })
  } finally {
    eng.inflight.delete(m.rid)
  }
}

// A proxied read: the bytes of a source only this thread can read, copied (the source may
// keep its buffers, as hyparquet's cachedAsyncBuffer does) and transferred to the Worker.
export async function runRead(eng, m) {
  try {
    const r = eng.readers.get(m.sid)
    if (!r) throw new PqscanError('closed', 'pqscan: the source is closed')
    const b = (await r.read(m.off, m.len)).slice()
    if (eng.w) eng.post({ t: 'readResult', rid: m.rid, bytes: b.buffer }, [b.buffer])
  } catch (e) {
    if (eng.w) eng.post({ t: 'readError', rid: m.rid, error: serializeError(e) })
  }
}

// A call of a custom metadata store (metacache.js) on the Worker's behalf.
export async function runStore(eng, m) {
  try {
    const st = eng.stores.get(m.sid)
    let v = await st[m.op](m.key, m.value)
    v = m.op === 'get' && v != null ? new Uint8Array(v).slice() : null
    if (eng.w) eng.post({ t: 'storeResult', rid: m.rid, value: v }, v ? [v.buffer] : [])
  } catch (e) {
    if (eng.w) eng.post({ t: 'readError', rid: m.rid, error: serializeError(e) })
  }
}
