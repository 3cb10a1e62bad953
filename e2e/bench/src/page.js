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
  // The viewport workload (geo.js): ctx holds the places file ({url, size}).
  geo: (q, ctx) => timed(() => window.bench.m.geo(q, ctx)),
}
window.benchReady = true

// A cold (or warm-cache) page load (run.js, coldCells): the driver sets window.__benchCold
// before the page's scripts run, and the page loads its contender and runs the one query at
// once, as an app that queries on load would; times are from the navigation's start
// (performance.now()'s origin), so the HTML and this script's own fetch count too.
if (window.__benchCold) window.benchCold = coldRun(window.__benchCold)

async function coldRun({ q, url, size, loadCtx }) {
  const t0 = performance.now()
  try {
    const m = await import(`/build/${c}.js`)
    const tImported = performance.now()
    await m.load({ ...loadCtx, cold: true })
    // loadCtx.gapMs (BENCH_COLD_GAP_MS, a diagnostic): the app's first query comes that long
    // after its engine is ready, as a page that starts the engine at load and queries later.
    if (loadCtx.gapMs > 0) await new Promise((r) => setTimeout(r, loadCtx.gapMs))
    const tReady = performance.now()
    const r = await m.run(q, url, size)
    const tDone = performance.now()
    // pqscan: when each step of its start happened (epoch ms; timeOrigin maps them to this page's clock).
    const marks = m.startMarks ? await m.startMarks() : undefined
    return { ...r, marks, timeOrigin: performance.timeOrigin, startMs: t0, importMs: tImported - t0, loadMs: tReady - t0, queryMs: tDone - tReady, totalMs: tDone }
  } catch (e) {
    return { error: String(e && e.stack || e), totalMs: performance.now() }
  }
}

async function timed(fn) {
  const t0 = performance.now()
  try {
    const r = await fn()
    return { ms: performance.now() - t0, ...r }
  } catch (e) {
    return { ms: performance.now() - t0, error: String(e && e.stack || e) }
  }
}
