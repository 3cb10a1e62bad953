// The Chromium side of bench/cmd/wasmspeed (engine "chromium"): the same scans as
// wasmspeed.mjs, in the V8 of a headless Chromium page (Debian's chromium via playwright-core)
// instead of Node's. Node 20 carries V8 11.3; the browser a current V8, whose tier-up and code
// quality differ (e2e/bench/NOTES.md: zstd's C decoder ran 1.5× faster there), and
// the browser is where the module's users run it. The page runs the bridge's Core in its own
// thread, the engine started and the footer read before the first scan, over the file in the
// page's memory behind the MemoryBlob that wasmspeed.mjs uses (a browser Blob's reads go to the
// browser process; the native side reads a []byte). Same line protocol as wasmspeed.mjs; each
// answer has no cpuSeconds (a page cannot read its process's CPU time).
//
//   node bench/v8/wasmspeed-chromium.mjs FILE.parquet [MODULE.wasm]
//
// CHROMIUM: the browser binary (default /usr/bin/chromium). WASMSPEED_CPUPROF=FILE: the page's
// V8 CPU profile of every scan after the first answer, written as FILE (a .cpuprofile, the
// format of node --cpu-prof) when stdin ends; with a module built with names
// (bin/pqscan-names.wasm) its functions have their Go names.
import http from 'node:http'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const [file, wasm = fileURLToPath(new URL('../../wazerohost/pqscan.wasm', import.meta.url))] = args
const jsRequire = createRequire(new URL('../../jsbridge/package.json', import.meta.url))
const e2eRequire = createRequire(new URL('../../e2e/package.json', import.meta.url))
const { chromium } = e2eRequire('playwright-core')
const esbuild = jsRequire('esbuild')

// The page's code: Core and MemoryBlob bundled for the browser (the zstd decoder inlined).
const entry = `
import { Core } from ${JSON.stringify(fileURLToPath(new URL('../../jsbridge/src/core.js', import.meta.url)))}
import { MemoryBlob } from ${JSON.stringify(fileURLToPath(new URL('./memory-blob.mjs', import.meta.url)))}
let core, id
window.pqStart = async () => {
  const [w, f] = await Promise.all(['/pqscan.wasm', '/file.parquet'].map(async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer())))
  core = new Core({ wasm: w })
  ;({ id } = await core.openFile(new MemoryBlob(f)))
  return true
}
window.pqScan = async (opts) => {
  const t0 = performance.now()
  let ipcBytes = 0
  for await (const st of core.scan(id, opts)) if (st.type === 'batch') ipcBytes += st.ipc.byteLength
  return { seconds: (performance.now() - t0) / 1000, ipcBytes }
}
`
const built = await esbuild.build({
  stdin: { contents: entry, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
  bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'error', external: ['node:*'],
})
const files = new Map([
  ['/', ['text/html', '<!doctype html><script type="module" src="/entry.js"></script>']],
  ['/entry.js', ['text/javascript', built.outputFiles[0].contents]],
  ['/pqscan.wasm', ['application/wasm', readFileSync(wasm)]],
  ['/file.parquet', ['application/octet-stream', readFileSync(file)]],
])
const srv = http.createServer((req, res) => {
  const f = files.get(req.url)
  if (!f) return res.writeHead(404).end()
  res.writeHead(200, { 'content-type': f[0] }).end(f[1])
}).listen(0, '127.0.0.1')
await new Promise((r) => srv.once('listening', r))
const br = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] })
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')
try {
  const page = await br.newPage()
  page.on('pageerror', (e) => process.stderr.write(`page error: ${e}\n`))
  await page.goto(`http://127.0.0.1:${srv.address().port}/`)
  await page.waitForFunction(() => typeof window.pqStart === 'function')
  await page.evaluate(() => window.pqStart())
  const prof = process.env.WASMSPEED_CPUPROF
  const cdp = prof ? await page.context().newCDPSession(page) : null
  if (cdp) {
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
    await cdp.send('Profiler.start')
  }
  out({ ready: true, browser: br.version() })
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue
    try {
      const req = JSON.parse(line)
      out(await page.evaluate((o) => window.pqScan(o), Array.isArray(req) ? { columns: req } : req))
    } catch (e) {
      out({ error: String(e?.stack ?? e) })
    }
  }
  if (cdp) writeFileSync(prof, JSON.stringify((await cdp.send('Profiler.stop')).profile))
} finally {
  await br.close()
  srv.close()
}
