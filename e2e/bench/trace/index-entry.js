// The page side of the timeline build: the bridge's index.js with marks on the Worker
// messages (WorkerEngine.post / onMessage) and the batches' IPC decode (tableFromIPC in Scan),
// plus traceMarks(engine): both threads' marks, merged.
import { marks, mark, span } from './hooks.js'
import { WorkerEngine } from '../../../jsbridge/src/worker-client.js'
import { Scan } from '../../../jsbridge/src/index.js'

export * from '../../../jsbridge/src/index.js'

const post = WorkerEngine.prototype.post
WorkerEngine.prototype.post = function (m, tr) {
  if (m?.t !== '__trace') mark(`P post ${m?.t}`)
  return post.call(this, m, tr)
}
const onMessage = WorkerEngine.prototype.onMessage
WorkerEngine.prototype.onMessage = function (m) {
  if (m?.t === '__trace') return this.__trace?.(m.marks)
  mark(`P recv ${m?.t}`)
  return onMessage.call(this, m)
}
const consume = Scan.prototype.consume
Scan.prototype.consume = async function* (it) {
  for await (const b of consume.call(this, it)) {
    mark('P batch decoded (tableFromIPC)')
    yield b
  }
}
span(WorkerEngine.prototype, 'openFile', 'P openFile')
const start = WorkerEngine.prototype.start
WorkerEngine.prototype.start = function () {
  globalThis.__pqEngine = this
  return start.call(this)
}

export { mark }
export async function traceMarks() {
  const impl = globalThis.__pqEngine
  const w = await new Promise((resolve) => {
    impl.__trace = resolve
    impl.w.postMessage({ t: '__trace' })
  })
  const p = marks.splice(0).map((m) => ({ ...m, ev: m.ev.startsWith('P ') ? m.ev : `P ${m.ev}` }))
  return [...w.map((m) => ({ ...m, ev: `W ${m.ev}` })), ...p].sort((a, b) => a.t - b.t)
}

// Experiments (timeline.js TL_SCAN / TL_OPEN: JSON options merged into every scan / open).
import { ParquetFile } from '../../../jsbridge/src/index.js'
const scan = Object.getPrototypeOf(ParquetFile.prototype).scan
ParquetFile.prototype.scan = function (o = {}) {
  return scan.call(this, { ...o, ...(globalThis.__tlScan ?? {}) })
}
const openFile = WorkerEngine.prototype.openFile
WorkerEngine.prototype.openFile = function (url, o = {}, signal) {
  return openFile.call(this, url, { ...o, ...(globalThis.__tlOpen ?? {}) }, signal)
}
