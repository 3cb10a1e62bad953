// The Worker of the timeline build: hooks first, then the bridge's worker.js unchanged; a
// {t: '__trace'} message answers with the marks so far (and clears them).
import { hookEngine, hookFetch } from './hooks.js'
import './worker-pre.js'
import '../../../jsbridge/src/worker.js'

hookEngine()
hookFetch()
