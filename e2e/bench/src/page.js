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
  async run(q, url, size) {
    const t0 = performance.now()
    try {
      const r = await window.bench.m.run(q, url, size)
      return { ms: performance.now() - t0, ...r }
    } catch (e) {
      return { ms: performance.now() - t0, error: String(e && e.stack || e) }
    }
  },
}
window.benchReady = true
