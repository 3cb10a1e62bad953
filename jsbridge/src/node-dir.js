// Local directories in Node, listed for datasets: folder.js walks folders and globs, delta.js
// lists a Delta log. The rules are the Go host's (internal/localfs), so that both hosts and
// DuckDB's read_parquet see the same files:
// - a symbolic link to a directory is a directory, to a file a file, both under the link's own
//   name (a Hive value comes from the link's name, not the target's);
// - a broken link (target missing, or a chain of links that loops) is left out, as DuckDB's
//   globs leave it out;
// - a link to a directory on its own path (itself or an ancestor: a cycle) is not followed:
//   that directory is already being walked, so nothing is lost and each file is listed once.
//   Two links to one directory from different places are both followed.
// Only regular files and directories are listed. A walk enters at most MAX_DIRS directories
// (as the Go host's localfs.MaxDirs): links that lead into the same folders from many places
// multiply a tree, and a walk over such a tree would never end. Node modules are imported
// dynamically: the browser bundle never loads them (see node-file.js).

export const limits = { maxDirs: 1 << 20 }

/**
 * The entries of dir in byte order of their names, links resolved.
 * @param {string} dir
 * @returns {Promise<{name: string, dir: boolean, id: string|null}[]>} id: a directory's
 *   identity (device and inode), null for a file
 */
export async function readDir(dir) {
  const fs = await import('node:fs/promises')
  const { join } = await import('node:path')
  const out = []
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    if (e.isFile()) {
      out.push({ name: e.name, dir: false, id: null })
      continue
    }
    if (!e.isDirectory() && !e.isSymbolicLink()) continue
    let st
    try {
      st = await fs.stat(join(dir, e.name), { bigint: true })
    } catch (err) {
      if (err?.code === 'ENOENT' || err?.code === 'ELOOP') continue // broken
      throw err
    }
    if (st.isDirectory()) out.push({ name: e.name, dir: true, id: `${st.dev}:${st.ino}` })
    else if (st.isFile()) out.push({ name: e.name, dir: false, id: null })
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/**
 * Every regular file below dir, as '/'-separated keys relative to it, in byte order (the
 * order of an object store's listing).
 * @param {string} dir
 * @returns {Promise<string[]>}
 */
export async function walkFiles(dir) {
  const fs = await import('node:fs/promises')
  const { join } = await import('node:path')
  const st = await fs.stat(dir, { bigint: true })
  if (!st.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, walk '${dir}'`), { code: 'ENOTDIR' })
  const up = new Set([`${st.dev}:${st.ino}`]) // the directories from dir down to the one listed
  const out = []
  let dirs = 0
  const walk = async (prefix) => {
    if (++dirs > limits.maxDirs) {
      throw Object.assign(new Error(`pqscan: more than ${limits.maxDirs} directories below ${dir} (links that lead into the same folders from many places?)`), { code: 'ETOOMANYDIRS' })
    }
    for (const e of await readDir(join(dir, ...prefix.split('/').filter(Boolean)))) {
      const k = prefix + e.name
      if (!e.dir) out.push(k)
      else if (!up.has(e.id)) {
        up.add(e.id)
        await walk(k + '/')
        up.delete(e.id)
      }
    }
  }
  await walk('')
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}
