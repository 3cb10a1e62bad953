// Starting a module Worker (the engine's, and the scan pool's), in a browser or in Node
// (worker_threads), and what may be posted to one.

const isBrowserLike = typeof Worker !== 'undefined' && typeof window !== 'undefined'

/**
 * Starts the module Worker. A Worker script must have the page's origin, but a bundle loaded
 * from another origin (a CDN, or any notebook: the notebook's origin is never the bundle's)
 * resolves worker.js on its own origin, and `new Worker` would throw a SecurityError. Then the
 * Worker starts from a same-origin blob that imports worker.js: a module Worker may import
 * cross-origin modules that are served with CORS, as the bundle itself was. onBlob receives
 * the blob URL, to revoke once the Worker has loaded.
 */
function browserWorker(url, onBlob) {
  const u = new URL(String(url), typeof location !== 'undefined' ? location.href : undefined)
  const here = typeof location !== 'undefined' ? location.origin : null
  if (here == null || u.origin === here || u.protocol === 'blob:' || u.protocol === 'data:') {
    return new Worker(u, { type: 'module', name: 'pqscan' })
  }
  const blob = new Blob([`import ${JSON.stringify(u.href)}\n`], { type: 'text/javascript' })
  const b = URL.createObjectURL(blob)
  onBlob(b)
  return new Worker(b, { type: 'module', name: 'pqscan' })
}

/**
 * Starts worker.js (or url) as a Worker: a browser module Worker where there is one, else a
 * Node worker_threads Worker (unref'd: the caller refs it while it waits on it). The hooks
 * get its messages and its end (an error, or an exit in Node); onBlob as browserWorker's.
 * @returns {Promise<{w: any, node: boolean}>}
 */
export async function spawnWorker(url, { onMessage, onCrash, onBlob = () => {} }) {
  if (typeof Worker !== 'undefined' && (isBrowserLike || typeof process === 'undefined')) {
    const w = browserWorker(url, onBlob)
    w.onmessage = (e) => onMessage(e.data)
    w.onerror = (e) => onCrash(new Error(`pqscan: the worker failed: ${e.message ?? e}`))
    return { w, node: false }
  }
  const { Worker: NodeWorker } = await import('node:worker_threads')
  const w = new NodeWorker(url instanceof URL ? url : new URL(url))
  w.on('message', (m) => onMessage(m))
  w.on('error', (e) => onCrash(e))
  w.on('exit', (code) => onCrash(new Error(`pqscan: the worker exited (${code})`)))
  w.unref()
  return { w, node: true }
}

// Whether a Blob can cross into the Worker (a Blob of Node's fs.openAsBlob cannot).
export function cloneable(blob) {
  try {
    structuredClone(blob)
    return true
  } catch {
    return false
  }
}

// A URL as an absolute href (a relative one against the page), anything else as is.
export function hrefOf(x) {
  if (x instanceof URL) return x.href
  if (typeof x === 'string' && typeof location !== 'undefined') return new URL(x, location.href).href
  return x
}
