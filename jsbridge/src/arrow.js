// apache-arrow, loaded by a dynamic import instead of a static one (BENCHMARKS.md "Where a
// cold start goes"): the browser bundle is then ~60 KiB of bridge that starts the engine at
// once, and apache-arrow (~550 KiB unminified, most of the bundle's evaluation) arrives as a
// separate chunk while the module compiles, instead of before the compile can even start. Every
// use is after an engine call (a schema, a batch), which takes longer than the import, so an
// open or a scan never waits for it.

import { mark } from './marks.js'

let loading = null

/** The apache-arrow module, imported once. */
export function arrow() {
  loading ??= import('apache-arrow').then((m) => (mark('arrow.imported'), m))
  return loading
}

/**
 * Starts the import beside the engine's start. Its failure is reported where arrow() is
 * awaited (the same rejected promise), not here.
 */
export function preloadArrow() {
  arrow().catch(() => {})
}
