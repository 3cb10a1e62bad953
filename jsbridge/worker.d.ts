// Types of `pqscan/worker`: the Worker script of the bridge (src/worker.js). It exports
// nothing; it answers the messages of the bridge's Worker client when loaded as a browser
// module Worker or a Node worker_threads Worker. Point an engine at your own copy with
// `createEngine({ workerURL: new URL('pqscan/worker', import.meta.url) })` (or a bundler's
// worker URL), e.g. when a bundler moves the files apart.
export {}
