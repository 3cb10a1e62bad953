// The pqscan demo page. Everything is served by the local server (cmd/pqserve): the page, the
// bridge bundle (/pqscan/dist/pqscan.js, apache-arrow included), the module and the data.
import * as pqscan from '/pqscan/dist/pqscan.js'

window.pqscan = pqscan // for the e2e tests and the console
const $ = (id) => document.getElementById(id)
const state = (window.__demo = { runs: 0, report: null, http: null, rows: null, error: null, busy: false })

const params = new URLSearchParams(location.search)
$('url').value = params.get('url') ?? new URL('/data/events.parquet', location.href).href
$('columns').value = params.get('columns') ?? ''
$('where').value = params.get('where') ?? "tenant_id = 42 AND event_type = 'purchase'"
if (params.has('limit')) $('limit').value = params.get('limit')

const files = new Map() // url or File → Promise<ParquetFile>
let localFile = null // a File picked with the file input, read by slices instead of the URL
let current = null // AbortController of the running query

function status(text, error = false) {
  $('status').textContent = text
  $('status').className = error ? 'error' : ''
}

function open(url, signal) {
  if (!files.has(url)) {
    const p = pqscan.openParquet(url, { wasmURL: '/pqscan/pqscan.wasm', signal })
    p.catch(() => files.delete(url))
    files.set(url, p)
  }
  return files.get(url)
}

