// The stores of the metadata cache (metacache.js): values by key, bounded in bytes, least
// recently used first out. folderStore: a folder in Node, one file per key named as the Go
// host names it (internal/metacache Dir), so both may share it. idbStore: IndexedDB, in a
// page and in a Worker. A store may drop any value at any time.

import { isNode } from './node-file.js'

export const DEFAULT_STORE_BYTES = 256 << 20
export const DEFAULT_IDB_BYTES = 64 << 20
const EXT = '.pqmc'

/** A folder store (Node): writes go to a temporary file renamed into place. */
export function folderStore(dir, maxBytes = DEFAULT_STORE_BYTES) {
  const mods = (async () => {
    const fs = await import('node:fs/promises')
    const path = await import('node:path')
    const { createHash } = await import('node:crypto')
    await fs.mkdir(dir, { recursive: true })
    return { fs, path, createHash }
  })()
  const file = async (key) => {
    const { path, createHash } = await mods
    return path.join(dir, createHash('sha256').update(key).digest('hex').slice(0, 32) + EXT)
  }
  const evict = async () => {
    const { fs, path } = await mods
    const files = []
    let total = 0
    for (const name of await fs.readdir(dir)) {
      if (!name.endsWith(EXT)) continue
      try {
        const st = await fs.stat(path.join(dir, name))
        files.push({ name: path.join(dir, name), size: st.size, mod: st.mtimeMs })
        total += st.size
      } catch {}
    }
    files.sort((a, b) => a.mod - b.mod)
    for (const f of files) {
      if (total <= maxBytes) break
      try {
        await fs.unlink(f.name)
        total -= f.size
      } catch {}
    }
  }
  return {
    async get(key) {
      const { fs } = await mods
      const name = await file(key)
      let b
      try {
        b = await fs.readFile(name)
      } catch (e) {
        if (e.code === 'ENOENT') return null
        throw e
      }
      const now = new Date()
      fs.utimes(name, now, now).catch(() => {}) // recency for eviction
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
    },
    async put(key, value) {
      if (value.length > maxBytes) return
      const { fs } = await mods
      const name = await file(key)
      const tmp = `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
      try {
        await fs.writeFile(tmp, value)
        await fs.rename(tmp, name)
      } catch (e) {
        fs.unlink(tmp).catch(() => {})
        throw e
      }
      await evict()
    },
    async delete(key) {
      const { fs } = await mods
      try {
        await fs.unlink(await file(key))
      } catch (e) {
        if (e.code !== 'ENOENT') throw e
      }
    },
  }
}

const req = (r) =>
  new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result)
    r.onerror = () => reject(r.error)
  })
const done = (tx) =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve()
    tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'))
  })

/**
 * An IndexedDB store: database `name`, object store "entries" of {key, value, size, used}
 * with an index on used (the time of the last get or put) for eviction.
 */
export function idbStore({ name = 'pqscan-metadata', maxBytes = DEFAULT_IDB_BYTES } = {}) {
  let db = null
  const open = () =>
    (db ??= new Promise((resolve, reject) => {
      const r = indexedDB.open(name, 1)
      r.onupgradeneeded = () => r.result.createObjectStore('entries', { keyPath: 'key' }).createIndex('used', 'used')
      r.onsuccess = () => resolve(r.result)
      r.onerror = () => reject(r.error)
      r.onblocked = () => reject(new Error('IndexedDB open blocked'))
    }).catch((e) => {
      db = null
      throw e
    }))
  const evict = async () => {
    const tx = (await open()).transaction('entries', 'readwrite')
    const os = tx.objectStore('entries')
    const all = await req(os.index('used').getAll())
    let total = all.reduce((n, e) => n + (e.size ?? 0), 0)
    for (const e of all) {
      if (total <= maxBytes) break
      os.delete(e.key)
      total -= e.size ?? 0
    }
    await done(tx)
  }
  return {
    /** Opens the database ahead of the first get (an engine starting), if it exists: a page that never stores creates none. */
    warm() {
      indexedDB
        .databases?.()
        .then((dbs) => dbs.some((d) => d.name === name) && open())
        .catch(() => {})
    },
    async get(key) {
      const d = await open()
      const e = await req(d.transaction('entries', 'readonly').objectStore('entries').get(key))
      if (e) {
        // Recency for eviction, in a transaction of its own that the read does not wait for.
        const tx = d.transaction('entries', 'readwrite')
        tx.objectStore('entries').put({ ...e, used: Date.now() })
        done(tx).catch(() => {})
      }
      return e ? e.value : null
    },
    async put(key, value) {
      if (value.length > maxBytes) return
      const tx = (await open()).transaction('entries', 'readwrite')
      tx.objectStore('entries').put({ key, value, size: value.length, used: Date.now() })
      await done(tx)
      await evict()
    },
    async delete(key) {
      const tx = (await open()).transaction('entries', 'readwrite')
      tx.objectStore('entries').delete(key)
      await done(tx)
    },
  }
}

let defaultIdb = null
const folders = new Map() // dir → its store, so one process chains its writes to a folder

/** Opens the default store ahead of the first open (a browser's engine starting). */
export function warmDefaultStore() {
  resolveStore(undefined)?.warm?.()
}

/**
 * The store an open's metadataCache option names: false or null, none; an object with get,
 * put and delete, itself; a string (Node), the folder of that path; undefined or true,
 * IndexedDB in a browser (page or Worker) and none in Node.
 */
export function resolveStore(opt) {
  if (opt === false || opt === null) return null
  if (opt && typeof opt.get === 'function' && typeof opt.put === 'function' && typeof opt.delete === 'function') return opt
  if (typeof opt === 'string') {
    if (!isNode) return null
    if (!folders.has(opt)) folders.set(opt, folderStore(opt))
    return folders.get(opt)
  }
  if ((opt === undefined || opt === true) && !isNode && typeof indexedDB !== 'undefined') return (defaultIdb ??= idbStore())
  return null
}
