// The result table, one page of rows at a time (prev / next), so that a large result renders
// quickly: only the rows shown are turned into cells.
import { esc } from './plan.js'
import { wkbLabel } from './map.js'

/** Shows table (an apache-arrow Table) in el, pageRows rows per page; returns the pager. */
export function showResult(el, table, pageRows) {
  const names = table.schema.fields.map((f) => f.name)
  const cols = names.map((_, i) => table.getChildAt(i))
  // GeoArrow WKB columns (the engine tags geometry columns) are shown as a short WKT-like label.
  const wkb = table.schema.fields.map((f) => f.metadata?.get('ARROW:extension:name') === 'geoarrow.wkb')
  const pages = Math.max(1, Math.ceil(table.numRows / pageRows))
  const pager = { page: 0, pages, pageRows, rows: table.numRows }
  const render = () => {
    const start = pager.page * pageRows
    const end = Math.min(table.numRows, start + pageRows)
    let html = `<div class="pager"><button type="button" class="prev"${pager.page === 0 ? ' disabled' : ''}>‹ prev</button>` +
      `<span class="where">rows ${table.numRows ? start + 1 : 0}–${end} of ${table.numRows.toLocaleString()} (page ${pager.page + 1} of ${pages})</span>` +
      `<button type="button" class="next"${pager.page + 1 >= pages ? ' disabled' : ''}>next ›</button></div>`
    html += `<table><thead><tr>${names.map((n) => `<th>${esc(n)}</th>`).join('')}</tr></thead><tbody>`
    for (let r = start; r < end; r++) html += '<tr>' + cols.map((c, i) => cell(c.get(r), c.type, wkb[i])).join('') + '</tr>'
    el.innerHTML = html + '</tbody></table>'
    el.querySelector('.prev').onclick = () => go(pager.page - 1)
    el.querySelector('.next').onclick = () => go(pager.page + 1)
  }
  const go = (p) => {
    pager.page = Math.min(pages - 1, Math.max(0, p))
    render()
  }
  pager.go = go
  render()
  return pager
}

function cell(v, type, wkb) {
  if (v === null || v === undefined) return '<td class="null">null</td>'
  let s
  if (wkb) s = wkbLabel(v)
  else if (String(type).startsWith('Timestamp') && typeof v === 'number') s = new Date(v).toISOString()
  else if (String(type).startsWith('Date') && typeof v === 'number') s = new Date(v).toISOString().slice(0, 10)
  else if (typeof v === 'bigint') s = v.toString()
  else if (v instanceof Uint8Array) s = new TextDecoder().decode(v)
  else if (typeof v === 'object') s = JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))
  else s = String(v)
  return `<td>${esc(s)}</td>`
}
