// The pqscan demo page. Everything is served by the local server (cmd/pqserve): the page, the
// bridge bundle (/pqscan/dist/pqscan.js, apache-arrow included), the module and the data.
// Two modes: one file (the URL box or a local file), or a dataset (the dataset box: URLs, one
// per line, or globs listed with the bridge's listDataset; or one folder URL ending in / or one
// Iceberg *.metadata.json URL, which the bridge opens as a Delta or Iceberg table or lists).
import * as pqscan from '/pqscan/dist/pqscan.js'
import { filePicture, datasetPicture, funnel, esc, fmtBytes } from './plan.js'
import { showResult } from './results.js'
import { createMap, envelopeWhere, parseEnvelope } from './map.js'

window.pqscan = pqscan // for the e2e tests and the console
const $ = (id) => document.getElementById(id)
const state = (window.__demo = { runs: 0, report: null, http: null, rows: null, error: null, busy: false, mode: 'file', pager: null, map: null })

const params = new URLSearchParams(location.search)
// ?map: the map view over the generated places (pqserve gen-geo, served at /data/geo/), a
// viewport around Paris unless ?env=xmin,ymin,xmax,ymax says otherwise; no row limit.
const mapMode = params.has('map')
const env0 = parseEnvelope(`ST_MakeEnvelope(${params.get('env') ?? '2.25, 48.80, 2.45, 48.92'})`)
$('url').value = params.get('url') ?? new URL(mapMode ? '/data/geo/places.parquet' : '/data/events.parquet', location.href).href
$('dataset').value = (params.get('dataset') ?? '').split(',').filter(Boolean).map((u) => new URL(u, location.href).href).join('\n')
$('columns').value = params.get('columns') ?? (mapMode ? 'id, geometry' : '')
$('where').value = params.get('where') ?? (mapMode ? envelopeWhere(env0) : "tenant_id = 42 AND event_type = 'purchase'")
if (params.has('limit') || mapMode) $('limit').value = params.get('limit') ?? ''
const map = mapMode ? createMap($('mapcanvas'), parseEnvelope($('where').value) ?? env0, (env) => {
  $('where').value = envelopeWhere(env)
  run(false)
}) : null
$('map').hidden = !mapMode
const pageRows = Number(params.get('pageRows')) || 50

const opened = new Map() // url, dataset key or File → Promise<ParquetFile | Dataset>
let localFile = null // a File picked with the file input, read by slices instead of the URL
let current = null // AbortController of the running query

function status(text, error = false) {
  $('status').textContent = text
  $('status').className = error ? 'error' : ''
}

function open(key, make) {
  if (!opened.has(key)) {
    const p = make()
    p.catch(() => opened.delete(key))
    opened.set(key, p)
  }
  return opened.get(key)
}

