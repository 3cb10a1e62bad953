// What the Scan of query() (index.js) scans: a file that the scan itself opens. With an
// engine in a Worker (WorkerEngine.query) the open and the scan go to the Worker together; an
// engine in this thread (Core) opens, then scans, as the two calls would.

import { arrow } from './arrow.js'
import { planId } from './options.js'

export class QueryTarget {
  /**
   * @param {object} impl the engine (Core or WorkerEngine)
   * @param {() => Promise<unknown>} target the source as Core.openFile takes it
   * @param {object} src the HTTP options of the open
   */
  constructor(impl, target, src) {
    this.impl = impl
    this.target = target
    this.src = src
    // The open's, set when the engine sends them (before the first batch).
    this.schema = null
    this.metadata = null
  }

  /** The engine's messages of the scan (Scan), after the open's own. */
  async *iterate(opts, hooks) {
    const target = await this.target()
    // replay: the scan's plan key, so that the open of a file the metadata cache knows fetches
    // what this scan read last time while the engine starts (tailcache.js).
    const src = { ...this.src, replay: planId(opts) }
    const it = this.impl.query ? this.impl.query(target, src, opts, hooks) : openThenScan(this.impl, target, src, opts, hooks)
    for await (const m of it) {
      if (m.type === 'opened') {
        // apache-arrow is imported on demand (arrow.js), so that the bundle's entry stays small.
        const { tableFromIPC } = await arrow()
        this.schema = tableFromIPC(m.schemaIPC).schema
        this.metadata = m.metadata
      } else yield m
    }
  }
}

// A query on an engine in this thread (Core): nothing to save by sending the two together.
async function* openThenScan(impl, target, src, opts, hooks) {
  const { id, schemaIPC, metadata } = await impl.openFile(target, src, hooks.signal)
  try {
    yield { type: 'opened', schemaIPC, metadata }
    yield* impl.scan(id, opts, hooks)
  } finally {
    impl.closeFile(id)
  }
}
