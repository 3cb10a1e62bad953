// The viewport workload (geo.js): what every contender and the oracle share. A viewport is
// {name, env: [xmin, ymin, xmax, ymax]} (xmin > xmax: across the antimeridian, an OR of the
// two sides in the peers' conjuncts); the answer is the ids of
// the places (points) inside it, edges included, as sorted canonical rows. The peers filter
// on the covering bbox columns (float32, rounded outward: it over-matches at the edges), then
// test each returned point exactly, as their users would; pqscan answers
// ST_Intersects(geometry, ST_MakeEnvelope(…)) exactly by itself.
import { checksum } from './check.js'

const wraps = (env) => env[0] > env[2]

export const inEnv = (env, x, y) => (wraps(env) ? x >= env[0] || x <= env[2] : x >= env[0] && x <= env[2]) && y >= env[1] && y <= env[3]

/** x and y of a little-endian WKB POINT. */
export function wkbPoint(b) {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength)
  if (b.byteLength < 21 || b[0] !== 1 || v.getUint32(1, true) !== 1) throw new Error('not a little-endian WKB point')
  return [v.getFloat64(5, true), v.getFloat64(13, true)]
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