// The dataset box's sources (its lines): its URLs, with each folder URL (ending in /) or glob
// replaced by its S3 ListObjectsV2 listing. pqserve's data server is path-style: /data/ is the
// bucket.
async function datasetSources(lines, signal) {
  const out = []
  for (const line of lines) {
    const url = new URL(line, location.href).href
    if (line.endsWith('/') || /[*[]/.test(line)) out.push(...(await pqscan.listDataset(url, { pathStyle: true, signal })))
    else out.push(url)
  }
  if (!out.length) throw new Error('the dataset box lists no Parquet file')
  return out
}

// One folder, or one Iceberg metadata file, is the bridge's to open: a Delta or Iceberg table
// reads the files its snapshot names (a listing would also give the files it removed), any
// other folder the Parquet files below it.
const TABLE = /\/$|\.metadata\.json(\.gz)?$/

function openSource(signal) {
  // The package's default modules (served beside dist/): a single file opens in the lean one,
  // a dataset in the full one, fetched then.
  const o = { signal }
  const lines = $('dataset').value.split('\n').map((s) => s.trim()).filter(Boolean)
  if (lines.length && !localFile) {
    state.mode = 'dataset'
    return open(`dataset:${lines.join('\n')}`, async () => {
      if (lines.length === 1 && TABLE.test(lines[0])) return pqscan.openDataset(new URL(lines[0], location.href).href, { ...o, pathStyle: true })
      const srcs = await datasetSources(lines, signal)
      const ds = await pqscan.openDataset(srcs, o)
      // The dataset's size when the listing gave every file's (the share fetched is of it).
      ds.listedBytes = srcs.every((s) => s.size) ? srcs.reduce((n, s) => n + s.size, 0) : 0
      return ds
    })
  }
  state.mode = 'file'
  const src = localFile ?? $('url').value.trim()
  return open(src, () => pqscan.openParquet(src, o))
}

function query() {
  const cols = $('columns').value.split(',').map((s) => s.trim()).filter(Boolean)
  const limit = Number($('limit').value) || 0
  // VARIANT columns as their JSON text: a table cell shows the value, not its binaries.
  return { columns: cols.length ? cols : undefined, where: $('where').value.trim() || undefined, limit: limit || undefined, variantJSON: true }
}

async function run(explain) {
  current?.abort()
  const ctrl = (current = new AbortController())
  state.busy = true
  state.error = null
  $('cancel').disabled = false
  const t0 = performance.now()
  try {
    status('Opening (footer)…')
    const src = await openSource(ctrl.signal)
    const q = query()
    if (explain) {
      status('Planning…')
      const report = await src.explain({ ...q, signal: ctrl.signal })
      show(src, report, null, null, performance.now() - t0, true)
      status(`Explain: ${fmtMs(performance.now() - t0)}. A real scan would read ${fmtBytes(report.explainDataBytes ?? 0)} of data in ${report.explainDataRequests ?? 0} requests.`)
    } else {
      const scan = src.scan({ ...q, signal: ctrl.signal, onProgress: (p) => status(`${p.phase}: ${fmtBytes(p.bytesFetched)} fetched of ${fmtBytes(p.bytesPlanned)} planned, ${p.requests} requests, ${p.rowsReturned} rows`) })
      const table = await scan.toTable()
      show(src, scan.report, scan.http, table, performance.now() - t0, false)
      status(`Done in ${fmtMs(performance.now() - t0)}: ${table.numRows} rows.`)
    }
  } catch (e) {
    state.error = String(e.message ?? e)
    status(e.name === 'AbortError' ? 'Cancelled.' : `${e.code ? `[${e.code}] ` : ''}${e.message ?? e}`, e.name !== 'AbortError')
  } finally {
    if (current === ctrl) {
      current = null
      $('cancel').disabled = true
    }
    state.busy = false
    state.runs++
  }
}

function show(src, report, http, table, ms, explain) {
  state.report = report
  state.http = http
  state.rows = table ? table.numRows : null
  window.__demoTable = table // the result itself, for the e2e tests (not in __demo: it is not JSON)
  const m = src.metadata
  const openBytes = m.http?.bytes ?? 0
  const scanBytes = http?.bytes ?? 0
  const size = state.mode === 'dataset' ? src.listedBytes || report.fileSize : report.fileSize || m.fileSize
  const tableOf = m.iceberg ? `Iceberg snapshot ${m.iceberg.snapshotId}: ` : m.delta ? `Delta version ${m.delta.version}: ` : ''
  const what = state.mode === 'dataset'
    ? [`${tableOf}${report.filesTotal} files`, `${report.filesAfterPartitions} after partition values, ${report.filesAfterStats} after file statistics, ${report.filesRead} read`]
    : [`${m.numRows.toLocaleString()} rows`, `${m.numRowGroups} row groups`]
  const stats = [
    [fmtBytes(size), state.mode === 'dataset' ? (src.listedBytes ? 'dataset size (from the listing)' : 'size of the files read') : 'file size'],
    what,
    [fmtBytes(openBytes + scanBytes), `fetched (${pct(openBytes + scanBytes, size)}; open read ${fmtBytes(openBytes)})`],
    [String((m.http?.requests ?? 0) + (http?.requests ?? 0)), 'HTTP requests (open + scan)'],
    [String(report.roundTrips), 'engine round trips'],
    [explain ? 'explain' : (table?.numRows ?? 0).toLocaleString(), explain ? 'no data read' : 'rows returned'],
    [fmtMs(ms), 'wall time'],
    ...(report.units > 1 ? [[`${report.units} units`, `decoded on ${report.threads} Workers`]] : []),
  ]
  $('summary').innerHTML = stats.map(([b, s]) => `<div class="stat"><b>${esc(b)}</b><span>${esc(s)}</span></div>`).join('')
  // Files with more than 10,000 row groups get no per-row-group lines; the picture then shows
  // the counters only.
  $('grid').innerHTML = state.mode === 'dataset' ? datasetPicture(report) : filePicture(report)
  $('funnel').innerHTML = funnel(report)
  counters(report, http)
  $('raw').textContent = JSON.stringify(report, null, 2)
  state.pager = null
  if (table) state.pager = showResult($('table'), table, pageRows)
  else $('table').innerHTML = '<p>(explain: no rows read)</p>'
  if (map && table) {
    // A WHERE typed by hand moves the map to its envelope.
    map.env = parseEnvelope($('where').value) ?? map.env
    state.map = map.draw(table)
    $('mapinfo').textContent = `${state.map.drawn.toLocaleString()} geometries drawn${state.map.skipped ? `, ${state.map.skipped} not drawable` : ''}; viewport ${state.map.env.map((v) => v.toFixed(4)).join(', ')}. Drag to pan, wheel to zoom.`
  }
}

function counters(r, http) {
  const rows = []
  if (r.filesTotal) rows.push(['files: total → partitions → file statistics → read', `${r.filesTotal} → ${r.filesAfterPartitions} → ${r.filesAfterStats} → ${r.filesRead}`])
  rows.push(
    [r.filesTotal ? 'size of the files read' : 'file size', fmtBytes(r.fileSize)],
    ['bytes requested by the engine', `${fmtBytes(r.bytesRequested)} (${pct(r.bytesRequested, r.fileSize)})`],
    ['bytes pushed to the engine', fmtBytes(r.bytesPushed)],
    ['engine requests / round trips', `${r.requests} / ${r.roundTrips}`],
    ['HTTP requests / bytes / retries (this scan)', http ? `${http.requests} / ${fmtBytes(http.bytes)} / ${http.retries}` : '—'],
    ['row groups: total → slice → stats → dict → bloom', `${r.rowGroupsTotal} → ${r.rowGroupsAfterSlice} → ${r.rowGroupsAfterStats} → ${r.rowGroupsAfterDictionary} → ${r.rowGroupsAfterBloom}`],
    ['pages: total → page index → late materialization', `${r.pagesTotal} → ${r.pagesAfterPageIndex} → ${r.pagesAfterLateMaterialization}`],
    ['rows: total / scanned / matched / returned', `${r.rowsTotal} / ${r.rowsScanned} / ${r.rowsMatched} / ${r.rowsReturned}`],
    ['lazy dictionaries', r.dictionariesLazy],
    ['late materialization', r.lateMaterialization ?? '—'],
  )
  // The metadata cache (IndexedDB): a returning visit's footer and page index.
  if (r.metadataFromCache) rows.push(['metadata from the cache (saved requests / round trips)', `${r.metadataFromCache.join(', ')} (${r.requestsSaved} / ${r.roundTripsSaved})`])
  if (r.metadataCacheError) rows.push(['metadata cache error (ignored)', r.metadataCacheError])
  if (r.explainDataBytes !== undefined) rows.push(['explain: data a scan would read', `${fmtBytes(r.explainDataBytes)} in ${r.explainDataRequests} requests`])
  $('counters').innerHTML = rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(String(v))}</td></tr>`).join('')
}

const fmtMs = (ms) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`)
const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : '—')

$('q').addEventListener('submit', (e) => {
  e.preventDefault()
  run(false)
})
$('explain').addEventListener('click', () => run(true))
$('file').addEventListener('change', () => {
  localFile = $('file').files[0] ?? null
  if (localFile) run(false)
})
$('url').addEventListener('input', () => {
  localFile = null // typing a URL goes back to it
  $('file').value = ''
  $('dataset').value = '' // and to one file
})
$('cancel').addEventListener('click', () => current?.abort())
run(false)
