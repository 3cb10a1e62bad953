// Start-up marks: when each step of an engine's start happened (Worker script evaluated, module
// fetched and compiled, instance created, Go runtime initialized, first module call). They are
// what the cold-page breakdown in BENCHMARKS.md ("pqscan's start, step by step") is made of, read through debugStats()
// (testing/benchmarks only). Times are epoch milliseconds (performance.timeOrigin + now()), so
// marks taken in the page and in its Worker, whose clocks start at different origins, line up.
//
// Why always on: a mark is one array push, taken only on the start-up path (a few per engine),
// and the array is bounded; an opt-in flag would need plumbing through the Worker protocol for
// nothing measurable.

const MAX = 64
const marks = []

/** Epoch milliseconds with sub-millisecond resolution where the host offers it. */
export function now() {
  const p = globalThis.performance
  return p?.timeOrigin != null ? p.timeOrigin + p.now() : Date.now()
}

const seen = new Set()

/**
 * Records that step `name` happened now, the first time only: the marks describe the first
 * start and the first query, not every later one (at most MAX names per realm).
 */
export function mark(name) {
  if (seen.has(name) || marks.length >= MAX) return
  seen.add(name)
  marks.push({ name, t: now() })
}

/** The marks of this realm (the page's, or a Worker's), oldest first. */
export function startMarks() {
  return marks.slice()
}
