// The bench page: ?c=<contender> loads that contender's bundle; the driver calls
// window.bench.load(ctx) and window.bench.run(q, url, size) and reads the times measured here.
const c = new URLSearchParams(location.search).get('c')
window.bench = {
  async load(ctx) {
    const t0 = performance.now()
    const m = await import(`/build/${c}.js`)
    await m.load(ctx)
    window.bench.m = m
    return { ms: performance.now() - t0 }
  },
  run: (q, url, size) => timed(() => window.bench.m.run(q, url, size)),
  // The dataset workload (dataset.js): ctx holds the listed files ({url, size, key, day}).
  dataset: (q, ctx) => timed(() => window.bench.m.dataset(q, ctx)),
}
window.benchReady = true

async function timed(fn) {
  const t0 = performance.now()
  try {
    const r = await fn()
    return { ms: performance.now() - t0, ...r }
  } catch (e) {
    return { ms: performance.now() - t0, error: String(e && e.stack || e) }
  }
}
