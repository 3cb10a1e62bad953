// The demo's picture in headless Chromium, against bin/pqserve: one file's row groups with a
// strip of page cells per column, and the dataset mode's files → row groups → pages. The DOM
// is checked cell by cell against the report the page got from the module, and that report's
// page letters against the native Go engine's (`pqserve cat -report`) for the same query; the
// rows against the Go engine's. An Iceberg or Delta table's folder in the dataset box is drawn
// the same way. Screenshots go to e2e/out/demo-pages.png, e2e/out/demo-dataset.png and
// e2e/out/demo-iceberg.png.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { tableFromIPC } from 'apache-arrow'
import { normRows } from '../fixtures/norm.js'
import { startServer, startBrowser, root, sampleDir, outDir, ensureOut, corpusDir } from './harness.js'
import { icebergTables } from '../../jsbridge/test/iceberg-corpus.js'

const PAGE_CLASS = { R: 'read', I: 'pageindex', L: 'latemat', S: 'slice', P: 'planned' }
const FILE_WHERE = "tenant_id = 42 AND event_type = 'purchase'"
const DS_WHERE = "event_date >= DATE '2026-10-03' AND tenant_id = 42" // cmd/pqserve datasetWhere
const dsDir = path.join(sampleDir, 'ds')

let srv, br, page, tmp
before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pqscan-e2e-demo-'))
  srv = await startServer()
  br = await startBrowser()
  page = await br.ctx.newPage()
  page.on('pageerror', (e) => console.error('pageerror:', e.message))
})
after(async () => {
  await br?.close()
  srv?.stop()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

/** The native Go engine's rows and report (pqserve cat -report) for srcs and a query. */
function goScan(srcs, q) {
  const rep = path.join(tmp, 'report.json')
  const args = ['cat', ...srcs, '-where', q.where, '-limit', String(q.limit), '-report', rep]
  const ipc = execFileSync(path.join(root, 'bin/pqserve'), args, { maxBuffer: 256 << 20 })
  return { ...normRows(tableFromIPC(ipc)), report: JSON.parse(readFileSync(rep, 'utf8')) }
}

// The page letters of a report's row groups: "rg/column" → letters.
const letters = (rgs, prefix = '') => Object.fromEntries((rgs ?? []).flatMap((g) => (g.columns ?? []).map((c) => [`${prefix}${g.index}/${c.column}`, c.pages])))

// The DOM's page cells, read back the same way: "rg/column" → letters from the cells' classes.
function domLetters(fileAttr) {
  return page.evaluate(
    ({ classes, fileAttr }) => {
      const byClass = Object.fromEntries(Object.entries(classes).map(([l, c]) => [c, l]))
      const out = {}
      for (const blk of document.querySelectorAll('#grid .pages')) {
        const pre = fileAttr ? `${blk.dataset.file}:` : ''
        for (const s of blk.querySelectorAll('.strip')) {
          out[`${pre}${blk.dataset.rg}/${s.dataset.col}`] = [...s.querySelectorAll('.pg')].map((c) => byClass[[...c.classList].find((k) => k !== 'pg')] ?? '?').join('')
        }
      }
      return out
    },
    { classes: PAGE_CLASS, fileAttr },
  )
}

async function waitRun(n) {
  await page.waitForFunction((n) => window.__demo && window.__demo.runs >= n && !window.__demo.busy, n, { timeout: 30000 })
  return page.evaluate(() => window.__demo)
}

const tableRows = () => page.evaluate(async () => {
  const { normRows } = await import('/fixtures/norm.js')
  return normRows(window.__demoTable)
})

test('the demo draws every page of the read row groups, as the engine reports them; the result pages', async () => {
  const q = { where: FILE_WHERE, limit: 100 }
  const want = goScan([path.join(sampleDir, 'events.parquet')], q)
  await page.goto(srv.url + '?pageRows=25')
  const st = await waitRun(1)
  assert.equal(st.error, null)
  assert.equal(st.mode, 'file')
  const rep = st.report
  // The module's page letters are the native engine's, and the DOM shows exactly them.
  const got = letters(rep.rowGroups)
  assert.deepEqual(got, letters(want.report.rowGroups))
  assert.ok(Object.keys(got).length >= 7, 'a strip per column of the read row group')
  assert.deepEqual(await domLetters(false), got)
  const all = Object.values(got).join('')
  assert.equal(await page.locator('#grid .pg').count(), all.length)
  for (const [l, c] of Object.entries({ R: 'read', I: 'pageindex', L: 'latemat' })) {
    assert.ok(all.includes(l), `some page is ${c}`)
    assert.equal(await page.locator(`#grid .pg.${c}`).count(), all.split(l).length - 1, c)
  }
  assert.equal(await page.locator('#grid .pages').count(), rep.rowGroups.filter((g) => g.columns?.length).length)
  ensureOut()
  await page.screenshot({ path: path.join(outDir, 'demo-pages.png'), fullPage: true })

  // The result table: 25 rows a page, next / prev, the rows the Go engine gives.
  const rows = await tableRows()
  assert.deepEqual(rows, { names: want.names, rows: want.rows })
  assert.ok(want.rows.length > 50, `${want.rows.length} rows: three pages or more`)
  const firstCells = () => page.locator('#table tbody tr').first().locator('td').allTextContents()
  assert.equal(await page.locator('#table tbody tr').count(), 25)
  assert.match(await page.locator('#table .pager .where').textContent(), new RegExp(`rows 1–25 of ${want.rows.length} `))
  assert.ok(await page.locator('#table .prev').isDisabled())
  const first = await firstCells()
  await page.click('#table .next')
  await page.click('#table .next')
  assert.match(await page.locator('#table .pager .where').textContent(), /rows 51–75 /)
  const third = await firstCells()
  assert.equal(third[2], want.rows[50][2].replace(/n$/, ''), 'user_id of row 51')
  await page.click('#table .prev')
  await page.click('#table .prev')
  assert.deepEqual(await firstCells(), first)

  // Explain: the pages a scan would fetch are drawn as planned, the page index's as skipped.
  await page.click('#explain')
  const ex = await waitRun(2)
  assert.equal(ex.error, null)
  const planned = letters(ex.report.rowGroups)
  assert.deepEqual(await domLetters(false), planned)
  const p = Object.values(planned).join('')
  assert.ok(p.includes('P') && p.includes('I') && !/[RLS]/.test(p), p)
  assert.equal(await page.locator('#grid .pg.planned').count(), p.split('P').length - 1)
})

test('the dataset mode lists a folder and draws files, then row groups, then pages, coloured by what skipped them', async () => {
  const files = readdirSync(dsDir, { recursive: true }).filter((f) => f.endsWith('.parquet')).sort()
  assert.equal(files.length, 8, 'the sample dataset: 4 days × 2 parts')
  const q = { where: DS_WHERE, limit: 100 }
  const want = goScan([dsDir + '/'], q)
  const listings = []
  page.on('request', (r) => r.url().includes('list-type=2') && listings.push(r.url()))
  await page.goto(`${srv.url}?dataset=/data/ds/&where=${encodeURIComponent(DS_WHERE)}`)
  const st = await waitRun(1)
  assert.equal(st.error, null)
  assert.equal(st.mode, 'dataset')
  // One listing of the folder shows it holds no Delta log nor Iceberg metadata and names its files.
  assert.deepEqual(listings.map((u) => new URL(u).searchParams.get('prefix')), ['ds/'])
  const rep = st.report
  // The totals, and what skipped each file, are the native engine's; the rows too.
  for (const k of ['filesTotal', 'filesAfterPartitions', 'filesAfterStats', 'filesRead', 'rowGroupsTotal', 'rowGroupsAfterStats', 'pagesTotal', 'rowsReturned']) assert.equal(rep[k], want.report[k], k)
  assert.deepEqual([rep.filesTotal, rep.filesAfterPartitions, rep.filesRead], [8, 4, 2])
  const skipped = rep.files.map((f) => f.skippedBy ?? '')
  assert.deepEqual(skipped, want.report.files.map((f) => f.skippedBy ?? ''))
  assert.deepEqual(skipped, ['partition', 'partition', 'partition', 'partition', '', '', '', ''])
  assert.deepEqual(await tableRows(), { names: want.names, rows: want.rows })
  // The picture: a tile per file with its class, the row groups of the files read, their pages.
  const tiles = await page.locator('#grid .ftile').evaluateAll((els) => els.map((e) => [...e.classList].find((c) => c !== 'ftile')))
  assert.deepEqual(tiles, ['partition', 'partition', 'partition', 'partition', 'read', 'read', 'unread', 'unread'])
  for (const [i, f] of rep.files.entries()) {
    const cls = await page.locator(`#grid .file[data-file="${i}"] .rg`).evaluateAll((els) => els.map((e) => e.className))
    assert.deepEqual(cls, (f.rowGroups ?? []).map((g) => `rg ${g.skippedBy === 'statistics' ? 'stats' : 'read'}`), `file ${i}'s row groups`)
  }
  assert.ok(rep.files[4].rowGroups.some((g) => g.skippedBy === 'statistics'), 'statistics skip row groups of the files read')
  const want4 = Object.assign({}, ...rep.files.map((f, i) => letters(f.rowGroups, `${i}:`)))
  assert.deepEqual(want4, Object.assign({}, ...want.report.files.map((f, i) => letters(f.rowGroups, `${i}:`))))
  assert.ok(Object.keys(want4).length >= 14)
  assert.deepEqual(await domLetters(true), want4)
  // The counters show the file funnel.
  assert.match(await page.locator('#counters').textContent(), /files: total → partitions → file statistics → read8 → 4 → 4 → 2/)
  ensureOut()
  await page.screenshot({ path: path.join(outDir, 'demo-dataset.png'), fullPage: true })
})

// A table's folder (the corpus, served at /corpus/, a path-style bucket) in the dataset box:
// the bridge reads the current snapshot's files, drawn as a dataset's. The Iceberg table has 7,
// written under two partition specs, 5 of which its manifests' column statistics rule out; the
// Delta table 6, 4 of which their partition values rule out. No byte of a skipped file is
// requested; rows, totals and what skipped each file are the native engine's.
test('the dataset mode opens an Iceberg or a Delta table folder and draws its snapshot files', async () => {
  const iceCurrent = /\(current (\d+)\)/.exec(icebergTables().find((r) => r.name === 'lithium__partition_evolution').snapshots)[1]
  const cases = [
    { dir: 'iceberg/tables/lithium__partition_evolution/', where: 'c1 = 2', totals: [7, 2, 2], skip: 'file statistics', tile: 'tablestats', summary: `Iceberg snapshot ${iceCurrent}: 7 files`, shot: 'demo-iceberg.png' },
    { dir: 'delta/dat/basic_partitioned/delta/', where: "letter = 'a'", totals: [6, 2, 2], skip: 'partition', tile: 'partition', summary: 'Delta version 1: 6 files' },
  ]
  for (const c of cases) {
    const q = { where: c.where, limit: 100 }
    const want = goScan([path.join(corpusDir(), c.dir)], q)
    await page.goto(`${srv.url}?dataset=/corpus/${c.dir}&where=${encodeURIComponent(q.where)}`)
    const st = await waitRun(1)
    assert.equal(st.error, null, c.dir)
    assert.equal(st.mode, 'dataset')
    const rep = st.report
    // The Go host reads an Iceberg table's manifests per scan, only those the WHERE may match;
    // the JS host reads them all at the open, so its files also count those of the manifests
    // Go left out (skipped by the table's statistics). The files read and the rows are equal.
    const iceberg = c.dir.startsWith('iceberg/')
    const totals = iceberg ? ['filesRead', 'rowGroupsTotal', 'rowsReturned'] : ['filesTotal', 'filesAfterPartitions', 'filesAfterStats', 'filesRead', 'rowGroupsTotal', 'rowsReturned']
    for (const k of totals) assert.equal(rep[k], want.report[k], `${c.dir} ${k}`)
    assert.deepEqual([rep.filesTotal, rep.filesRead, rep.rowsReturned], c.totals)
    const base = (f) => f.path.slice(f.path.lastIndexOf('/') + 1)
    const read = (fs) => fs.filter((f) => !f.skippedBy).map(base)
    assert.deepEqual(read(rep.files), read(want.report.files))
    if (!iceberg) assert.deepEqual(rep.files.map(base), want.report.files.map(base))
    const skipped = rep.files.map((f) => f.skippedBy ?? '')
    if (!iceberg) assert.deepEqual(skipped, want.report.files.map((f) => f.skippedBy ?? ''))
    assert.equal(skipped.filter((s) => s === c.skip).length, c.totals[0] - c.totals[1], c.dir)
    for (const f of rep.files) if (f.skippedBy) assert.equal(f.bytesRequested, 0, base(f))
    assert.deepEqual(await tableRows(), { names: want.names, rows: want.rows })
    const tiles = await page.locator('#grid .ftile').evaluateAll((els) => els.map((e) => [...e.classList].find((k) => k !== 'ftile')))
    assert.deepEqual(tiles, skipped.map((s) => (s ? c.tile : 'read')))
    assert.ok((await page.locator('#summary').textContent()).includes(c.summary), c.summary)
    if (!c.shot) continue
    assert.match(await page.locator('#grid .legend').textContent(), /skipped: the table's file statistics/)
    ensureOut()
    await page.screenshot({ path: path.join(outDir, c.shot), fullPage: true })
  }
})
