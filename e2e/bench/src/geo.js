// The viewport workload (geo.js): what every contender and the oracle share. A viewport is
// {name, env: [xmin, ymin, xmax, ymax]} (xmin > xmax: across the antimeridian, an OR of the
// two sides in the peers' conjuncts); the answer is the ids of the rows whose geometry (a
// place's point, a building's polygon or multipolygon) meets it, edges included, as sorted
// canonical rows. The peers filter on the covering bbox columns (float32, rounded outward: it
// over-matches at the edges), then test each returned geometry exactly (hits), as their users
// would; pqscan answers ST_Intersects(geometry, ST_MakeEnvelope(…)) exactly by itself.
import { checksum } from './check.js'

const wraps = (env) => env[0] > env[2]

/** The polygons of a geometry, each a list of rings of [x, y] (a point: one ring of one
 * vertex), from little-endian WKB (POINT, POLYGON, MULTIPOLYGON) or GeoJSON. */
export function polygons(g) {
  if (!(g instanceof Uint8Array)) {
    if (g.type === 'Point') return [[[g.coordinates]]]
    if (g.type === 'Polygon') return [g.coordinates]
    if (g.type === 'MultiPolygon') return g.coordinates
    throw new Error(`GeoJSON ${g.type}`)
  }
  const v = new DataView(g.buffer, g.byteOffset, g.byteLength)
  let off = 0
  const u32 = () => ((off += 4), v.getUint32(off - 4, true))
  const f64 = () => ((off += 8), v.getFloat64(off - 8, true))
  const one = () => {
    if (v.getUint8(off++) !== 1) throw new Error('big-endian WKB')
    const t = u32()
    if (t === 1) return [[[[f64(), f64()]]]]
    if (t === 3) return [Array.from({ length: u32() }, () => Array.from({ length: u32() }, () => [f64(), f64()]))]
    if (t === 6) return Array.from({ length: u32() }, () => one()).flat()
    throw new Error(`WKB type ${t}`)
  }
  return one()
}

// Segments p-q and r-s meet (endpoints and collinear overlaps included).
function cross(p, q, r, s) {
  const o = (a, b, c) => Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
  const on = (a, b, c) => Math.min(a[0], b[0]) <= c[0] && c[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= c[1] && c[1] <= Math.max(a[1], b[1])
  const d1 = o(r, s, p), d2 = o(r, s, q), d3 = o(p, q, r), d4 = o(p, q, s)
  if (d1 * d2 < 0 && d3 * d4 < 0) return true
  return (d1 === 0 && on(r, s, p)) || (d2 === 0 && on(r, s, q)) || (d3 === 0 && on(p, q, r)) || (d4 === 0 && on(p, q, s))
}

// A polygon (rings) meets the box b = [x0, y0, x1, y1] (x0 <= x1): a vertex in it, an edge
// crossing one of its sides, or its corner inside the polygon (even-odd over the rings).
function meets(rings, b) {
  const inB = ([x, y]) => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3]
  if (rings.some((r) => r.some(inB))) return true
  if (rings[0].length < 3) return false
  const c = [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]
  for (const r of rings) {
    for (let i = 0; i + 1 < r.length; i++) if (c.some((k, j) => cross(r[i], r[i + 1], k, c[(j + 1) % 4]))) return true
  }
  let inside = false
  const [px, py] = c[0]
  for (const r of rings) {
    for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
      const [xi, yi] = r[i], [xj, yj] = r[j]
      if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside
    }
  }
  return inside
}

/** The geometry g (WKB or GeoJSON) meets the viewport env. */
export function hits(env, g) {
  const boxes = wraps(env) ? [[env[0], env[1], 180, env[3]], [-180, env[1], env[2], env[3]]] : [env]
  return polygons(g).some((rings) => boxes.some((b) => meets(rings, b)))
}

/** The bbox conjuncts in SQL (DuckDB) on the covering struct. */
export const bboxSQL = (env) => {
  const x = wraps(env) ? `(bbox.xmax >= ${env[0]} OR bbox.xmin <= ${env[2]})` : `bbox.xmin <= ${env[2]} AND bbox.xmax >= ${env[0]}`
  return `${x} AND bbox.ymin <= ${env[3]} AND bbox.ymax >= ${env[1]}`
}

/** The same as a hyparquet filter (dotted paths are the leaf columns, pruned by statistics). */
export function bboxFilter(env) {
  const y = { 'bbox.ymin': { $lte: env[3] }, 'bbox.ymax': { $gte: env[1] } }
  if (!wraps(env)) return { 'bbox.xmin': { $lte: env[2] }, 'bbox.xmax': { $gte: env[0] }, ...y }
  return { $and: [{ $or: [{ 'bbox.xmax': { $gte: env[0] } }, { 'bbox.xmin': { $lte: env[2] } }] }, y] }
}

export const stWhere = (env) => `ST_Intersects(geometry, ST_MakeEnvelope(${env.join(', ')}))`

/** The answer from ids (bigint or number): count and checksum; candidates: rows before the exact test. */
export function geoAnswer(ids, candidates) {
  return { rows: ids.length, checksum: checksum(ids.map((id) => [String(id)])), candidates }
}
