// The engine's scan options, defined once for the bridge: scan.Options in
// internal/scan/options.go (the JSON tags are the wire form). `default` is what the engine uses
// when the option is absent or 0 (DefaultOptions in Go); `type` is the JS type. Keep one entry a
// line in this literal form: internal/scan/options_jsbridge_test.go parses it (and the
// EngineScanOptions interface of index.d.ts) and fails when either disagrees with the Go side.
// The host sets fileSize, fileKey and metadata itself; every other key is a bridge option.
export const ENGINE_OPTIONS = Object.freeze([
  { name: 'columns', type: 'string[]', default: [] },
  { name: 'where', type: 'string', default: '' },
  { name: 'limit', type: 'number', default: 0 },
  { name: 'offset', type: 'number', default: 0 },
  { name: 'batchRows', type: 'number', default: 65536 },
  { name: 'memoryCap', type: 'number', default: 256 << 20 },
  { name: 'tailSize', type: 'number', default: 64 << 10 },
  { name: 'dictionaryArrays', type: 'boolean', default: false },
  { name: 'roundTripBytes', type: 'number', default: 256 << 10 },
  { name: 'maxGap', type: 'number', default: 8 << 10 },
  { name: 'count', type: 'boolean', default: false },
  { name: 'minMax', type: 'string', default: '' },
  { name: 'rowIndex', type: 'string', default: '' },
  { name: 'orderBy', type: 'string', default: '' },
  { name: 'explain', type: 'boolean', default: false },
  { name: 'noPrune', type: 'boolean', default: false },
  { name: 'lateMaterializationThreshold', type: 'number', default: 20 },
  { name: 'disable', type: 'string[]', default: [] },
  { name: 'noVerifyCrc', type: 'boolean', default: false },
  { name: 'variantJSON', type: 'boolean', default: false },
])

/** The engine's default for an option of ENGINE_OPTIONS. */
export function engineDefault(name) {
  const o = ENGINE_OPTIONS.find((e) => e.name === name)
  if (!o) throw new Error(`pqscan: ${name} is not an engine option`)
  return o.default
}

/** The engine options of o (scan options of the API), without empty columns or where. */
export function engineOptions(o = {}) {
  const out = {}
  for (const { name: k } of ENGINE_OPTIONS) {
    const v = o[k]
    if (v === undefined || v === null) continue
    if ((k === 'columns' || k === 'disable') && (!Array.isArray(v) || v.length === 0)) continue
    if (k === 'where' && String(v).trim() === '') continue
    out[k] = v
  }
  return out
}

/**
 * The key of a scan's plan in the metadata cache (tailcache.js): its engine options (columns,
 * where, limit…) as the bridge sends them. Two scans with equal keys ask one version of a file
 * for the same ranges; a key that differs only costs a plan that is not found.
 */
export function planId(o) {
  return JSON.stringify(engineOptions(o))
}
