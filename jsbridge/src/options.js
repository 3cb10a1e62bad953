// Scan options the engine accepts (scan/options.go); anything else is a bridge option.
const ENGINE_KEYS = ['columns', 'where', 'limit', 'offset', 'batchRows', 'memoryCap', 'tailSize', 'dictionaryArrays', 'roundTripBytes', 'maxGap', 'explain', 'noPrune']

export function engineOptions(o = {}) {
  const out = {}
  for (const k of ENGINE_KEYS) {
    const v = o[k]
    if (v === undefined || v === null) continue
    if (k === 'columns' && (!Array.isArray(v) || v.length === 0)) continue
    if (k === 'where' && String(v).trim() === '') continue
    out[k] = v
  }
  return out
}
