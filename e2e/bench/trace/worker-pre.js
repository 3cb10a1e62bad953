// Runs before jsbridge's worker.js (import order): marks every message the Worker receives
// before worker.js's handler sees it, and every message it posts.
import { marks, mark } from './hooks.js'

const post = globalThis.postMessage.bind(globalThis)
globalThis.postMessage = (m, tr) => {
  mark(`post ${m?.t}`)
  return post(m, tr)
}
globalThis.addEventListener('message', (e) => {
  if (e.data?.t === '__trace') post({ t: '__trace', marks: marks.splice(0) })
  else mark(`recv ${e.data?.t}`)
})
