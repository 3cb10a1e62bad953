// CPU time per thread of a process tree, from /proc (Linux): /proc/PID/task/TID/schedstat's
// first field is the ns the thread ran on a CPU. Steadier than wall time on a shared machine:
// what a query costs Chromium's threads (the Worker, the page, the network service, the IO
// threads) and the bench server, whatever else the box runs. Threads that ended in between
// are lost, so the numbers are a lower bound.
import { readdirSync, readFileSync } from 'node:fs'

function ppidOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return -1
  }
}

/** The pids of root and its descendants. */
export function tree(root) {
  const all = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number)
  const kids = new Map()
  for (const p of all) {
    const pp = ppidOf(p)
    if (!kids.has(pp)) kids.set(pp, [])
    kids.get(pp).push(p)
  }
  const out = []
  const walk = (p) => {
    out.push(p)
    for (const k of kids.get(p) ?? []) walk(k)
  }
  walk(root)
  return out
}

/** {`${comm}`: ns} summed over the threads of pids with the same name; key "pid:tid" kept apart by name only. */
export function threadCPU(pids) {
  const m = new Map()
  for (const p of pids) {
    let kind = ''
    try {
      const cl = readFileSync(`/proc/${p}/cmdline`, 'utf8')
      const t = /--type=([a-z-]+)/.exec(cl)?.[1]
      const sub = /--utility-sub-type=([A-Za-z.]+)/.exec(cl)?.[1]
      kind = t ? (sub ? sub.split('.')[0] : t) : cl.includes('chrom') ? 'browser' : ''
    } catch {}
    let tids = []
    try {
      tids = readdirSync(`/proc/${p}/task`)
    } catch {
      continue
    }
    for (const t of tids) {
      try {
        const ns = Number(readFileSync(`/proc/${p}/task/${t}/schedstat`, 'utf8').split(' ')[0])
        const comm = (kind ? kind + ':' : '') + readFileSync(`/proc/${p}/task/${t}/comm`, 'utf8').trim()
        m.set(`${p}/${t}`, { comm, ns })
      } catch {}
    }
  }
  return m
}

/** ms of CPU per thread name between two threadCPU snapshots (new threads count from 0). */
export function diffCPU(a, b) {
  const out = {}
  for (const [k, v] of b) {
    const d = (v.ns - (a.get(k)?.ns ?? 0)) / 1e6
    if (d > 0) out[v.comm] = (out[v.comm] ?? 0) + d
  }
  return out
}
