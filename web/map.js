// The demo's map view: a canvas that draws the rows a viewport query returned (points and
// polygon footprints, decoded from the WKB geometry column) and the viewport rectangle, with
// no tile server. The canvas shows the viewport with a margin around it; nothing is drawn in
// the margin because nothing outside the envelope was fetched. Dragging pans the viewport,
// the wheel zooms it; on release (or after the wheel stops) the page runs
// ST_Intersects(geometry, ST_MakeEnvelope(…)) with the new envelope.
const MARGIN = 0.25 // of the canvas, on each side, outside the viewport

/**
 * Starts the map on canvas with the viewport env [xmin, ymin, xmax, ymax]; onEnvelope(env) is
 * called when the user moves it. Returns { env, draw(table), stats }.
 */
export function createMap(canvas, env, onEnvelope) {
  const map = { env: [...env], stats: { drawn: 0, skipped: 0, env: [...env] } }
  const ctx = canvas.getContext('2d')
  let last = null // the last table drawn, redrawn while dragging
  let drag = null // { x, y, env } at mouse down
  let wheelTimer = 0

  // Lon/lat → canvas pixels for the viewport env (x grows east, y north).
  const project = (e) => {
    const w = canvas.width, h = canvas.height
    const sx = (w * (1 - 2 * MARGIN)) / (e[2] - e[0]), sy = (h * (1 - 2 * MARGIN)) / (e[3] - e[1])
    // A longitude is drawn at its copy (±360°) nearest the viewport, so that a viewport
    // across the antimeridian shows both sides together.
    const cx = (e[0] + e[2]) / 2
    const x = (lon) => w * MARGIN + (lon + 360 * Math.round((cx - lon) / 360) - e[0]) * sx
    return { sx, sy, x, y: (lat) => h * (1 - MARGIN) - (lat - e[1]) * sy }
  }

  map.draw = (table, e = map.env) => {
    last = table
    const p = project(e)
    ctx.fillStyle = '#f4f6f8'
    ctx.fillRect(0, 0, canvas.width, canvas.height)
    let drawn = 0, skipped = 0
    const g = table?.getChild('geometry')
    if (g) {
      ctx.fillStyle = 'rgba(47, 111, 221, 0.55)'
      ctx.strokeStyle = 'rgba(29, 36, 48, 0.8)'
      ctx.lineWidth = 0.5
      for (let i = 0; i < table.numRows; i++) {
        const b = g.get(i)
        if (b && drawWKB(ctx, b, p)) drawn++
        else skipped++
      }
    }
    ctx.strokeStyle = '#b3261e'
    ctx.lineWidth = 2
    ctx.setLineDash([6, 4])
    ctx.strokeRect(p.x(e[0]), p.y(e[3]), (e[2] - e[0]) * p.sx, (e[3] - e[1]) * p.sy)
    ctx.setLineDash([])
    map.stats = { drawn, skipped, env: [...e] }
    canvas.dataset.drawn = String(drawn)
    return map.stats
  }

  const moved = () => {
    map.draw(null)
    onEnvelope(map.env)
  }
  canvas.addEventListener('mousedown', (ev) => {
    drag = { x: ev.offsetX, y: ev.offsetY, env: [...map.env] }
  })
  canvas.addEventListener('mousemove', (ev) => {
    if (!drag) return
    const p = project(drag.env)
    const dx = (ev.offsetX - drag.x) / p.sx, dy = (ev.offsetY - drag.y) / p.sy
    map.env = [drag.env[0] - dx, drag.env[1] + dy, drag.env[2] - dx, drag.env[3] + dy]
    // The rows fetched for the old envelope, moved with it, until the new ones arrive.
    map.draw(last, map.env)
  })
  const release = () => {
    if (!drag) return
    const same = drag.env.every((v, i) => v === map.env[i])
    drag = null
    if (!same) moved()
  }
  canvas.addEventListener('mouseup', release)
  canvas.addEventListener('mouseleave', release)
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault()
    const f = Math.exp(ev.deltaY * 0.002) // > 1 zooms out
    const p = project(map.env)
    const lon = map.env[0] + (ev.offsetX - canvas.width * MARGIN) / p.sx
    const lat = map.env[1] + (canvas.height * (1 - MARGIN) - ev.offsetY) / p.sy
    const e = map.env
    map.env = [lon - (lon - e[0]) * f, lat - (lat - e[1]) * f, lon + (e[2] - lon) * f, lat + (e[3] - lat) * f]
    map.draw(null, map.env)
    clearTimeout(wheelTimer)
    wheelTimer = setTimeout(() => onEnvelope(map.env), 300)
  }, { passive: false })
  map.draw(null)
  return map
}

