// The plan picture: from the engine's report only (internal/scan/report.go), what each level
// of skipping removed. A file: its row groups (coloured by the level that skipped each), then,
// for every row group whose pages were considered, one strip per column with a cell per data
// page (the report's page letters). A dataset: its files (coloured by what skipped each:
// partition values, file statistics, footer statistics, ...), each with its row groups and
// their page strips.

// A row group's or a file's skippedBy → CSS class, and the legend's words for each class. A
// Delta or Iceberg table's file skipped by the statistics its log or manifest gives ('file
// statistics') had no byte requested, unlike one skipped by its footer's.
const RG_CLASS = { statistics: 'stats', bloom: 'bloom', dictionary: 'dictionary', pageIndex: 'pageindex', slice: 'slice', empty: 'slice', filter: 'filter', partition: 'partition', runtime: 'slice', 'file statistics': 'tablestats' }
const LABEL = {
  read: 'read',
  filter: 'read, no row matched',
  stats: 'skipped: statistics',
  dictionary: 'skipped: dictionary',
  bloom: 'skipped: bloom filter',
  pageindex: 'skipped: page index',
  slice: 'skipped: limit/offset',
  partition: 'skipped: partition values',
  tablestats: "skipped: the table's file statistics",
  latemat: 'skipped: late materialization',
  planned: 'planned (explain)',
  unread: 'not reached (limit met first)',
}
// The report's page letters (internal/scan/pages.go) → CSS class.
export const PAGE_CLASS = { R: 'read', I: 'pageindex', L: 'latemat', S: 'slice', P: 'planned', T: 'slice' } // T: a runtime filter (scan.tighten) made it unneeded

const rgClass = (g) => (g.skippedBy ? RG_CLASS[g.skippedBy] ?? 'stats' : 'read')

/** The row groups' tiles and their page strips; `file` prefixes the data attributes' ids. */
function rowGroups(rgs, used, file) {
  const tiles = rgs
    .map((g) => {
      const k = rgClass(g)
      used.add(k)
      const pages = g.pagesTotal ? ` ${g.pagesRead}/${g.pagesTotal} pages` : ''
      return `<div class="rg ${k}" data-rg="${g.index}"${file} title="row group ${g.index}: ${LABEL[k]}${pages}, ${g.rowsMatched} rows"><b>RG ${g.index}</b>${k === 'read' || k === 'filter' ? 'read' : 'skipped'}</div>`
    })
    .join('')
  const strips = rgs
    .filter((g) => g.columns?.length)
    .map((g) => {
      const cols = g.columns
        .map((c) => {
          const cells = [...c.pages]
            .map((letter, p) => {
              const k = PAGE_CLASS[letter] ?? 'read'
              used.add(k)
              return `<i class="pg ${k}" data-page="${p}" title="${esc(c.column)} page ${p}: ${LABEL[k]}"></i>`
            })
            .join('')
          return `<div class="strip" data-col="${esc(c.column)}"><span class="col">${esc(c.column)}</span><span class="cells">${cells}</span></div>`
        })
        .join('')
      return `<div class="pages" data-rg="${g.index}"${file}><b>RG ${g.index} pages</b>${cols}</div>`
    })
    .join('')
  return { tiles, strips }
}

function legend(used) {
  return `<div class="legend">${[...used].map((k) => `<span><i class="${k}"></i>${LABEL[k]}</span>`).join('')}</div>`
}

/** The picture of one file's scan report. */
export function filePicture(r) {
  const used = new Set()
  const { tiles, strips } = rowGroups(r.rowGroups ?? [], used, '')
  return legend(used) + `<div class="tiles">${tiles}</div>${strips}`
}

/** The picture of a dataset scan's report: one row per file. */
export function datasetPicture(r) {
  const used = new Set()
  const rows = (r.files ?? [])
    .map((f, i) => {
      const k = f.skippedBy ? RG_CLASS[f.skippedBy] ?? 'stats' : f.rows || f.bytesRequested ? 'read' : 'unread'
      used.add(k)
      const { tiles, strips } = rowGroups(f.rowGroups ?? [], used, ` data-file="${i}"`)
      const name = f.path.replace(/^.*?\/\/[^/]+/, '')
      return `<div class="file" data-file="${i}"><div class="ftile ${k}" data-file="${i}" title="${esc(f.path)}: ${LABEL[k]}, ${f.bytesRequested} bytes, ${f.rowsReturned} rows returned"><b>${esc(short(name))}</b><span>${LABEL[k]}</span><span>${f.rowsReturned} rows · ${fmtBytes(f.bytesRequested)}</span></div><div class="frgs"><div class="tiles">${tiles}</div>${strips}</div></div>`
    })
    .join('')
  return legend(used) + rows
}

/** The funnel bars: what was left after each level. */
export function funnel(r) {
  const n = r.rowGroupsTotal
  const bars = []
  if (r.filesTotal) {
    const f = r.filesTotal
    bars.push(['files', f, f], ['… after partition values', r.filesAfterPartitions ?? f, f], ['… after file statistics', r.filesAfterStats ?? r.filesAfterPartitions ?? f, f], ['… read (footer and data)', r.filesRead ?? 0, f])
  }
  bars.push(
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
  )
  return bars
    .map(([name, v, of]) => `<div class="bar"><span class="name">${esc(name)}</span><span class="track"><span class="fill" style="display:block;width:${of ? (100 * v) / of : 0}%"></span></span><span>${v} / ${of}</span></div>`)
    .join('')
}

// The end of a path: its partition folders and its name, unescaped (a table's paths come as
// URLs: `c2%3D2025-03-05/`).
function short(p) {
  let d = p
  try {
    d = decodeURIComponent(p)
  } catch {}
  const parts = d.split('/')
  return parts.slice(-2).join('/')
}

export const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c])
export function fmtBytes(n) {
  if (n < 1024) return `${n} B`
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`
  return `${(n / (1 << 20)).toFixed(2)} MiB`
}
