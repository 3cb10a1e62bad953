// Starts bin/pqserve (the web demo, the bridge bundle, the module, /data, /corpus, /fixtures)
// and Debian's Chromium through playwright-core. Never downloads a browser.
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { tableFromIPC } from 'apache-arrow'
import { normRows } from '../fixtures/norm.js'

const here = path.dirname(fileURLToPath(import.meta.url))
export const root = path.resolve(here, '../..')
export const outDir = path.join(root, 'e2e/out')

export function corpusDir() {
  const c = [process.env.PQSCAN_TESTDATA, path.resolve(root, '../shared/testdata')].filter(Boolean)
  for (const d of c) if (existsSync(d)) return d
  throw new Error(`corpus not found (tried ${c.join(', ')}); set PQSCAN_TESTDATA`)
}

export const sampleDir = path.join(root, '.cache/sample')

/** Starts pqserve; opts.data: the directory served at /data/ (default the sample's). */
export async function startServer(opts = {}) {
  const bin = path.join(root, 'bin/pqserve')
  const args = ['serve', '-addr', '127.0.0.1:0', '-data', opts.data ?? sampleDir, '-corpus', corpusDir(), '-fixtures', path.join(root, 'e2e/fixtures'), '-web', path.join(root, 'web'), '-js', path.join(root, 'jsbridge/dist'), '-wasm', path.join(root, 'wazerohost/pqscan.wasm')]
  const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  const info = await new Promise((resolve, reject) => {
    let buf = ''
    p.stdout.on('data', (d) => {
      buf += d
      const line = buf.split('\n').find((l) => l.startsWith('{'))
      if (line) resolve(JSON.parse(line))
    })
    p.on('exit', (code) => reject(new Error(`pqserve exited (${code})`)))
    setTimeout(() => reject(new Error('pqserve did not start')), 20000)
  })
  return { ...info, stop: () => p.kill('SIGTERM') }
}

export async function startBrowser() {
  const dir = mkdtempSync(path.join(tmpdir(), 'pqscan-chromium-'))
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 1000 },
  })
  return {
    ctx,
    async close() {
      await ctx.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * pqserve (opts as startServer's), Chromium and one page on fixtures/blank.html, its errors
 * logged; close() stops them.
 */
export async function startPage(opts) {
  const srv = await startServer(opts)
  const br = await startBrowser()
  const page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
  await page.goto(srv.url + 'fixtures/blank.html')
  return {
    srv,
    br,
    page,
    async close() {
      await br.close()
      srv.stop()
    },
  }
}

/** The Go engine's answer (native, via `pqserve cat`) as canonical rows. */
export function goRows(file, q = {}) {
  const args = ['cat', file]
  if (q.columns) args.push('-columns', q.columns.join(','))
  if (q.where) args.push('-where', q.where)
  if (q.limit) args.push('-limit', String(q.limit))
  if (q.offset) args.push('-offset', String(q.offset))
  const ipc = execFileSync(path.join(root, 'bin/pqserve'), args, { maxBuffer: 256 << 20 })
  return normRows(tableFromIPC(ipc))
}

export function ensureOut() {
  mkdirSync(outDir, { recursive: true })
}

/**
 * Holds the browser's requests matching `match` (a Playwright URL pattern; Worker requests
 * included) unanswered until release(), so a test can act while a request is in flight
 * without depending on timing. whenHeld(n) resolves once n requests are held, whenDropped(n)
 * once the page cancelled n of them (errors() lists how they failed, e.g. net::ERR_ABORTED).
 */
export async function holdRequests(ctx, match) {
  const routes = []
  const failed = []
  let waiters = []
  const notify = () => (waiters = waiters.filter((w) => !(w.ready() && (w.resolve(), true))))
  const when = (ready) => new Promise((resolve) => (waiters.push({ ready, resolve }), notify()))
  const handler = (route) => {
    routes.push(route)
    notify()
  }
  const onFailed = (req) => {
    if (!routes.some((r) => r.request() === req)) return
    failed.push(req.failure()?.errorText)
    notify()
  }
  await ctx.route(match, handler)
  ctx.on('requestfailed', onFailed)
  return {
    routes,
    whenHeld: (n) => when(() => routes.length >= n),
    whenDropped: (n) => when(() => failed.length >= n),
    errors: () => failed.slice(),
    async release() {
      ctx.off('requestfailed', onFailed)
      await ctx.unroute(match, handler)
      for (const r of routes) await r.continue().catch(() => {})
    },
  }
}
