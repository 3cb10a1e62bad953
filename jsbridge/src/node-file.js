// Local files in Node: which inputs name one (a path, relative or absolute, or a file: URL),
// and a reader of one through node:fs/promises, reading each range with FileHandle.read at its
// offset (never the whole file). Node modules are imported dynamically behind isNode, so the
// browser bundle (esbuild --platform=browser --external:node:*) never loads them.

import { PqscanError } from './errors.js'

export const isNode = typeof process !== 'undefined' && process.versions?.node != null && typeof window === 'undefined'

/**
 * The absolute path that x names in Node — a string without a URL scheme (a path, relative
 * to the working directory), a file: URL string, or a URL object with protocol file: — or
 * null for anything else (http(s) URLs, Blobs, …, and everything outside Node).
 */
export async function localPath(x) {
  if (!isNode) return null
  const isURL = x instanceof URL
  if (!isURL && typeof x !== 'string') return null
  const s = String(x)
  const { fileURLToPath } = await import('node:url')
  const { resolve } = await import('node:path')
  if (isURL || s.startsWith('file:')) {
    if (!s.startsWith('file:')) return null
    try {
      return fileURLToPath(s)
    } catch (e) {
      throw new PqscanError('source', `pqscan: ${s} is not a local file URL: ${e.message}`, { cause: e })
    }
  }
  // A scheme (http:, https:, data:, …) is a URL; a Windows drive letter (C:\) is a path.
  if (/^[a-z][a-z0-9+.-]+:/i.test(s)) return null
  return resolve(s)
}

/**
 * Opens a reader of the local file at path (absolute): stats it once for its size and
 * identity; each read opens the file, checks that it is still the same one (device, inode,
 * size, mtime — else "file-changed", as an HTTP source's ETag would), reads the range at its
 * offset and closes it again, so no file handle outlives a read.
 */
export async function nodeFileReader(path) {
  const fs = await import('node:fs/promises')
  const st = await fsCall(() => fs.stat(path), path)
  if (!st.isFile()) throw new PqscanError('source', `pqscan: ${path} is not a regular file`)
  const id = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`
  return {
    size: st.size,
    label: path,
    key: `file:${path}\n${id}`,
    read: async (off, len) => {
      const fh = await fsCall(() => fs.open(path, 'r'), path)
      try {
        const now = await fsCall(() => fh.stat(), path)
        if (`${now.dev}:${now.ino}:${now.size}:${now.mtimeMs}` !== id) {
          throw new PqscanError('file-changed', `pqscan: ${path} changed since it was opened`)
        }
        const b = new Uint8Array(len)
        for (let got = 0; got < len; ) {
          const { bytesRead } = await fsCall(() => fh.read(b, got, len - got, off + got), path)
          if (bytesRead === 0) return b.subarray(0, got) // short: BlobSource reports it
          got += bytesRead
        }
        return b
      } finally {
        await fh.close().catch(() => {})
      }
    },
  }
}

async function fsCall(fn, path) {
  try {
    return await fn()
  } catch (e) {
    if (e instanceof PqscanError) throw e
    throw new PqscanError('source', `pqscan: cannot read ${path}: ${e?.code ?? ''} ${e?.message ?? e}`.replace(/  +/g, ' '), { cause: e })
  }
}
