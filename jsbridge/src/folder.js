// Folders and globs as datasets (openDataset('https://host/table/'), openDataset('./table/')
// and local globs in Node): what a folder holds is decided here, once, at open. A folder with
// a `_delta_log/` is a Delta table, read by the module's Delta session (delta.js); any other
// folder is every `*.parquet` below it (hidden and `_`-prefixed names skipped, as Spark and
// Hive do) — over HTTP from a ListObjectsV2 listing (listing.js), in Node from the file system
// (node-dir.js: symbolic links followed, cycles and broken links skipped);
// a glob selects keys with the same matcher as listDataset. Local files' Hive key=value
// directories are parsed from their whole paths, as the CLI does.
import { PqscanError } from './errors.js'
import { listDataset, selector } from './listing.js'
import { readSnapshot, probeHTTPFolder, httpDeltaIO, localDeltaIO } from './delta.js'
import { HttpSource } from './http.js'
import { BlobSource } from './blob.js'
import { nodeFileReader } from './node-file.js'
import { walkFiles } from './node-dir.js'

/**
 * The files of a folder or glob, as Core.openDataset takes them, and for a Delta table its
 * snapshot (the table session's options, delta.js).
 * @param {import('./module.js').Instance} inst
 * @param {{url?: string, path?: string, glob?: boolean, version?: number, pathStyle?: boolean}} f
 *   url: an http(s) folder URL or glob; path: a local (Node) folder, written with a trailing
 *   separator, or a glob
 * @param {object} opts the HTTP options of the dataset
 * @returns {Promise<{list: object[], snapshot: object|null, root: string}>}
 */
export async function resolveFolder(inst, f, opts, signal) {
  const http = { fetch: opts.fetch, headers: opts.headers, signal, pathStyle: f.pathStyle }
  if (f.url != null) {
    if (f.glob) return { list: await httpList(f.url, http), snapshot: null, root: '' }
    const probe = await probeHTTPFolder(f.url, http)
    if (!probe.delta) {
      if (f.version != null) throw new PqscanError('options', `pqscan: ${f.url} is not a Delta table (no _delta_log/): the version option needs one`)
      return { list: await httpList(f.url, http), snapshot: null, root: f.url }
    }
    const io = httpDeltaIO(f.url, http, (u) => new HttpSource(u, opts), probe)
    const snapshot = await readSnapshot(inst, io, { version: f.version, tailSize: opts.tailSize }, signal)
    const list = snapshot.table.files.map((x) => ({ url: f.url + x.path, size: x.size }))
    return { list, snapshot, root: f.url }
  }
  const fs = await import('node:fs/promises')
  const path = await import('node:path')
  if (f.glob) return { list: await localGlob(path, f.path), snapshot: null, root: '' }
  const root = f.path
  const st = await fs.stat(root).catch((e) => {
    throw new PqscanError('source', `pqscan: ${root}: ${e.message}`, { cause: e })
  })
  if (!st.isDirectory()) throw new PqscanError('source', `pqscan: ${root} is not a folder`)
  const isDelta = await fs.stat(path.join(root, '_delta_log')).then((s) => s.isDirectory(), () => false)
  if (!isDelta) {
    if (f.version != null) throw new PqscanError('options', `pqscan: ${root} is not a Delta table (no _delta_log/): the version option needs one`)
    const sel = selector('', true)
    const list = (await walkFiles(root)).filter((k) => sel.keep(k)).map((k) => ({ file: path.join(root, ...k.split('/')) }))
    return { list, snapshot: null, root: '' }
  }
  const io = await localDeltaIO(root, async (p) => {
    const s = new BlobSource(await nodeFileReader(p))
    s.label = p
    return s
  })
  const snapshot = await readSnapshot(inst, io, { version: f.version, tailSize: opts.tailSize }, signal)
  const list = snapshot.paths.map((p) => ({ file: path.join(root, ...p.split('/')) }))
  for (const it of list) {
    // As the Go host: a data file the log names but the folder lacks fails now, naming it.
    if (!(await fs.stat(it.file).then((s) => s.isFile(), () => false))) {
      throw new PqscanError('source', `pqscan: ${root}: version ${snapshot.version}: the Delta log names ${it.file}, which does not exist`, { file: it.file })
    }
  }
  return { list, snapshot, root }
}

async function httpList(url, http) {
  const ents = await listDataset(url, http)
  if (ents.length === 0) throw new PqscanError('source', `pqscan: ${url}: no Parquet file there`)
  return ents.map((e) => ({ url: e.url, size: e.size }))
}

// A local glob ('/data/events/*/part-*.parquet', '**' for any depth): the matcher of
// listDataset over the files below the glob's fixed leading folder.
async function localGlob(path, glob) {
  const abs = path.resolve(glob).split(path.sep).join('/')
  const meta = abs.search(/[*?[]/)
  const base = abs.slice(0, abs.lastIndexOf('/', meta) + 1)
  const sel = selector(abs.slice(base.length), false)
  const keys = await walkFiles(base).catch((e) => {
    throw new PqscanError('source', `pqscan: ${glob}: ${e.message}`, { cause: e })
  })
  const list = keys.filter((k) => sel.keep(k)).map((k) => ({ file: path.join(base, ...k.split('/')) }))
  if (list.length === 0) throw new PqscanError('source', `pqscan: ${glob}: no file matches`)
  return list
}