function query() {
  const cols = $('columns').value.split(',').map((s) => s.trim()).filter(Boolean)
  const limit = Number($('limit').value) || 0
  return { columns: cols.length ? cols : undefined, where: $('where').value.trim() || undefined, limit: limit || undefined }
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
    const file = await open(localFile ?? $('url').value.trim(), ctrl.signal)
    const q = query()
    if (explain) {
      status('Planning…')
      const report = await file.explain({ ...q, signal: ctrl.signal })
      show(file, report, null, null, performance.now() - t0, true)
      status(`Explain: ${fmtMs(performance.now() - t0)}. A real scan would read ${fmtBytes(report.explainDataBytes ?? 0)} of data in ${report.explainDataRequests ?? 0} requests.`)
    } else {
      const scan = file.scan({ ...q, signal: ctrl.signal, onProgress: (p) => status(`${p.phase}: ${fmtBytes(p.bytesFetched)} fetched of ${fmtBytes(p.bytesPlanned)} planned, ${p.requests} requests, ${p.rowsReturned} rows`) })
      const table = await scan.toTable()
      show(file, scan.report, scan.http, table, performance.now() - t0, false)
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

function show(file, report, http, table, ms, explain) {
  state.report = report
  state.http = http
  state.rows = table ? table.numRows : null
  const m = file.metadata
  const openBytes = m.http?.bytes ?? 0
  const scanBytes = http?.bytes ?? 0
  const stats = [
    [fmtBytes(m.fileSize), 'file size'],
    [`${m.numRows.toLocaleString()} rows`, `${m.numRowGroups} row groups`],
    [fmtBytes(openBytes + scanBytes), `fetched (${pct(openBytes + scanBytes, m.fileSize)} of the file; footer read ${fmtBytes(openBytes)})`],
    [String((m.http?.requests ?? 0) + (http?.requests ?? 0)), 'HTTP requests (open + scan)'],
    [String(report.roundTrips), 'engine round trips'],
    [explain ? 'explain' : (table?.numRows ?? 0).toLocaleString(), explain ? 'no data read' : 'rows returned'],
    [fmtMs(ms), 'wall time'],
  ]
  $('summary').innerHTML = stats.map(([b, s]) => `<div class="stat"><b>${esc(b)}</b><span>${esc(s)}</span></div>`).join('')
  plan(report)
  counters(report, http)
  $('raw').textContent = JSON.stringify(report, null, 2)
  $('table').innerHTML = table ? renderTable(table, 200) : '<p>(explain: no rows read)</p>'
}

// The row-group grid, from the report's per-row-group lines (rowGroups): which level skipped
// each row group, or "read" with the pages read. Files with more than 10,000 row groups get no
// per-row-group lines; the grid then shows the counters only.
function plan(r) {
  const n = r.rowGroupsTotal
  const names = { statistics: 'stats', bloom: 'bloom', dictionary: 'dictionary', pageIndex: 'pageindex', slice: 'slice', empty: 'slice', filter: 'filter' }
  const why = (r.rowGroups ?? []).map((g) => (g.skippedBy ? names[g.skippedBy] ?? 'stats' : 'read'))
  const label = { read: 'read', filter: 'read, no row matched', stats: 'skipped: statistics', dictionary: 'skipped: dictionary', bloom: 'skipped: bloom filter', pageindex: 'skipped: page index', slice: 'skipped: limit/offset' }
  const used = [...new Set(why)]
  $('grid').innerHTML =
    `<div class="legend">${used.map((k) => `<span><i class="rg ${k}" style="width:12px;height:12px;display:inline-block"></i>${label[k]}</span>`).join('')}</div>` +
    why.map((k, i) => {
      const g = r.rowGroups[i]
      const pages = g.pagesTotal ? ` ${g.pagesRead}/${g.pagesTotal} pages` : ''
      return `<div class="rg ${k}" data-rg="${i}" title="row group ${i}: ${label[k]}${pages}, ${g.rowsMatched} rows"><b>RG ${i}</b>${k === 'read' || k === 'filter' ? 'read' : 'skipped'}</div>`
    }).join('')
  const bars = [
    ['row groups', n, n],
    ['… after limit/offset', r.rowGroupsAfterSlice, n],
    ['… after statistics', r.rowGroupsAfterStats, n],
    ['… after dictionaries', r.rowGroupsAfterDictionary, n],
    ['… after bloom filters', r.rowGroupsAfterBloom, n],
    ['pages (of those row groups)', r.pagesTotal, r.pagesTotal],
    ['… after page index', r.pagesAfterPageIndex, r.pagesTotal],
    ['… after late materialization', r.pagesAfterLateMaterialization, r.pagesTotal],
    ['rows scanned / total', r.rowsScanned, r.rowsTotal],
    ['rows matched / total', r.rowsMatched, r.rowsTotal],
  ]
  $('funnel').innerHTML = bars
    .map(([name, v, of]) => `<div class="bar"><span class="name">${esc(name)}</span><span class="track"><span class="fill" style="display:block;width:${of ? (100 * v) / of : 0}%"></span></span><span>${v} / ${of}</span></div>`)
    .join('')
}

function counters(r, http) {
  const rows = [
    ['file size', fmtBytes(r.fileSize)],
    ['bytes requested by the engine', `${fmtBytes(r.bytesRequested)} (${pct(r.bytesRequested, r.fileSize)})`],
    ['bytes pushed to the engine', fmtBytes(r.bytesPushed)],
    ['engine requests / round trips', `${r.requests} / ${r.roundTrips}`],
    ['HTTP requests / bytes / retries (this scan)', http ? `${http.requests} / ${fmtBytes(http.bytes)} / ${http.retries}` : '—'],
    ['row groups: total → slice → stats → dict → bloom', `${r.rowGroupsTotal} → ${r.rowGroupsAfterSlice} → ${r.rowGroupsAfterStats} → ${r.rowGroupsAfterDictionary} → ${r.rowGroupsAfterBloom}`],
    ['pages: total → page index → late materialization', `${r.pagesTotal} → ${r.pagesAfterPageIndex} → ${r.pagesAfterLateMaterialization}`],
    ['rows: total / scanned / matched / returned', `${r.rowsTotal} / ${r.rowsScanned} / ${r.rowsMatched} / ${r.rowsReturned}`],
    ['lazy dictionaries', r.dictionariesLazy],
    ['late materialization', r.lateMaterialization ?? '—'],
  ]
  if (r.explainDataBytes !== undefined) rows.push(['explain: data a scan would read', `${fmtBytes(r.explainDataBytes)} in ${r.explainDataRequests} requests`])
  $('counters').innerHTML = rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(String(v))}</td></tr>`).join('')
}

function renderTable(table, max) {
  const names = table.schema.fields.map((f) => f.name)
  let html = `<table><thead><tr>${names.map((n) => `<th>${esc(n)}</th>`).join('')}</tr></thead><tbody>`
  const n = Math.min(max, table.numRows)
  const cols = names.map((_, i) => table.getChildAt(i))
  for (let r = 0; r < n; r++) {
    html += '<tr>' + cols.map((c) => cell(c.get(r), c.type)).join('') + '</tr>'
  }
  html += '</tbody></table>'
  if (table.numRows > n) html += `<p>… ${table.numRows - n} more rows</p>`
  return html
}

function cell(v, type) {
  if (v === null || v === undefined) return '<td class="null">null</td>'
  let s
  if (String(type).startsWith('Timestamp') && typeof v === 'number') s = new Date(v).toISOString()
  else if (typeof v === 'bigint') s = v.toString()
  else if (v instanceof Uint8Array) s = new TextDecoder().decode(v)
  else if (typeof v === 'object') s = JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))
  else s = String(v)
  return `<td>${esc(s)}</td>`
}

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c])
const fmtMs = (ms) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`)
const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : '—')
function fmtBytes(n) {
  if (n < 1024) return `${n} B`
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`
  return `${(n / (1 << 20)).toFixed(2)} MiB`
}

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
})
$('cancel').addEventListener('click', () => current?.abort())
run(false)