/**
 * The envelope as the query's WHERE, its longitudes brought into [-180, 180]: a viewport
 * dragged across the antimeridian becomes xmin > xmax, which the engine reads as wrapping.
 */
export function envelopeWhere(env) {
  let [x0, y0, x1, y1] = env
  if (x1 - x0 >= 360) [x0, x1] = [-180, 180]
  else {
    const k = Math.floor((x0 + 180) / 360)
    x0 -= 360 * k
    x1 -= 360 * k
    if (x1 > 180) x1 -= 360
  }
  const r = (v) => Number(v.toFixed(6))
  return `ST_Intersects(geometry, ST_MakeEnvelope(${[x0, y0, x1, y1].map(r).join(', ')}))`
}

/** The envelope in a WHERE written by envelopeWhere (or by hand), or null; one that wraps
 * (xmin > xmax) comes back with xmax + 360, continuous for the canvas. */
export function parseEnvelope(where) {
  const m = /ST_MakeEnvelope\(\s*([^,]+),\s*([^,]+),\s*([^,]+),\s*([^)]+)\)/i.exec(where ?? '')
  const env = m ? m.slice(1, 5).map(Number) : null
  if (!env || !env.every(Number.isFinite) || env[1] >= env[3] || env[0] === env[2]) return null
  if (env[0] > env[2]) env[2] += 360
  return env
}

const TYPES = ['GEOMETRY', 'POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON', 'GEOMETRYCOLLECTION']

/** A short label of a WKB value: a point's coordinates, else its type and size. */
export function wkbLabel(b) {
  if (b.byteLength < 5 || b[0] > 1) return `(${b.byteLength} bytes, not WKB)`
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength)
  const t = v.getUint32(1, b[0] === 1)
  const name = TYPES[t % 1000] ?? `WKB type ${t}`
  if (t === 1 && b.byteLength >= 21) return `POINT (${v.getFloat64(5, b[0] === 1)} ${v.getFloat64(13, b[0] === 1)})`
  return `${name} (${b.byteLength} bytes)`
}

// Draws one WKB geometry (points as 3-pixel squares, lines and rings as paths, polygons filled
// even-odd so that holes stay open); false if it is not WKB this reader knows.
function drawWKB(ctx, b, p) {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength)
  let off = 0
  const geom = () => {
    const le = v.getUint8(off) === 1
    const raw = v.getUint32(off + 1, le)
    off += 5
    // ISO Z, M, ZM (1000s): only x and y are drawn, but each point takes 3 or 4 doubles.
    const t = raw % 1000, dims = [2, 3, 3, 4][Math.floor(raw / 1000)] ?? 2
    const u32 = () => ((off += 4), v.getUint32(off - 4, le))
    const pt = () => {
      const x = v.getFloat64(off, le), y = v.getFloat64(off + 8, le)
      off += 8 * dims
      return [p.x(x), p.y(y)]
    }
    const path = (n, close) => {
      for (let i = 0; i < n; i++) {
        const [x, y] = pt()
        if (i === 0) ctx.moveTo(x, y)
        else ctx.lineTo(x, y)
      }
      if (close) ctx.closePath()
    }
    switch (t) {
      case 1: {
        const [x, y] = pt()
        ctx.fillRect(x - 1.5, y - 1.5, 3, 3)
        return
      }
      case 2:
        ctx.beginPath()
        path(u32(), false)
        ctx.stroke()
        return
      case 3: {
        ctx.beginPath()
        for (let r = u32(); r > 0; r--) path(u32(), true)
        ctx.fill('evenodd')
        ctx.stroke()
        return
      }
      case 4: case 5: case 6: case 7:
        for (let n = u32(); n > 0; n--) geom()
        return
      default:
        throw new RangeError(`WKB type ${t}`)
    }
  }
  try {
    geom()
    return true
  } catch {
    return false
  }
}
